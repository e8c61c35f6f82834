package tandem.frpl;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import tandem.api.frpl.FrplStreams.DivergenceException;
import tandem.api.journal.EntryTag;
import tandem.protocol.command.CommandPayload;
import tandem.protocol.command.KeyHash;
import tandem.protocol.frpl.FrplFrame;
import tandem.protocol.frpl.FrplPayload;

/** The replica's side of the FRPL stream: frames back into the primary's journal entries, offsets byte-exact. */
@Timeout(10)
class StreamApplierTest {

    private record Entry(long timestampNs, long keyHash, byte tag, byte[] payload, long offsetLength) {
    }

    private final List<Entry> journaled = new ArrayList<>();
    /** Every command's first key is its first argument, as for SET and DEL. */
    private final StreamApplier applier = new StreamApplier(1000, name -> 1, (ts, kh, tag, p, length) -> {
        byte[] bytes = new byte[p.remaining()];
        p.get(p.position(), bytes);
        journaled.add(new Entry(ts, kh, tag, bytes, length));
        return journaled.size();
    });
    private long offset = 1000;

    private static byte[][] args(String... a) {
        byte[][] out = new byte[a.length][];
        for (int i = 0; i < a.length; i++) {
            out[i] = a[i].getBytes(StandardCharsets.UTF_8);
        }
        return out;
    }

    /** Streams an entry as the primary does: its frames, each with the offset after it. */
    private void stream(byte tag, long ts, byte[] payload) throws DivergenceException {
        for (byte[] f : FrplPayload.frames(tag, ts, payload)) {
            offset += f.length;
            applier.frame(0, offset, ByteBuffer.wrap(f));
        }
    }

    @Test
    void aCommandBecomesTheEntryItCameFromWithThePrimarysTimestamp() throws Exception {
        byte[] set = CommandPayload.encode(args("SET", "key", "value"));
        stream(EntryTag.APP, 1_700_000_000_123_456_789L, set);
        assertThat(journaled).hasSize(1);
        assertThat(journaled.get(0).payload()).isEqualTo(set);
        assertThat(journaled.get(0).timestampNs()).isEqualTo(1_700_000_000_123_456_789L);
        assertThat(journaled.get(0).keyHash()).isEqualTo(KeyHash.fnv1a64("key".getBytes(StandardCharsets.UTF_8)));
        long length = FrplPayload.length(EntryTag.APP, 1_700_000_000_123_456_789L, set);
        assertThat(journaled.get(0).offsetLength()).isEqualTo(length);
        assertThat(applier.offset()).isEqualTo(1000 + length);
        assertThat(applier.lastSequence()).isEqualTo(1);
    }

    @Test
    void aSelectedCommandIsJournaledWithItsSelectAsTheEntryItCameFrom() throws Exception {
        byte[] set = CommandPayload.encode(7, args("SET", "key", "value"));
        List<byte[]> frames = FrplPayload.frames(EntryTag.APP, 99, set);
        assertThat(frames).hasSize(2);
        assertThat(new String(frames.get(0), StandardCharsets.US_ASCII))
                .isEqualTo("*4\r\n$9\r\nTANDEM.AT\r\n$2\r\n99\r\n$6\r\nSELECT\r\n$1\r\n7\r\n");
        offset += frames.get(0).length;
        applier.frame(0, offset, ByteBuffer.wrap(frames.get(0)));
        assertThat(journaled).as("the SELECT waits for its command").isEmpty();
        assertThat(applier.offset()).isEqualTo(1000);
        offset += frames.get(1).length;
        applier.frame(0, offset, ByteBuffer.wrap(frames.get(1)));
        assertThat(journaled).hasSize(1);
        assertThat(journaled.get(0).payload()).isEqualTo(set);
        assertThat(journaled.get(0).keyHash()).isEqualTo(KeyHash.fnv1a64("key".getBytes(StandardCharsets.UTF_8)));
        assertThat(journaled.get(0).offsetLength()).isEqualTo(FrplPayload.length(EntryTag.APP, 99, set));
        byte[] txn = CommandPayload.encodeTransaction(List.of(args("INCR", "a"), args("INCR", "b")), new int[] {2, 0});
        stream(EntryTag.APP, 100, txn);
        assertThat(journaled.get(1).payload()).isEqualTo(txn);
        assertThat(applier.offset()).isEqualTo(offset);
    }

    @Test
    void aSelectWithoutItsCommandIsADivergence() throws Exception {
        List<byte[]> frames = FrplPayload.frames(EntryTag.APP, 5, CommandPayload.encode(1, args("SET", "k", "v")));
        offset += frames.get(0).length;
        applier.frame(0, offset, ByteBuffer.wrap(frames.get(0)));
        byte[] tick = FrplPayload.frames(EntryTag.TICK, 6, new byte[8]).get(0);
        offset += tick.length;
        long at = offset;
        assertThatThrownBy(() -> applier.frame(0, at, ByteBuffer.wrap(tick)))
                .isInstanceOf(DivergenceException.class);
    }

    @Test
    void aTransactionIsJournaledAtExecAsOneEntry() throws Exception {
        byte[] txn = CommandPayload.encodeTransaction(List.of(args("INCR", "n"), args("SET", "k", "v")));
        List<byte[]> frames = FrplPayload.frames(EntryTag.APP, 42, txn);
        assertThat(frames).hasSize(4);
        for (int i = 0; i < 3; i++) {
            offset += frames.get(i).length;
            applier.frame(0, offset, ByteBuffer.wrap(frames.get(i)));
        }
        assertThat(journaled).as("nothing before EXEC").isEmpty();
        assertThat(applier.offset()).as("an open group is not counted").isEqualTo(1000);
        offset += frames.get(3).length;
        applier.frame(0, offset, ByteBuffer.wrap(frames.get(3)));
        assertThat(journaled).hasSize(1);
        assertThat(journaled.get(0).payload()).isEqualTo(txn);
        assertThat(journaled.get(0).timestampNs()).isEqualTo(42);
        assertThat(journaled.get(0).keyHash()).as("a transaction has no key hash").isZero();
        assertThat(journaled.get(0).offsetLength()).isEqualTo(offset - 1000)
                .isEqualTo(FrplPayload.length(EntryTag.APP, 42, txn));
        assertThat(applier.offset()).isEqualTo(offset);
    }

    @Test
    void aTickCarriesItsTimestamp() throws Exception {
        stream(EntryTag.TICK, 987654321L, new byte[8]);
        assertThat(journaled).hasSize(1);
        assertThat(journaled.get(0).tag()).isEqualTo(EntryTag.TICK);
        assertThat(ByteBuffer.wrap(journaled.get(0).payload()).order(ByteOrder.LITTLE_ENDIAN).getLong())
                .isEqualTo(987654321L);
    }

    @Test
    void aPublishBecomesAPublishEntryAgainAndNeverSitsInATransaction() throws Exception {
        byte[] publish = CommandPayload.encode(args("PUBLISH", "ch", "message"));
        byte[] spublish = CommandPayload.encode(args("spublish", "sh", ""));
        stream(EntryTag.PUBLISH, 77, publish);
        stream(EntryTag.PUBLISH, 78, spublish);
        stream(EntryTag.APP, 79, CommandPayload.encode(args("PUBLISHX", "k", "v"))); // a command like any other
        assertThat(journaled).extracting(Entry::tag).containsExactly(EntryTag.PUBLISH, EntryTag.PUBLISH,
                EntryTag.APP);
        assertThat(journaled.get(0).payload()).isEqualTo(publish);
        assertThat(journaled.get(1).payload()).isEqualTo(spublish);
        assertThat(journaled.get(0).timestampNs()).isEqualTo(77);
        assertThat(journaled.get(0).keyHash()).isZero();
        assertThat(journaled.get(0).offsetLength()).isEqualTo(FrplPayload.length(EntryTag.PUBLISH, 77, publish));
        assertThat(applier.offset()).isEqualTo(offset);
        List<byte[]> frames = FrplPayload.frames(EntryTag.APP, 80, CommandPayload.encodeTransaction(
                List.<byte[][]>of(args("INCR", "n"))));
        offset += frames.get(0).length;
        applier.frame(0, offset, ByteBuffer.wrap(frames.get(0)));
        byte[] inside = FrplPayload.frames(EntryTag.PUBLISH, 80, publish).get(0);
        assertThatThrownBy(() -> applier.frame(0, offset + inside.length, ByteBuffer.wrap(inside)))
                .isInstanceOf(DivergenceException.class).hasMessageContaining("PUBLISH inside a transaction");
    }

    @Test
    void aRepeatedFrameIsSkippedAndAGapIsADivergence() throws Exception {
        byte[] f = FrplPayload.frames(EntryTag.APP, 5, CommandPayload.encode(args("SET", "a", "1"))).get(0);
        applier.frame(0, 1000 + f.length, ByteBuffer.wrap(f));
        applier.frame(0, 1000 + f.length, ByteBuffer.wrap(f));
        assertThat(journaled).hasSize(1);
        assertThat(applier.duplicates()).isEqualTo(1);
        assertThatThrownBy(() -> applier.frame(0, 1000 + 3L * f.length, ByteBuffer.wrap(f)))
                .isInstanceOf(DivergenceException.class).hasMessageContaining("ends at offset");
    }

    @Test
    void aGetAckOwesTheOffsetReceivedAndAdvancesNothing() throws Exception {
        stream(EntryTag.APP, 9, CommandPayload.encode(args("DEL", "x")));
        long at = applier.offset();
        byte[] control = FrplFrame.getAck(at);
        ByteBuffer header = ByteBuffer.wrap(control, 0, FrplFrame.HEADER);
        applier.frame(FrplFrame.shard(header), FrplFrame.sequence(header),
                ByteBuffer.wrap(control, FrplFrame.HEADER, control.length - FrplFrame.HEADER));
        assertThat(applier.takeOwedAck()).isEqualTo(at);
        assertThat(applier.takeOwedAck()).isEqualTo(-1);
        byte[] lower = CommandPayload.encode(args("replconf", "getack", "*"));
        applier.frame(FrplFrame.CONTROL_SHARD, at, ByteBuffer.wrap(lower));
        assertThat(applier.takeOwedAck()).as("tokens are case-insensitive (FM-REPLICATION-033)").isEqualTo(at);
        assertThat(applier.offset()).isEqualTo(at);
        assertThat(journaled).hasSize(1);
    }

    @Test
    void aCommandWithoutTandemAtIsRefused() {
        byte[] plain = CommandPayload.encode(args("SET", "k", "v"));
        assertThatThrownBy(() -> applier.frame(0, 1000 + plain.length, ByteBuffer.wrap(plain)))
                .isInstanceOf(DivergenceException.class).hasMessageContaining("'SET'");
        byte[] padded = CommandPayload.encode(args("TANDEM.AT", "007", "SET", "k", "v"));
        assertThatThrownBy(() -> applier.frame(0, 1000 + padded.length, ByteBuffer.wrap(padded)))
                .isInstanceOf(DivergenceException.class).hasMessageContaining("canonical");
        assertThat(journaled).isEmpty();
    }

    /** Found while forcing row 010: MULTI and EXEC in one frame decode to no command; a divergence, not a crash. */
    @Test
    void aFrameHoldingMultiAndExecTogetherIsADivergence() {
        byte[] both = "*1\r\n$5\r\nMULTI\r\n*1\r\n$4\r\nEXEC\r\n".getBytes(StandardCharsets.US_ASCII);
        assertThatThrownBy(() -> applier.frame(0, 1000 + both.length, ByteBuffer.wrap(both)))
                .isInstanceOf(DivergenceException.class).hasMessageContaining("no RESP command");
        assertThat(journaled).isEmpty();
    }

    /**
     * FM-REPLICATION-010, the third kind of divergence: a frame that carries a whole {@code MULTI} … {@code EXEC}
     * group is not the one command a frame holds. Its entry would not count the bytes the stream sent for it, and
     * the offsets would drift, so it is refused; nothing is journaled and the offset stays.
     */
    @Test
    void aFrameThatHoldsMoreThanItsOneCommandIsADivergence() {
        byte[] at = CommandPayload.encode(args("TANDEM.AT", "42", "SET", "k", "v"));
        java.io.ByteArrayOutputStream group = new java.io.ByteArrayOutputStream();
        group.writeBytes(CommandPayload.encode(args("MULTI")));
        group.writeBytes(at);
        group.writeBytes(CommandPayload.encode(args("EXEC")));
        byte[] frame = group.toByteArray();
        assertThatThrownBy(() -> applier.frame(0, 1000 + frame.length, ByteBuffer.wrap(frame)))
                .isInstanceOf(DivergenceException.class)
                .hasMessage("a frame ending at offset " + (1000 + frame.length) + " is no RESP command: "
                        + (frame.length - 15) + " bytes follow its command at offset 15");
        byte[] two = new byte[at.length * 2];
        System.arraycopy(at, 0, two, 0, at.length);
        System.arraycopy(at, 0, two, at.length, at.length);
        assertThatThrownBy(() -> applier.frame(0, 1000 + two.length, ByteBuffer.wrap(two)))
                .isInstanceOf(DivergenceException.class).hasMessageContaining("no RESP command");
        assertThat(journaled).isEmpty();
        assertThat(applier.offset()).isEqualTo(1000);
    }
}
