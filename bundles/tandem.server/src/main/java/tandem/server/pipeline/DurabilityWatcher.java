package tandem.server.pipeline;

import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

import tandem.api.journal.Journal;
import tandem.api.journal.JournalStoppedException;

/**
 * Waits for the journal's durability on a thread of its own and tells the logic thread when a sequence it waits for
 * has become durable, so that the logic thread never blocks on an {@code fdatasync}: while one batch syncs, it keeps
 * sequencing the next.
 */
final class DurabilityWatcher implements AutoCloseable {

    private final Runnable wake;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    private final Thread thread;
    private Journal journal;
    private long target;
    private boolean running = true;
    private volatile Journal stoppedJournal;
    private volatile String stoppedReason;

    DurabilityWatcher(Runnable wake) {
        this.wake = wake;
        this.thread = new Thread(this::run, "tandem-durability");
        thread.setDaemon(true);
        thread.start();
    }

    /** Asks to be woken once {@code sequence} is durable in {@code j} (or the journal stops or closes). */
    void watch(Journal j, long sequence) {
        lock.lock();
        try {
            if (j != journal || sequence > target) {
                journal = j;
                target = sequence;
                changed.signal();
            }
        } finally {
            lock.unlock();
        }
    }

    /** @return why {@code j} stopped, when this watcher saw it stop, else null */
    String stoppedReason(Journal j) {
        return stoppedJournal == j ? stoppedReason : null;
    }

    private void run() {
        long done = 0;
        Journal doneJournal = null;
        while (true) {
            Journal j;
            long t;
            lock.lock();
            try {
                while (running && journal == doneJournal && target <= done) {
                    changed.awaitUninterruptibly();
                }
                if (!running) {
                    return;
                }
                j = journal;
                t = target;
            } finally {
                lock.unlock();
            }
            try {
                j.awaitDurable(t);
            } catch (JournalStoppedException e) {
                stoppedReason = e.getMessage();
                stoppedJournal = j;
            } catch (InterruptedException e) {
                if (!running) {
                    return;
                }
            } catch (RuntimeException e) {
                // a journal that is closing: the logic thread re-evaluates with whatever journal is bound
            }
            done = t;
            doneJournal = j;
            wake.run();
        }
    }

    @Override
    public void close() {
        lock.lock();
        try {
            running = false;
            changed.signal();
        } finally {
            lock.unlock();
        }
        thread.interrupt();
    }
}
