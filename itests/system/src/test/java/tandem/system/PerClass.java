package tandem.system;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A node or cluster that a test class starts once, before its first test, and closes after its last: registered
 * with {@code @RegisterExtension static final PerClass<TandemNode> node = new PerClass<>(() -> ...)}, it replaces
 * the class's own {@code @BeforeAll} and {@code @AfterAll}.
 */
final class PerClass<T extends AutoCloseable> implements BeforeAllCallback, AfterAllCallback {

    /** Starts what the class's tests share. */
    @FunctionalInterface
    interface Starter<T> {
        T start() throws Exception;
    }

    private final Starter<T> starter;
    private T started;

    PerClass(Starter<T> starter) {
        this.starter = starter;
    }

    /** @return what {@link Starter#start} returned for this class */
    T get() {
        if (started == null) {
            throw new IllegalStateException("not started: use it from a test of the class that registers it");
        }
        return started;
    }

    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        started = starter.start();
    }

    /**
     * Closes every one of {@code resources} that was made (null: its start failed or never came), in order, for the
     * {@code @AfterAll} of a class that shares more than one thing; a failure does not keep the others open, and the
     * first is thrown once all were closed.
     */
    static void closeAll(AutoCloseable... resources) throws Exception {
        Exception first = null;
        for (AutoCloseable r : resources) {
            try {
                if (r != null) {
                    r.close();
                }
            } catch (Exception e) {
                if (first == null) {
                    first = e;
                } else {
                    first.addSuppressed(e);
                }
            }
        }
        if (first != null) {
            throw first;
        }
    }

    @Override
    public void afterAll(ExtensionContext context) throws Exception {
        if (started != null) {
            started.close();
            started = null;
        }
    }
}
