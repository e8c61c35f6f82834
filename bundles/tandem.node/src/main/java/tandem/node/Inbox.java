package tandem.node;

import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * What reaches the logic thread from other threads, in arrival order: clients' requests (and their refusals,
 * failures and closes), wake-ups (a batch became durable, a replica acknowledged, replication appended) and work
 * handed over to run between requests with the services held.
 */
final class Inbox {

    /**
     * A client's message: a {@link tandem.api.store.Command}, a refusal, a failure, {@link #CLOSED}, or a list of
     * them, in order (what the client's front end handed over at once).
     */
    record Event(Client client, Object message) {
    }

    /** Work another thread hands to the logic thread. */
    record Control(Callable<Long> task, CompletableFuture<Long> done) {

        void run() {
            try {
                done.complete(task.call());
            } catch (Exception | Error failure) {
                done.completeExceptionally(failure);
            }
        }
    }

    /** The message of a client whose connection closed. */
    static final Object CLOSED = new Object();
    /** Only wakes the loop, which then looks at what changed (the journal's durable sequence, acknowledgements). */
    private static final Event WAKE = new Event(null, null);

    private final LinkedBlockingQueue<Event> queue = new LinkedBlockingQueue<>();

    void submit(Client client, Object message) {
        queue.add(new Event(client, message));
    }

    void wake() {
        queue.add(WAKE);
    }

    /** Runs {@code task} on the logic thread and returns its result, rethrowing what it threw. */
    long call(Callable<Long> task) throws InterruptedException {
        CompletableFuture<Long> done = new CompletableFuture<>();
        queue.add(new Event(null, new Control(task, done)));
        try {
            return done.get();
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof RuntimeException r) {
                throw r;
            }
            if (cause instanceof Error err) {
                throw err;
            }
            throw new IllegalStateException(cause);
        }
    }

    /** Runs {@code task} on the logic thread, without waiting for it. */
    void post(Runnable task) {
        queue.add(new Event(null, new Control(() -> {
            task.run();
            return 0L;
        }, new CompletableFuture<>())));
    }

    /** @return the next event, waiting up to {@code nanos}; null when none came */
    Event poll(long nanos) throws InterruptedException {
        return queue.poll(nanos, TimeUnit.NANOSECONDS);
    }

    /** @return the next event, or null without waiting */
    Event poll() {
        return queue.poll();
    }

    static boolean isWake(Event e) {
        return e == WAKE;
    }
}
