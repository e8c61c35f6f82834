package tandem.shell;

import java.util.HexFormat;
import java.util.Locale;

import org.apache.felix.service.command.Descriptor;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;

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

    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC)
    private volatile Keyspace keyspace;

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
                + "disk bytes:         %d",
                s.directory(), s.appliedSequence(), s.flushedSequence(), s.keys(), s.keysWithExpiry(), s.diskBytes());
    }

    @Descriptor("prints the SHA-256 of the stored user keyspace (keys, types, values, absolute expiry), hex")
    public String digest() {
        Keyspace k = keyspace;
        if (k == null) {
            return NOT_ACTIVE;
        }
        return HexFormat.of().formatHex(k.digest());
    }
}
