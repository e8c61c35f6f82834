package tandem.replication;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(20)
class OutboxTest {

    private static ByteBuffer bytes(int n, int fill) {
        byte[] b = new byte[n];
        java.util.Arrays.fill(b, (byte) fill);
        return ByteBuffer.wrap(b);
    }

    @Test
    void chunksComeOutInOrderAsCopies() throws Exception {
        Outbox o = new Outbox(1000);
        ByteBuffer a = bytes(10, 1);
        assertThat(o.offer(Outbox.Kind.BATCH, a, 1, 3)).isTrue();
        a.put(0, (byte) 9); // the caller reuses its buffer
        assertThat(a.position()).isZero();
        assertThat(o.offer(Outbox.Kind.ROTATE, bytes(5, 2), 3, 3)).isTrue();
        assertThat(o.bytes()).isEqualTo(15);
        Outbox.Chunk c = o.poll(0);
        assertThat(c.kind).isEqualTo(Outbox.Kind.BATCH);
        assertThat(c.first).isEqualTo(1);
        assertThat(c.last).isEqualTo(3);
        assertThat(c.frames()).isEqualTo(bytes(10, 1));
        o.release(c);
        assertThat(o.bytes()).isEqualTo(5);
        Outbox.Chunk d = o.poll(0);
        assertThat(d.kind).isEqualTo(Outbox.Kind.ROTATE);
        o.release(d);
        assertThat(o.poll(TimeUnit.MILLISECONDS.toNanos(1))).isNull();
        assertThat(o.bytes()).isZero();
    }

    @Test
    void overflowingTheBoundRefusesFromThenOn() throws Exception {
        Outbox o = new Outbox(100);
        assertThat(o.offer(Outbox.Kind.BATCH, bytes(60, 1), 1, 1)).isTrue();
        assertThat(o.offer(Outbox.Kind.BATCH, bytes(40, 2), 2, 2)).isTrue(); // exactly the bound
        assertThat(o.overflowed()).isFalse();
        assertThat(o.offer(Outbox.Kind.BATCH, bytes(1, 3), 3, 3)).isFalse();
        assertThat(o.overflowed()).isTrue();
        assertThat(o.poll(0)).isNull(); // the sender evicts instead of reading on
        assertThat(o.poll(TimeUnit.SECONDS.toNanos(10))).isNull(); // and does not wait for it
        assertThat(o.offer(Outbox.Kind.BATCH, bytes(1, 4), 4, 4)).isFalse();
    }

    @Test
    void releasedChunksAreReused() throws Exception {
        Outbox o = new Outbox(1 << 20);
        o.offer(Outbox.Kind.BATCH, bytes(100, 1), 1, 1);
        Outbox.Chunk c = o.poll(0);
        o.release(c);
        o.offer(Outbox.Kind.CHAIN_CHECK, bytes(8000, 2), 2, 2); // larger than the chunk's array: it grows
        Outbox.Chunk again = o.poll(0);
        assertThat(again).isSameAs(c);
        assertThat(again.kind).isEqualTo(Outbox.Kind.CHAIN_CHECK);
        assertThat(again.frames()).isEqualTo(bytes(8000, 2));
        o.release(again);
        assertThat(o.bytes()).isZero();
    }

    @Test
    void closingWakesAWaitingSender() throws Exception {
        Outbox o = new Outbox(100);
        Thread t = new Thread(() -> {
            Peer.await(() -> true, "nothing");
            o.close();
        });
        t.start();
        assertThat(o.poll(TimeUnit.SECONDS.toNanos(30))).isNull();
        t.join();
        assertThat(o.offer(Outbox.Kind.BATCH, bytes(1, 1), 1, 1)).isFalse();
    }

    @Test
    void awaitNonEmptySeesAnOffer() throws Exception {
        Outbox o = new Outbox(100);
        assertThat(o.awaitNonEmpty(1, TimeUnit.MILLISECONDS)).isFalse();
        o.offer(Outbox.Kind.BATCH, bytes(1, 1), 1, 1);
        assertThat(o.awaitNonEmpty(1, TimeUnit.MILLISECONDS)).isTrue();
    }
}
