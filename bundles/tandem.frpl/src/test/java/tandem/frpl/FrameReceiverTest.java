package tandem.frpl;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import tandem.api.frpl.FrplStreams;
import tandem.api.frpl.FrplStreams.DivergenceException;
import tandem.api.journal.EntryTag;
import tandem.protocol.command.CommandPayload;
import tandem.protocol.frpl.FrplFrame;
import tandem.protocol.frpl.FrplPayload;

/** A replica's stream: bytes, in any fragments, into the entries they came from. */
@Timeout(10)
class FrameReceiverTest {

    private final List<byte[]> journaled = new ArrayList<>();
    private boolean stopped;
    private final FrameReceiver receiver = new FrameReceiver(100, 1 << 20, c -> 0, (ts, kh, tag, p, length) -> {
        journaled.add(bytes(p));
        return journaled.size();
    }, () -> stopped);

    private static byte[] bytes(ByteBuffer b) {
        byte[] out = new byte[b.remaining()];
        b.get(b.position(), out);
        return out;
    }

    private static byte[] set(String key) {
        return CommandPayload.encode(new byte[][] {"SET".getBytes(StandardCharsets.US_ASCII),
                key.getBytes(StandardCharsets.US_ASCII), {'v'}});
    }

    /** @return the frames of {@code payloads} as the primary sends them, from offset 100 */
    private static byte[] stream(byte[]... payloads) {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        long offset = 100;
        for (byte[] p : payloads) {
            for (byte[] f : FrplPayload.frames(EntryTag.APP, 1_000L, p)) {
                offset += f.length;
                out.writeBytes(FrplFrame.frame(0, offset, f));
            }
        }
        return out.toByteArray();
    }

    @Test
    void framesFedByteByByteBecomeTheirEntries() throws Exception {
        byte[] bytes = stream(set("a"), set("b"));
        for (byte b : bytes) {
            receiver.feed(ByteBuffer.wrap(new byte[] {b}));
        }
        assertThat(journaled).containsExactly(set("a"), set("b"));
        assertThat(receiver.offset()).isEqualTo(100 + FrplPayload.length(EntryTag.APP, 1_000L, set("a"))
                + FrplPayload.length(EntryTag.APP, 1_000L, set("b")));
    }

    @Test
    void aFrameThatDoesNotFollowTheOffsetHeldIsADivergence() {
        byte[] f = FrplPayload.frames(EntryTag.APP, 1_000L, set("a")).get(0);
        byte[] wrong = FrplFrame.frame(0, 100 + f.length + 1, f); // claims to end one byte further
        assertThatThrownBy(() -> receiver.feed(ByteBuffer.wrap(wrong))).isInstanceOf(DivergenceException.class)
                .hasMessageContaining("the stream is at 100");
        assertThat(journaled).isEmpty();
    }

    @Test
    void bytesThatAreNoFrameAreRefusedWithTheReason() {
        byte[] garbage = "+OK\r\n+OK\r\n+OK\r\n+OK\r\n".getBytes(StandardCharsets.US_ASCII);
        assertThatThrownBy(() -> receiver.feed(ByteBuffer.wrap(garbage))).isInstanceOf(IOException.class)
                .hasMessageStartingWith("a broken FRPL frame: ");
    }

    @Test
    void onceTheProviderStoppedEvenAnEmptyFeedEndsTheStream() throws Exception {
        receiver.feed(ByteBuffer.wrap(stream(set("a"))));
        stopped = true;
        assertThatThrownBy(() -> receiver.feed(ByteBuffer.allocate(0))).isInstanceOf(IOException.class)
                .hasMessageContaining("tandem.frpl) stopped");
        assertThat(journaled).hasSize(1);
    }

    /**
     * FM-REPLICATION-007: a replica's stream state (the offset received, an open {@code MULTI} group) lives in the
     * applier of one connection; the psync replica asks {@link FrplComponent#receive} for a new one at every
     * connection. A group the old connection opened and never EXECed journals nothing, and the next connection's
     * stream, from the offset the replica holds, is not folded into it: its first command is journaled at once.
     */
    @Test
    void aMultiLeftOpenByOneConnectionIsDroppedWithItAndTheNextConnectionStartsClean() throws Exception {
        FrplComponent frpl = new FrplComponent(null);
        FrplStreams.Sink sink = (ts, kh, tag, p, length) -> {
            journaled.add(bytes(p));
            return journaled.size();
        };
        FrplStreams.Inbound first = frpl.receive(100, 1 << 20, c -> 0, sink);
        byte[] txn = CommandPayload.encodeTransaction(List.of(
                new byte[][] {"INCR".getBytes(StandardCharsets.US_ASCII), {'n'}},
                new byte[][] {"SET".getBytes(StandardCharsets.US_ASCII), {'k'}, {'v'}}));
        List<byte[]> frames = FrplPayload.frames(EntryTag.APP, 1_000L, txn);
        assertThat(frames).hasSize(4);
        long offset = 100;
        for (int i = 0; i < 3; i++) { // MULTI and both commands: the connection drops before EXEC
            offset += frames.get(i).length;
            first.feed(ByteBuffer.wrap(FrplFrame.frame(0, offset, frames.get(i))));
        }
        assertThat(journaled).as("an open group journals nothing").isEmpty();
        assertThat(first.offset()).as("nor is it counted").isEqualTo(100);

        FrplStreams.Inbound second = frpl.receive(first.offset(), 1 << 20, c -> 0, sink);
        second.feed(ByteBuffer.wrap(stream(set("a")))); // same timestamp: an inherited group would swallow it
        assertThat(journaled).as("neither the old group's commands nor a group around the new one")
                .containsExactly(set("a"));
        assertThat(second.offset()).isEqualTo(100 + FrplPayload.length(EntryTag.APP, 1_000L, set("a")));
    }
}
