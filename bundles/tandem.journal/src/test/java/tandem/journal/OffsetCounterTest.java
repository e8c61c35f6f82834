package tandem.journal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static tandem.journal.Fixtures.bigCommand;
import static tandem.journal.Fixtures.command;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.zip.CRC32C;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import tandem.api.journal.EntryTag;
import tandem.protocol.frpl.FrplPayload;
import tandem.protocol.journal.JournalEntry;

/** Offsets added up over entries read back, as the appends that wrote them counted. */
@Timeout(10)
class OffsetCounterTest {

    private final ByteBuffer buffer = ByteBuffer.allocate(4 * JournalEntry.MAX_SIZE);
    private final JournalEntry entry = new JournalEntry();
    private final CRC32C crc = new CRC32C();

    private JournalEntry entry(byte tag, long ts, byte[] payload) {
        JournalEntry.encode(buffer, 0, 1, ts, 0, tag, payload, 0, payload.length, crc);
        return entry.wrap(buffer, 0);
    }

    @Test
    void aCommandCountsItsFramesAndAnEpochBumpNothing() {
        OffsetCounter c = new OffsetCounter(Fixtures.MEASURE, 1000);
        byte[] set = command("SET", "k", "v");
        assertThat(c.add(entry(EntryTag.APP, 5, set))).isTrue();
        assertThat(c.offset()).isEqualTo(1000 + FrplPayload.length(EntryTag.APP, 5, set));
        long before = c.offset();
        assertThat(c.add(entry(EntryTag.EPOCH_BUMP, 6, new byte[8]))).isTrue();
        assertThat(c.offset()).isEqualTo(before);
        assertThat(c.add(entry(EntryTag.TICK, 7, new byte[8]))).isTrue();
        assertThat(c.offset()).isEqualTo(before + FrplPayload.length(EntryTag.TICK, 7, new byte[8]));
    }

    @Test
    void aGroupCountsAtItsLastFragmentAndNothingWhenCutShort() {
        byte[] big = bigCommand(100_000, (byte) 'x');
        int max = JournalEntry.MAX_PAYLOAD;
        OffsetCounter c = new OffsetCounter(Fixtures.MEASURE, 0);
        assertThat(c.add(entry(EntryTag.APP_CONTINUATION, 9, Arrays.copyOf(big, max)))).isFalse();
        assertThat(c.inGroup()).isTrue();
        assertThat(c.offset()).isZero();
        assertThat(c.add(entry(EntryTag.APP, 9, Arrays.copyOfRange(big, max, big.length)))).isTrue();
        assertThat(c.inGroup()).isFalse();
        assertThat(c.offset()).isEqualTo(FrplPayload.length(EntryTag.APP, 9, big));

        long before = c.offset();
        c.add(entry(EntryTag.APP_CONTINUATION, 10, Arrays.copyOf(big, max)));
        c.add(entry(EntryTag.TICK, 11, new byte[8])); // a crash cut the command short: only the Tick counts
        assertThat(c.inGroup()).isFalse();
        assertThat(c.offset()).isEqualTo(before + FrplPayload.length(EntryTag.TICK, 11, new byte[8]));
    }

    @Test
    void anAppPayloadThatIsNoCommandIsRefused() {
        OffsetCounter c = new OffsetCounter(Fixtures.MEASURE, 0);
        assertThatThrownBy(() -> c.add(entry(EntryTag.APP, 1, new byte[] {1, 2})))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
