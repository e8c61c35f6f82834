package tandem.replication;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Delayed;
import java.util.concurrent.FutureTask;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/** Records what a session schedules (timeouts, reconnections); a test runs the tasks when it chooses. */
final class ManualScheduler {

    static final class Task extends FutureTask<Void> implements ScheduledFuture<Void> {
        final long delayMs;

        Task(Runnable r, long delayMs) {
            super(r, null);
            this.delayMs = delayMs;
        }

        @Override
        public long getDelay(TimeUnit unit) {
            return unit.convert(delayMs, TimeUnit.MILLISECONDS);
        }

        @Override
        public int compareTo(Delayed o) {
            return Long.compare(delayMs, o.getDelay(TimeUnit.MILLISECONDS));
        }
    }

    private final List<Task> tasks = new ArrayList<>();

    synchronized ScheduledFuture<?> schedule(Runnable r, long delayMs) {
        Task t = new Task(r, delayMs);
        tasks.add(t);
        return t;
    }

    /** @return the tasks neither run nor cancelled */
    synchronized List<Task> pending() {
        return tasks.stream().filter(t -> !t.isDone()).toList();
    }

    /** Runs every pending task, as if their delays had passed. */
    void runPending() {
        for (Task t : pending()) {
            t.run();
        }
    }
}
