package tandem.replication;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import tandem.protocol.replication.Frames;
import tandem.protocol.replication.InputBatch;

@Timeout(30)
class SlotFramerTest {

    /** A slot as InputBatch.writeSlot lays it out. */
    private static byte[] slot(long seq, Random random, int payload) {
        byte[] p = new byte[payload];
        random.nextBytes(p);
        ByteBuffer b = ByteBuffer.allocate(InputBatch.slotLength(payload)).order(ByteOrder.LITTLE_ENDIAN);
        InputBatch.writeSlot(b, seq, 1000 + seq, random.nextLong(), seq * 3, (byte) 0x80, ByteBuffer.wrap(p));
        return b.array();
    }

    private record Frame(int length, int count, List<Nodes.Slot> slots) {
    }

    private static List<Frame> parse(ByteBuffer frames) {
        List<Frame> out = new ArrayList<>();
        ByteBuffer b = frames.duplicate().order(ByteOrder.LITTLE_ENDIAN);
        InputBatch.Cursor c = new InputBatch.Cursor();
        while (b.hasRemaining()) {
            int len = b.getInt();
            ByteBuffer payload = b.slice(b.position(), len).order(ByteOrder.LITTLE_ENDIAN);
            b.position(b.position() + len);
            c.wrap(payload);
            List<Nodes.Slot> slots = new ArrayList<>();
            while (c.next()) {
                byte[] s = new byte[c.slotLength()];
                payload.get(c.slotOffset(), s);
                slots.add(new Nodes.Slot(c.sequence(), s));
            }
            out.add(new Frame(len, c.count(), slots));
        }
        return out;
    }

    @Test
    void framesStayWithinTheLimitAndCarryTheSameSlots() {
        Random random = new Random(3);
        int max = 4096;
        SlotFramer framer = new SlotFramer(max);
        assertThat(framer.isEmpty()).isTrue();
        List<Nodes.Slot> in = new ArrayList<>();
        for (long seq = 1; seq <= 500; seq++) {
            byte[] s = slot(seq, random, random.nextInt(1500));
            in.add(new Nodes.Slot(seq, s));
            ByteBuffer view = ByteBuffer.allocate(s.length + 20).position(7);
            view.put(s).flip().position(7);
            framer.add(seq, view);
            assertThat(view.position()).isEqualTo(7); // not consumed
        }
        assertThat(framer.first()).isEqualTo(1);
        assertThat(framer.last()).isEqualTo(500);
        List<Frame> frames = parse(framer.finish());
        assertThat(frames.size()).isGreaterThan(10);
        List<Nodes.Slot> out = new ArrayList<>();
        for (Frame f : frames) {
            assertThat(f.length()).isLessThanOrEqualTo(max);
            assertThat(f.count()).isEqualTo(f.slots().size()).isPositive();
            out.addAll(f.slots());
        }
        assertThat(out).containsExactlyElementsOf(in);

        framer.reset();
        assertThat(framer.isEmpty()).isTrue();
        assertThat(framer.finish().remaining()).isZero();
        framer.add(501, ByteBuffer.wrap(slot(501, random, 10)));
        assertThat(framer.first()).isEqualTo(501);
        assertThat(parse(framer.finish())).hasSize(1);
    }

    @Test
    void aFrameNeverDeclaresMoreThan65535Slots() {
        Random random = new Random(4);
        SlotFramer framer = new SlotFramer(64 * 1024 * 1024);
        byte[] template = slot(1, random, 0);
        int n = InputBatch.MAX_COUNT * 2 + 10;
        for (long seq = 1; seq <= n; seq++) {
            ByteBuffer.wrap(template).order(ByteOrder.LITTLE_ENDIAN).putLong(InputBatch.SLOT_SEQUENCE_OFFSET, seq);
            framer.add(seq, ByteBuffer.wrap(template));
        }
        List<Frame> frames = parse(framer.finish());
        assertThat(frames).extracting(Frame::count).containsExactly(InputBatch.MAX_COUNT, InputBatch.MAX_COUNT, 10);
        long expected = 1;
        for (Frame f : frames) {
            assertThat(f.length()).isEqualTo(InputBatch.LENGTH + f.count() * template.length);
            for (Nodes.Slot s : f.slots()) {
                assertThat(s.sequence()).isEqualTo(expected++);
                assertThat(Arrays.copyOfRange(s.bytes(), 10, s.bytes().length))
                        .isEqualTo(Arrays.copyOfRange(template, 10, template.length));
            }
        }
        assertThat(Frames.TAG_INPUT_BATCH).isEqualTo((byte) 0x21);
    }
}
