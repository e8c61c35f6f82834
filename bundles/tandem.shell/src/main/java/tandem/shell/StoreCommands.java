package tandem.shell;

import java.util.HexFormat;
import java.util.Locale;

import org.apache.felix.service.command.Descriptor;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;

import tandem.api.node.Node;
import tandem.api.store.Keyspace;
import tandem.api.store.StoreStatus;

/** {@code store:*}: the RocksDB keyspace. */
@Component(service = StoreCommands.class, immediate = true, property = {
    "osgi.command.scope=store",
    "osgi.command.function=info",
    "osgi.command.function=digest"
})
public final class StoreCommands {

    private static final String NOT_ACTIVE = "store: not active (is tandem.store started? see scr:list)";

    /** How long {@link #digest} waits for a node that is not ready yet (a replay right after a start, say). */
    private static final long READY_WAIT_MILLIS = 10_000;

    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC)
    private volatile Keyspace keyspace;

    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC)
    private volatile Node node;

    /** @return null when the node core is ready (or absent: the store is read as it is), else why not */
    private String notReady() {
        Node n = node;
        return n == null ? null : n.notReady();
    }

    @Descriptor("shows the store: directory, applied and flushed sequences, keys, size on disk")
    public String info() {
        Keyspace k = keyspace;
        if (k == null) {
            return NOT_ACTIVE;
        }
        StoreStatus s = k.status();
        return String.format(Locale.ROOT, "directory:          %s%n"
                + "applied sequence:   %d%n"
                + "flushed sequence:   %d%n"
                + "keys:               %d (%d with an expiry)%n"
                + "disk bytes:         %d%n"
                + "node:               %s",
                s.directory(), s.appliedSequence(), s.flushedSequence(), s.keys(), s.keysWithExpiry(), s.diskBytes(),
                notReady() == null ? "ready" : "NOT READY: " + notReady());
    }

    @Descriptor("prints the SHA-256 of the stored user keyspace (keys, types, values, absolute expiry), hex; waits "
            + "up to 10 s for a node that is not ready (replaying its journal), since a digest then would predate it")
    public String digest() throws InterruptedException {
        long deadline = System.nanoTime() + READY_WAIT_MILLIS * 1_000_000;
        String notReady;
        // a stopped apply does not end by waiting: say so at once
        Node n;
        while ((notReady = notReady()) != null && (n = node) != null && n.applyStopped() == null
                && System.nanoTime() < deadline) {
            Thread.sleep(50); // a person waits at the prompt: polling a cheap volatile read is simplest
        }
        if (notReady != null) {
            return "node not ready: " + notReady + " (no digest: the store does not hold the journal's state yet)";
        }
        Keyspace k = keyspace;
        if (k == null) {
            return NOT_ACTIVE;
        }
        return HexFormat.of().formatHex(k.digest());
    }
}
