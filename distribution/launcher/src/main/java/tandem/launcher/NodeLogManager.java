package tandem.launcher;

import java.util.logging.LogManager;

/**
 * The JVM's log manager for a node. The standard one resets itself (closing every handler) in a shutdown hook of
 * its own, which runs at the same time as Felix's hook that stops the framework, so everything bundles log while a
 * SIGTERM stops them would be lost. This one keeps its handlers until the JVM is gone; the console handler flushes
 * every record, so nothing is left unwritten.
 *
 * <p>Selected by {@code bin/tandem} with {@code -Djava.util.logging.manager=tandem.launcher.NodeLogManager}.
 */
public final class NodeLogManager extends LogManager {

    private volatile boolean configured;

    @Override
    public void readConfiguration() throws java.io.IOException {
        super.readConfiguration();
        configured = true;
    }

    @Override
    public void reset() {
        // readConfiguration() resets before it applies a configuration; later resets come from the shutdown hook
        if (!configured) {
            super.reset();
        }
    }
}
