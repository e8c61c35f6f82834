package tandem.replication;

import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.osgi.util.converter.Converters;

import tandem.api.journal.EntryTag;
import tandem.api.journal.EntryVisitor;
import tandem.api.store.Keyspace;
import tandem.api.store.Reply;
import tandem.checkpoint.CheckpointComponent;
import tandem.store.StoreComponent;
import tandem.api.journal.Journal;
import tandem.api.journal.SlotVisitor;
import tandem.auth.AuthComponent;
import tandem.journal.JournalComponent;
import tandem.protocol.command.CommandPayload;
import tandem.protocol.frpl.FrplPayload;

/** Real parts of a node: its journal and its auth component, in a temporary home. */
final class Nodes {

    private Nodes() {
    }

    static JournalComponent journal(Path home, long segmentSize) {
        return journal(home, segmentSize, 1L << 30);
    }

    /** @param retentionBytes archives the store has flushed are kept within this many bytes (0: none) */
    static JournalComponent journal(Path home, long segmentSize, long retentionBytes) {
        Map<String, Object> props = new HashMap<>();
        props.put("directory", home.resolve("data/journal").toString());
        props.put("segment.size", segmentSize);
        props.put("retention.max.bytes", retentionBytes);
        return new JournalComponent(Converters.standardConverter().convert(props).to(JournalComponent.Config.class),
                () -> home);
    }

    static JournalComponent journal(Path home) {
        return journal(home, 256L * 1024 * 1024);
    }

    /** Stops a journal (its deactivation is package-private, as a DS component's usually is). */
    static void close(JournalComponent journal) {
        try {
            Method m = JournalComponent.class.getDeclaredMethod("deactivate");
            m.setAccessible(true);
            m.invoke(journal);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }

    /** A real store in {@code home/data/store}. */
    static StoreComponent store(Path home) {
        return new StoreComponent(Converters.standardConverter().convert(Map.of())
                .to(StoreComponent.Config.class), () -> home);
    }

    static void close(StoreComponent store) {
        invoke(store, "deactivate");
    }

    /** The real checkpoint service in {@code home/data/checkpoint}, cutting from {@code store} (may be null). */
    static CheckpointComponent checkpoints(Path home, Keyspace store) {
        CheckpointComponent c = new CheckpointComponent(Converters.standardConverter().convert(Map.of())
                .to(CheckpointComponent.Config.class), () -> home);
        if (store != null) {
            try {
                // the field SCR binds the store to
                Field keyspace = CheckpointComponent.class.getDeclaredField("keyspace");
                keyspace.setAccessible(true);
                keyspace.set(c, store);
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException(e);
            }
        }
        return c;
    }

    /** Calls a DS component's package-private lifecycle method ({@code deactivate}) from another package. */
    static void invoke(Object target, String method) {
        try {
            Method m = target.getClass().getDeclaredMethod(method);
            m.setAccessible(true);
            m.invoke(target);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Applies the journal's durable entries after the store's applied sequence, as the pipeline would. */
    static void applyAll(Journal journal, Keyspace store) {
        Reply discard = (Reply) Proxy.newProxyInstance(Reply.class.getClassLoader(), new Class<?>[] {Reply.class},
                (proxy, method, args) -> proxy);
        journal.read(store.appliedSequence(), new EntryVisitor() {
            @Override
            public boolean entry(long sequence, long timestampNs, long keyHash, byte tag, byte[] payload) {
                if (tag == EntryTag.APP) {
                    store.apply(sequence, timestampNs, store.resolve(CommandPayload.decode(payload).get(0)), discard);
                } else if (tag == EntryTag.TICK) {
                    store.tick(sequence, timestampNs);
                } else {
                    store.advance(sequence);
                }
                return true;
            }

            @Override
            public void skipped(long sequence) {
                store.advance(sequence);
            }
        });
        store.commit(); // every entry read was durable
    }

    static AuthComponent auth(Path home) {
        Map<String, Object> props = Map.of("reload.check.ms", 0);
        return new AuthComponent(Converters.standardConverter().convert(props).to(AuthComponent.Config.class),
                () -> home);
    }

    static Path home(Path root, String name) {
        try {
            return Files.createDirectories(root.resolve(name));
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Appends {@code n} SET commands and waits until they are durable; @return the last sequence */
    static long append(Journal journal, int n, String prefix) throws InterruptedException {
        long last = 0;
        long ts = Math.max(1, journal.lastTimestampNs());
        for (int i = 0; i < n; i++) {
            byte[] payload = CommandPayload.encode(new byte[][] {"SET".getBytes(StandardCharsets.US_ASCII),
                (prefix + i).getBytes(StandardCharsets.US_ASCII), ("value-" + prefix + "-" + i).repeat(1 + i % 7)
                        .getBytes(StandardCharsets.US_ASCII)});
            last = journal.append(ts + i, 31L * i + prefix.hashCode(), EntryTag.APP, payload,
                    FrplPayload.length(EntryTag.APP, ts + i, payload));
        }
        journal.awaitDurable(last);
        return last;
    }

    /** A slot as the journal gave it: its sequence and bytes. */
    record Slot(long sequence, byte[] bytes) {
        @Override
        public boolean equals(Object o) {
            return o instanceof Slot s && s.sequence == sequence && Arrays.equals(s.bytes, bytes);
        }

        @Override
        public int hashCode() {
            return Long.hashCode(sequence);
        }

        @Override
        public String toString() {
            return "slot " + sequence + " (" + bytes.length + " bytes)";
        }
    }

    /** @return the durable slots after {@code after}, and "rotate N" markers where the read enters a segment */
    static List<Slot> slots(Journal journal, long after) {
        List<Slot> slots = new ArrayList<>();
        journal.readSlots(after, new SlotVisitor() {
            @Override
            public boolean segment(long startSequence, byte[] anchor) {
                return true;
            }

            @Override
            public boolean slot(long sequence, ByteBuffer slot) {
                byte[] b = new byte[slot.remaining()];
                slot.duplicate().get(b);
                slots.add(new Slot(sequence, b));
                return true;
            }
        });
        return slots;
    }
}
