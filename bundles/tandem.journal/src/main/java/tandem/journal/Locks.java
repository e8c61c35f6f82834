package tandem.journal;

import java.util.concurrent.locks.Lock;

/** A short critical section in one call: the journal's threads signal one another under their locks. */
final class Locks {

    private Locks() {
    }

    /** Runs {@code section} holding {@code lock}. */
    static void locked(Lock lock, Runnable section) {
        lock.lock();
        try {
            section.run();
        } finally {
            lock.unlock();
        }
    }
}
