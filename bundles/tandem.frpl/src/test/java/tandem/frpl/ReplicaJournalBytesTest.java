package tandem.frpl;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.lang.reflect.Method;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.function.ToIntFunction;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.osgi.util.converter.Converters;

import tandem.api.journal.EntryTag;
import tandem.api.journal.Journal;
import tandem.journal.JournalComponent;
import tandem.protocol.command.CommandPayload;
import tandem.protocol.command.KeyHash;
import tandem.protocol.frpl.FrplFrame;
import tandem.protocol.frpl.FrplPayload;
import tandem.protocol.journal.JournalEntry;
import tandem.protocol.journal.SegmentHeader;

/**
 * A psync replica journals what it receives without decoding and re-encoding it, and its journal holds the bytes it
 * held when it did: the frames of a primary's entries (commands, binary arguments, an argument count whose header
 * grows a digit, transactions, ticks, a command split into fragments) fed through the receiver into a real journal
 * give, entry for entry, the bytes of a journal fed the way the replica did before (each frame decoded into its
 * arguments, re-encoded, its key hashed from the decoded arguments, its length recomputed) — and the bytes of the
 * primary's own journal.
 */
@Timeout(60)
class ReplicaJournalBytesTest {

    private static final ToIntFunction<String> FIRST_KEY = name -> name.equals("ping") ? 0 : 1;

    @TempDir
    Path dir;

    private record Entry(long timestampNs, byte tag, byte[] payload) {
    }

    private static byte[][] args(Object... a) {
        byte[][] out = new byte[a.length][];
        for (int i = 0; i < a.length; i++) {
            out[i] = a[i] instanceof byte[] b ? b : ((String) a[i]).getBytes(StandardCharsets.UTF_8);
        }
        return out;
    }

    private static List<Entry> entries() {
        Random r = new Random(28);
        byte[] binary = new byte[256];
        for (int i = 0; i < binary.length; i++) {
            binary[i] = (byte) i;
        }
        byte[] crlf = "\r\n$3\r\n*2\r\n".getBytes(StandardCharsets.US_ASCII);
        byte[] big = new byte[200_000]; // beyond three entries' payload: the journal splits it into fragments
        r.nextBytes(big);
        List<Entry> out = new ArrayList<>();
        long ts = 1_700_000_000_000_000_000L;
        out.add(new Entry(ts += 7, EntryTag.APP, CommandPayload.encode(args("SET", "k", "v"))));
        out.add(new Entry(ts += 7, EntryTag.APP, CommandPayload.encode(args("SET", binary, crlf))));
        out.add(new Entry(ts += 7, EntryTag.APP, CommandPayload.encode(args("PING"))));
        out.add(new Entry(ts += 7, EntryTag.APP, CommandPayload.encode(args("MSET", "a", "1", "b", "2", "c", "3",
                "d"))));
        out.add(new Entry(ts += 7, EntryTag.TICK, tick(ts)));
        out.add(new Entry(ts += 7, EntryTag.APP, CommandPayload.encodeTransaction(List.of(args("INCR", "n"),
                args("SET", crlf, binary), args("DEL", "x", "")))));
        out.add(new Entry(ts += 7, EntryTag.APP, CommandPayload.encode(args("SET", "big", big))));
        out.add(new Entry(ts += 7, EntryTag.APP, CommandPayload.encodeTransaction(List.of(args("SET", "t", big),
                args("INCR", "n")))));
        out.add(new Entry(ts += 7, EntryTag.TICK, tick(ts)));
        out.add(new Entry(ts += 7, EntryTag.APP, CommandPayload.encode(args("set", "lower", "case"))));
        return out;
    }

    private static byte[] tick(long ts) {
        return ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(ts).array();
    }

    @Test
    void theReplicasJournalHoldsTheBytesItHeldWhenItDecodedAndReencoded() throws Exception {
        List<Entry> entries = entries();
        JournalComponent primary = journal(dir.resolve("primary"));
        JournalComponent sliced = journal(dir.resolve("sliced"));
        JournalComponent rebuilt = journal(dir.resolve("rebuilt"));
        try {
            ByteArrayOutputStream wire = new ByteArrayOutputStream();
            List<byte[]> frames = new ArrayList<>();
            long offset = 0;
            for (Entry e : entries) {
                long seq = primary.append(e.timestampNs(), keyHash(e), e.tag(), e.payload(),
                        FrplPayload.length(e.tag(), e.timestampNs(), e.payload()));
                primary.awaitDurable(seq);
                for (byte[] f : FrplPayload.frames(e.tag(), e.timestampNs(), e.payload())) {
                    offset += f.length;
                    wire.writeBytes(FrplFrame.frame(0, offset, f));
                    frames.add(f);
                }
            }

            FrameReceiver receiver = new FrameReceiver(0, 1 << 22, FIRST_KEY, sliced::append, () -> false);
            byte[] bytes = wire.toByteArray();
            Random r = new Random(5);
            for (int at = 0; at < bytes.length; ) {
                int n = Math.min(bytes.length - at, 1 + r.nextInt(70_000));
                receiver.feed(ByteBuffer.wrap(bytes, at, n));
                at += n;
            }
            assertThat(receiver.offset()).isEqualTo(offset);

            rebuildAsBefore(frames, rebuilt);

            for (JournalComponent j : List.of(primary, sliced, rebuilt)) {
                j.awaitDurable(j.lastSequence());
                assertThat(j.status().replicationOffset()).isEqualTo(offset);
                assertThat(j.verify()).isNull();
            }
            byte[] expected = entryBytes(dir.resolve("rebuilt"));
            assertThat(entryBytes(dir.resolve("sliced"))).as("the sliced replica's entries, byte for byte")
                    .isEqualTo(expected);
            assertThat(entryBytes(dir.resolve("primary"))).as("and the primary's").isEqualTo(expected);
            assertThat(sliced.lastSequence()).isGreaterThan(entries.size()); // fragments took sequences too
        } finally {
            close(primary);
            close(sliced);
            close(rebuilt);
        }
    }

    /** The key hash the primary journals: FNV-1a of the first key, none for a transaction or an event. */
    private static long keyHash(Entry e) {
        if (e.tag() != EntryTag.APP || CommandPayload.isTransaction(e.payload())) {
            return 0;
        }
        byte[][] command = CommandPayload.decode(e.payload()).get(0);
        return keyHash(command);
    }

    private static long keyHash(byte[][] command) {
        int key = FIRST_KEY.applyAsInt(new String(command[0], StandardCharsets.ISO_8859_1).toLowerCase(Locale.ROOT));
        return key > 0 && key < command.length ? KeyHash.fnv1a64(command[key]) : 0;
    }

    /** What the replica did before: each frame decoded, its command re-encoded, its length recomputed. */
    private static void rebuildAsBefore(List<byte[]> frames, Journal journal) {
        List<byte[][]> transaction = null;
        long transactionTs = 0;
        byte[] multi = CommandPayload.encode(args("MULTI"));
        byte[] exec = CommandPayload.encode(args("EXEC"));
        for (byte[] f : frames) {
            if (Arrays.equals(f, multi)) {
                transaction = new ArrayList<>();
                continue;
            }
            byte[] entry;
            long ts;
            long hash = 0;
            byte tag = EntryTag.APP;
            if (Arrays.equals(f, exec)) {
                journal.append(transactionTs, 0, tag, CommandPayload.encodeTransaction(transaction),
                        FrplPayload.length(tag, transactionTs, CommandPayload.encodeTransaction(transaction)));
                transaction = null;
                continue;
            }
            byte[][] decoded = CommandPayload.decode(f).get(0);
            String name = new String(decoded[0], StandardCharsets.ISO_8859_1).toUpperCase(Locale.ROOT);
            switch (name) {
                case "TANDEM.TICK" -> {
                    ts = Long.parseLong(new String(decoded[1], StandardCharsets.US_ASCII));
                    entry = tick(ts);
                    tag = EntryTag.TICK;
                }
                default -> {
                    ts = Long.parseLong(new String(decoded[1], StandardCharsets.US_ASCII));
                    byte[][] command = Arrays.copyOfRange(decoded, 2, decoded.length);
                    if (transaction != null) {
                        transaction.add(command);
                        transactionTs = ts;
                        continue;
                    }
                    entry = CommandPayload.encode(command);
                    hash = keyHash(command);
                }
            }
            journal.append(ts, hash, tag, entry, FrplPayload.length(tag, ts, entry));
        }
    }

    /** The entries of a journal's live segment, magic to CRC, without the header (whose anchor is random). */
    private static byte[] entryBytes(Path home) throws Exception {
        byte[] file = Files.readAllBytes(home.resolve("data/journal/journal"));
        ByteBuffer b = ByteBuffer.wrap(file);
        int end = SegmentHeader.SIZE;
        JournalEntry e = new JournalEntry();
        while (end + 2 <= file.length && e.wrap(b, end).magic() == JournalEntry.MAGIC) {
            end += e.size();
        }
        return Arrays.copyOfRange(file, SegmentHeader.SIZE, end);
    }

    private static JournalComponent journal(Path home) {
        return new JournalComponent(Converters.standardConverter().convert(Map.of())
                .to(JournalComponent.Config.class), () -> home);
    }

    /** Stops a journal (its deactivation is package-private, as a DS component's usually is). */
    private static void close(JournalComponent journal) throws ReflectiveOperationException {
        Method m = JournalComponent.class.getDeclaredMethod("deactivate");
        m.setAccessible(true);
        m.invoke(journal);
    }
}
