package tandem.frpl;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.lang.reflect.Proxy;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import tandem.api.journal.EntryTag;
import tandem.api.journal.JournalReader;
import tandem.api.journal.SlotVisitor;
import tandem.api.replication.PsyncLink;
import tandem.protocol.command.CommandPayload;
import tandem.protocol.frpl.FrplFrame;
import tandem.protocol.frpl.FrplPayload;
import tandem.protocol.journal.JournalEntry;
import tandem.protocol.replication.InputBatch;

/** A primary's FRPL stream against an in-memory journal and a link that records what it is sent. */
@Timeout(20)
class JournalStreamerTest {

    private record Entry(long sequence, long timestampNs, byte tag, byte[] payload) {
    }

    /** The journal's durable entries; the test appends and makes them durable. */
    private final List<Entry> entries = new CopyOnWriteArrayList<>();
    private volatile long durable;
    private final JournalReader journal = (JournalReader) Proxy.newProxyInstance(getClass().getClassLoader(),
            new Class<?>[] {JournalReader.class}, (proxy, method, args) -> switch (method.getName()) {
                case "durableSequence", "lastSequence" -> durable;
                case "readSlots" -> {
                    long after = (Long) args[0];
                    SlotVisitor v = (SlotVisitor) args[1];
                    for (Entry e : entries) {
                        if (e.sequence() > after && e.sequence() <= durable && !v.slot(e.sequence(), slot(e))) {
                            break;
                        }
                    }
                    yield null;
                }
                default -> throw new UnsupportedOperationException(method.getName());
            });

    /** The entry as the journal hands it to a reader of slots: without its magic and CRC, little-endian. */
    private static ByteBuffer slot(Entry e) {
        ByteBuffer b = ByteBuffer.allocate(InputBatch.slotLength(e.payload().length)).order(ByteOrder.LITTLE_ENDIAN);
        InputBatch.writeSlot(b, e.sequence(), e.timestampNs(), 0, 0, e.tag(), ByteBuffer.wrap(e.payload()));
        return b.flip();
    }

    /** A link that keeps every byte sent; {@code writable} is the test's to switch. */
    private static final class RecordingLink implements PsyncLink {
        final ByteArrayOutputStream sent = new ByteArrayOutputStream();
        volatile boolean writable = true;
        volatile boolean open = true;

        @Override
        public synchronized void send(ByteBuffer bytes) {
            byte[] b = new byte[bytes.remaining()];
            bytes.get(b);
            sent.writeBytes(b);
        }

        synchronized byte[] bytes() {
            return sent.toByteArray();
        }

        @Override
        public CompletionStage<Void> sendFile(Path file, long position, long count) {
            throw new UnsupportedOperationException();
        }

        @Override
        public boolean writable() {
            return writable;
        }

        @Override
        public boolean open() {
            return open;
        }

        @Override
        public void close(String reason) {
            open = false;
        }

        @Override
        public String remoteAddress() {
            return "127.0.0.1:1";
        }
    }

    private final RecordingLink link = new RecordingLink();

    private void append(long sequence, String... command) {
        byte[][] args = new byte[command.length][];
        for (int i = 0; i < command.length; i++) {
            args[i] = command[i].getBytes(StandardCharsets.UTF_8);
        }
        entries.add(new Entry(sequence, 1_700_000_000_000_000_123L, EntryTag.APP, CommandPayload.encode(args)));
        durable = sequence;
    }

    private static Future<String> runInBackground(JournalStreamer s) {
        CompletableFuture<String> done = new CompletableFuture<>();
        Thread t = new Thread(() -> {
            try {
                done.complete(s.run());
            } catch (Exception | Error e) {
                done.completeExceptionally(e);
            }
        });
        t.setDaemon(true);
        t.start();
        return done;
    }

    private static void await(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting until " + what);
            }
            Thread.sleep(5);
        }
    }

    /** {@code TANDEM.AT <ts> SET k v}: 68 bytes; the header says it ends at offset 100 + 68 = 168. */
    private static final String PAYLOAD = "*5\r\n$9\r\nTANDEM.AT\r\n$19\r\n1700000000000000123\r\n"
            + "$3\r\nSET\r\n$1\r\nk\r\n$1\r\nv\r\n";
    private static final String GOLDEN_SET_K_V = "4652504c" + "02" + "00" + "0000" + "00000000000000a8" + "00000044"
            + HexFormat.of().formatHex(PAYLOAD.getBytes(StandardCharsets.US_ASCII));

    @Test
    void durableEntriesGoOutAsFramesWhoseOffsetsContinueTheReplicas() throws Exception {
        append(1, "SET", "k", "v");
        JournalStreamer s = new JournalStreamer(journal, link, 0, 100, 1000, 5000, () -> { });
        Future<String> run = runInBackground(s);
        await("the frame is sent", () -> link.bytes().length == 20 + 68);
        assertThat(HexFormat.of().formatHex(link.bytes())).isEqualTo(GOLDEN_SET_K_V);
        assertThat(s.offset()).isEqualTo(168);
        assertThat(s.sequence()).isEqualTo(1);
        s.close("done here");
        assertThat(run.get(5, TimeUnit.SECONDS)).isEqualTo("done here");
    }

    @Test
    void anAcknowledgedOffsetMapsBackToTheSequenceWhoseEntryEndsThere() throws Exception {
        append(1, "SET", "k", "v");
        append(2, "SET", "k", "v");
        JournalStreamer s = new JournalStreamer(journal, link, 0, 100, 1000, 5000, () -> { });
        Future<String> run = runInBackground(s);
        await("both are sent", () -> s.sequence() == 2);
        assertThat(s.sequenceAt(99)).as("before the stream").isEqualTo(-1);
        assertThat(s.sequenceAt(167)).as("inside the first entry: the base").isEqualTo(0);
        assertThat(s.sequenceAt(168)).isEqualTo(1);
        assertThat(s.sequenceAt(235)).as("inside the second entry").isEqualTo(1);
        assertThat(s.sequenceAt(236)).isEqualTo(2);
        s.close("done");
        run.get(5, TimeUnit.SECONDS);
    }

    @Test
    void getAckIsAControlFrameAtTheCurrentOffset() throws Exception {
        append(1, "SET", "k", "v");
        JournalStreamer s = new JournalStreamer(journal, link, 0, 100, 1000, 5000, () -> { });
        Future<String> run = runInBackground(s);
        await("the entry is sent", () -> s.sequence() == 1);
        s.requestAck();
        await("the GETACK is sent", () -> link.bytes().length == 88 + 20 + 37);
        byte[] all = link.bytes();
        String getAck = HexFormat.of().formatHex(all, 88, all.length);
        assertThat(getAck).isEqualTo("4652504c" + "02" + "00" + "ffff" + "00000000000000a8" + "00000025"
                + HexFormat.of().formatHex("*3\r\n$8\r\nREPLCONF\r\n$6\r\nGETACK\r\n$1\r\n*\r\n"
                        .getBytes(StandardCharsets.US_ASCII)));
        s.close("done");
        run.get(5, TimeUnit.SECONDS);
    }

    @Test
    void aReplicaThatFallsBehindOnceLiveIsDisconnected() throws Exception {
        append(1, "SET", "k", "v");
        Runnable[] ended = {null};
        boolean[] told = {false};
        ended[0] = () -> told[0] = true;
        JournalStreamer s = new JournalStreamer(journal, link, 0, 100, 2, 5000, ended[0]);
        link.writable = true;
        Future<String> run = runInBackground(s);
        await("live", () -> s.sequence() == 1);
        // the stream waits; three entries become durable at once, more than max.lag.frames = 2 behind
        entries.add(new Entry(2, 1, EntryTag.APP, CommandPayload.encode(new byte[][] {{'P', 'I', 'N', 'G'}})));
        entries.add(new Entry(3, 1, EntryTag.APP, CommandPayload.encode(new byte[][] {{'P', 'I', 'N', 'G'}})));
        entries.add(new Entry(4, 1, EntryTag.APP, CommandPayload.encode(new byte[][] {{'P', 'I', 'N', 'G'}})));
        durable = 4;
        s.wake();
        assertThat(run.get(5, TimeUnit.SECONDS)).contains("fell more than 2 entries behind (max.lag.frames)");
        assertThat(told[0]).as("the provider forgets it").isTrue();
        assertThat(s.sequence()).isEqualTo(1);
    }

    @Test
    void aSocketThatTakesNothingForTheWriteTimeoutEndsTheStream() throws Exception {
        append(1, "SET", "k", "v");
        link.writable = false;
        JournalStreamer s = new JournalStreamer(journal, link, 0, 100, 1000, 200, () -> { });
        Future<String> run = runInBackground(s);
        assertThatThrownBy(() -> run.get(5, TimeUnit.SECONDS)).hasCauseInstanceOf(IOException.class)
                .hasMessageContaining("its socket took nothing for 200 ms (write.timeout.ms)");
        assertThat(link.bytes()).isEmpty();
    }

    private static String hex(String ascii) {
        return HexFormat.of().formatHex(ascii.getBytes(StandardCharsets.US_ASCII));
    }

    /** {@code MULTI}, each command wrapped in {@code TANDEM.AT}, {@code EXEC}: four frames, offsets from 100. */
    private static final String GOLDEN_TRANSACTION = "4652504c0200000000000000000000730000000f"
            + hex("*1\r\n$5\r\nMULTI\r\n")
            + "4652504c02000000000000000000009f0000002c"
            + hex("*4\r\n$9\r\nTANDEM.AT\r\n$2\r\n42\r\n$4\r\nINCR\r\n$1\r\nn\r\n")
            + "4652504c0200000000000000000000d100000032"
            + hex("*5\r\n$9\r\nTANDEM.AT\r\n$2\r\n42\r\n$3\r\nSET\r\n$1\r\nk\r\n$1\r\nv\r\n")
            + "4652504c0200000000000000000000df0000000e"
            + hex("*1\r\n$4\r\nEXEC\r\n");

    @Test
    void aTransactionGoesOutAsMultiItsWrappedCommandsAndExec() throws Exception {
        byte[] tx = CommandPayload.encodeTransaction(List.of(
                new byte[][] {"INCR".getBytes(StandardCharsets.US_ASCII), {'n'}},
                new byte[][] {"SET".getBytes(StandardCharsets.US_ASCII), {'k'}, {'v'}}));
        entries.add(new Entry(1, 42, EntryTag.APP, tx));
        durable = 1;
        JournalStreamer s = new JournalStreamer(journal, link, 0, 100, 1000, 5000, () -> { });
        Future<String> run = runInBackground(s);
        await("the transaction is sent", () -> s.sequence() == 1);
        assertThat(HexFormat.of().formatHex(link.bytes())).isEqualTo(GOLDEN_TRANSACTION);
        assertThat(s.offset()).isEqualTo(223);
        assertThat(sequencesAt(s, 222, 223)).as("inside the transaction, and at its end").containsExactly(0L, 1L);
        s.close("done");
        run.get(5, TimeUnit.SECONDS);
    }

    /**
     * A command in fragments goes out once, whole, at its last fragment; a Tick as TANDEM.TICK; an EpochBump and a
     * group that another entry cut short (a crash in mid-command) as nothing: the bytes are those of each entry's
     * frames, back to back, and the stream ends at the last sequence.
     */
    @Test
    void fragmentsTicksAndEntriesWithoutFramesGoOutAsTheirFramesAndNothingElse() throws Exception {
        byte[] value = new byte[150_000];
        new java.util.Random(9).nextBytes(value);
        byte[] big = CommandPayload.encode(new byte[][] {"SET".getBytes(StandardCharsets.US_ASCII), {'b'}, value});
        int max = JournalEntry.MAX_PAYLOAD;
        long ts = 1_700_000_000_000_000_000L;
        entries.add(new Entry(1, ts, EntryTag.APP_CONTINUATION, Arrays.copyOfRange(big, 0, max)));
        entries.add(new Entry(2, ts, EntryTag.APP_CONTINUATION, Arrays.copyOfRange(big, max, 2 * max)));
        entries.add(new Entry(3, ts, EntryTag.APP, Arrays.copyOfRange(big, 2 * max, big.length)));
        byte[] tick = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(ts + 1).array();
        entries.add(new Entry(4, ts + 1, EntryTag.TICK, tick));
        entries.add(new Entry(5, ts + 1, EntryTag.EPOCH_BUMP, new byte[8]));
        entries.add(new Entry(6, ts + 2, EntryTag.APP_CONTINUATION, Arrays.copyOfRange(big, 0, max)));
        entries.add(new Entry(7, ts + 2, EntryTag.TICK, tick));
        byte[] set = CommandPayload.encode(new byte[][] {"SET".getBytes(StandardCharsets.US_ASCII), {'k'}, {'v'}});
        entries.add(new Entry(8, ts + 3, EntryTag.APP, set));
        durable = 8;

        ByteArrayOutputStream expected = new ByteArrayOutputStream();
        long offset = 100;
        long[] ends = new long[4];
        int i = 0;
        for (Entry e : List.of(new Entry(3, ts, EntryTag.APP, big), entries.get(3), entries.get(6), entries.get(7))) {
            for (byte[] f : FrplPayload.frames(e.tag(), e.timestampNs(), e.payload())) {
                offset += f.length;
                expected.writeBytes(FrplFrame.frame(0, offset, f));
            }
            ends[i++] = offset;
        }
        JournalStreamer s = new JournalStreamer(journal, link, 0, 100, 1000, 5000, () -> { });
        Future<String> run = runInBackground(s);
        await("everything is sent", () -> s.sequence() == 8);
        assertThat(link.bytes()).isEqualTo(expected.toByteArray());
        assertThat(s.offset()).isEqualTo(offset);
        // the command ends at its last fragment, and the group cut short is no command: the Tick after it ends at 7
        assertThat(sequencesAt(s, ends)).containsExactly(3L, 4L, 7L, 8L);
        s.close("done");
        run.get(5, TimeUnit.SECONDS);
    }

    private static List<Long> sequencesAt(JournalStreamer s, long... offsets) {
        List<Long> out = new java.util.ArrayList<>();
        for (long o : offsets) {
            out.add(s.sequenceAt(o));
        }
        return out;
    }
}
