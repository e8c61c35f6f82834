package tandem.failover;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import tandem.api.failover.FailoverStatus.Failover;
import tandem.failover.GroupCodec.Answer;
import tandem.failover.GroupCodec.Heard;
import tandem.failover.GroupCodec.Report;

/** Golden bytes of every group message, round trips, and refusals of damaged input. */
@Timeout(30)
class GroupCodecTest {

    private static final HexFormat HEX = HexFormat.of();

    @Test
    void joinHasItsGoldenBytes() {
        byte[] b = GroupCodec.join(new GroupState.Member("n1", "1.2.3.4:5", "1.2.3.4:6", true));
        assertThat(HEX.formatHex(b)).isEqualTo("01" + "00026e31" + "0009312e322e332e343a35" + "0009312e322e332e343a36"
                + "01");
        assertThat(GroupCodec.readJoin(ByteBuffer.wrap(b)))
                .isEqualTo(new GroupState.Member("n1", "1.2.3.4:5", "1.2.3.4:6", true));
    }

    @Test
    void promoteHasItsGoldenBytes() {
        Failover f = new Failover("a", "b", 2, 3, 4, "r");
        byte[] b = GroupCodec.promote(f);
        assertThat(HEX.formatHex(b)).isEqualTo("02" + "0000000000000002" + "000162" + "000161" + "0000000000000003"
                + "0000000000000004" + "000172");
        assertThat(GroupCodec.readPromote(ByteBuffer.wrap(b))).isEqualTo(f);
    }

    @Test
    void reportHasItsGoldenBytes() {
        Report r = new Report("n", "replica", "", "x", 1, -1, "disk", true);
        byte[] b = GroupCodec.report(r);
        assertThat(HEX.formatHex(b)).isEqualTo("0a" + "00016e" + "00077265706c696361" + "0000" + "000178"
                + "0000000000000001" + "ffffffffffffffff" + "00046469736b" + "01");
        assertThat(GroupCodec.readReport(ByteBuffer.wrap(b))).isEqualTo(r);
    }

    @Test
    void answerHasItsGoldenBytes() {
        Answer a = new Answer(true, 5, "p", List.of(new Heard("q", "down", 9, 10)));
        byte[] b = GroupCodec.answer(a);
        assertThat(HEX.formatHex(b)).isEqualTo("0b" + "01" + "0000000000000005" + "000170" + "0001" + "000171"
                + "0004646f776e" + "0000000000000009" + "000000000000000a");
        assertThat(GroupCodec.readAnswer(ByteBuffer.wrap(b))).isEqualTo(a);
        Answer none = new Answer(false, 0, null, List.of());
        assertThat(GroupCodec.readAnswer(ByteBuffer.wrap(GroupCodec.answer(none)))).isEqualTo(none);
    }

    @Test
    void damagedMessagesAreRefusedWithTheReason() {
        byte[] join = GroupCodec.join(new GroupState.Member("n1", "a", "b", false));
        assertThatThrownBy(() -> GroupCodec.readJoin(ByteBuffer.wrap(join, 0, join.length - 1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("cut short");
        byte[] longer = java.util.Arrays.copyOf(join, join.length + 1);
        assertThatThrownBy(() -> GroupCodec.readJoin(ByteBuffer.wrap(longer)))
                .hasMessageContaining("1 bytes after the end");
        assertThatThrownBy(() -> GroupCodec.readPromote(ByteBuffer.wrap(join)))
                .hasMessageContaining("message type 1, expected 2");
        assertThatThrownBy(() -> GroupCodec.readJoin(ByteBuffer.allocate(0))).hasMessageContaining("cut short");
        byte[] huge = {GroupCodec.JOIN, (byte) 0xff, (byte) 0xff};
        assertThatThrownBy(() -> GroupCodec.readJoin(ByteBuffer.wrap(huge))).hasMessageContaining("65535 bytes");
        assertThatThrownBy(() -> GroupCodec.join(new GroupState.Member("x".repeat(1025), "", "", false)))
                .hasMessageContaining("at most 1024");
    }

    /** Random bytes never throw anything but IllegalArgumentException, and never allocate past the input. */
    @Test
    void randomBytesAreRefusedCleanly() {
        Random random = new Random(29);
        for (int i = 0; i < 20_000; i++) {
            byte[] b = new byte[random.nextInt(64)];
            random.nextBytes(b);
            if (b.length > 0) {
                b[0] = (byte) List.of(1, 2, 10, 11).get(random.nextInt(4)).intValue();
            }
            ByteBuffer buf = ByteBuffer.wrap(b);
            try {
                switch (GroupCodec.type(buf)) {
                    case GroupCodec.JOIN -> GroupCodec.readJoin(buf);
                    case GroupCodec.PROMOTE -> GroupCodec.readPromote(buf);
                    case GroupCodec.REPORT -> GroupCodec.readReport(buf);
                    default -> GroupCodec.readAnswer(buf);
                }
            } catch (IllegalArgumentException expected) {
                // refused with a reason
            }
        }
    }
}
