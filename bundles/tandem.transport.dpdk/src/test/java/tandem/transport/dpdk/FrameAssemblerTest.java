package tandem.transport.dpdk;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Cutting the stream back into frames: fed byte by byte, in one piece, and with lengths the link refuses. */
@Timeout(10)
class FrameAssemblerTest {

    private final List<byte[]> frames = new ArrayList<>();
    private final List<Integer> positions = new ArrayList<>();

    private FrameAssembler assembler(int maxFrame) {
        return new FrameAssembler(maxFrame, p -> {
            assertThat(p.order()).isEqualTo(ByteOrder.LITTLE_ENDIAN);
            positions.add(p.position());
            byte[] b = new byte[p.remaining()];
            p.duplicate().get(b);
            frames.add(b);
        });
    }

    private static ByteBuffer stream(byte[]... payloads) {
        int n = 0;
        for (byte[] p : payloads) {
            n += 4 + p.length;
        }
        ByteBuffer b = ByteBuffer.allocate(n).order(ByteOrder.LITTLE_ENDIAN);
        for (byte[] p : payloads) {
            b.putInt(p.length).put(p);
        }
        return b.flip();
    }

    @Test
    void byteByByteAndWholeGiveTheSameFrames() {
        byte[] a = {1, 2, 3};
        byte[] b = new byte[700];
        b[699] = 9;
        ByteBuffer s = stream(a, b, new byte[] {4});
        FrameAssembler one = assembler(1000);
        for (int i = 0; i < s.limit(); i++) {
            one.accept(s, i, 1, () -> false);
        }
        assertThat(frames).containsExactly(a, b, new byte[] {4});
        frames.clear();
        assembler(1000).accept(s, 0, s.limit(), () -> false);
        assertThat(frames).containsExactly(a, b, new byte[] {4});
        // whole inside the segment: a view at the payload, not a copy
        assertThat(positions.subList(positions.size() - 3, positions.size())).containsExactly(4, 11, 715);
    }

    @Test
    void aLengthOverTheLimitIsRefusedBeforeAnythingIsKept() {
        ByteBuffer s = ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt(0x7FFF_FFFF).flip();
        assertThatThrownBy(() -> assembler(1000).accept(s, 0, 4, () -> false))
                .isInstanceOf(FrameAssembler.BadLength.class)
                .hasMessage("frame length 2147483647 exceeds the limit of 1000 bytes");
        ByteBuffer unsigned = ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt(-1).flip();
        FrameAssembler split = assembler(1000);
        split.accept(unsigned, 0, 2, () -> false);
        assertThatThrownBy(() -> split.accept(unsigned, 2, 2, () -> false))
                .hasMessage("frame length 4294967295 exceeds the limit of 1000 bytes");
    }

    @Test
    void aLengthOfZeroIsRefused() {
        assertThatThrownBy(() -> assembler(1000).accept(ByteBuffer.allocate(4), 0, 4, () -> false))
                .isInstanceOf(FrameAssembler.BadLength.class).hasMessage("empty frame (declared length 0)");
    }

    @Test
    void nothingIsDeliveredOnceTheSessionStopped() {
        ByteBuffer s = stream(new byte[] {1}, new byte[] {2});
        assembler(1000).accept(s, 0, s.limit(), () -> !frames.isEmpty());
        assertThat(frames).hasSize(1);
    }
}
