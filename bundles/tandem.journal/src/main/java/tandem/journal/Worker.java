package tandem.journal;

/** One of the journal's own threads (a daemon): started once the journal is wired, joined when it closes. */
abstract class Worker {

    private final Thread thread;

    Worker(String name) {
        thread = new Thread(this::run, name);
        thread.setDaemon(true);
    }

    /** The thread's work, until the journal closes or stops. */
    abstract void run();

    void start() {
        thread.start();
    }

    Thread thread() {
        return thread;
    }
}
