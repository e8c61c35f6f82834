package tandem.journal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static tandem.journal.Fixtures.await;
import static tandem.journal.Fixtures.command;

import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.function.LongConsumer;

import org.bouncycastle.crypto.digests.Blake3Digest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import tandem.api.journal.JournalStatus;
import tandem.api.journal.JournalStoppedException;
import tandem.protocol.journal.SegmentHeader;

/**
 * The chain thread: durability does not wait for it, and every chain value (status, verify, rotation's anchor) is
 * the one BLAKE3 gives over the files, computed here in one pass per segment without the journal's code.
 */
@Timeout(30)
class ChainThreadTest {

    @TempDir
    Path dir;

    /** Holds the chain thread before each batch until the test hands out permits. */
    private final Semaphore hashPermits = new Semaphore(0);
    private final List<Thread> helpers = new ArrayList<>();

    private final LongConsumer gatedHasher = sequence -> {
        try {
            if (!hashPermits.tryAcquire(20, TimeUnit.SECONDS)) {
                throw new IllegalStateException("the test never released batch " + sequence);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    };

    @AfterEach
    void releaseHelpers() throws InterruptedException {
        hashPermits.release(1_000_000);
        for (Thread t : helpers) {
            t.join(10_000);
        }
    }

    @Test
    void durabilityIsPublishedWhileTheChainIsHeldBackAndStatusWaitsForTheChain() throws Exception {
        try (SegmentedJournal j = open(gatedHasher)) {
            byte[] anchor = j.segmentList().get(0).anchor;
            // three batches: the first held in the chain thread, the second queued, the third written while the
            // chain thread holds every spare buffer
            long last = appendThreeBatches(j);
            assertThat(j.durableSequence()).isEqualTo(last);
            assertThat(j.hashedChain().sequence()).isZero();
            assertThat(j.hashedChain().value()).isEqualTo(anchor);

            CompletableFuture<JournalStatus> status = async("status", j::status);
            CompletableFuture<byte[]> chainValue = async("chainValue", j::chainValue);
            CompletableFuture<String> verify = async("verify", j::verify);
            awaitParked(3);
            assertThat(status).isNotDone();
            assertThat(chainValue).isNotDone();
            assertThat(verify).isNotDone();

            hashPermits.release(1_000_000);
            byte[] expected = segmentChain(dir.resolve(Segment.LIVE));
            JournalStatus s = status.get(10, TimeUnit.SECONDS);
            assertThat(s.durableSequence()).isEqualTo(last);
            assertThat(s.chainHex()).isEqualTo(ChainHash.hex(expected));
            assertThat(s.replicationOffset()).isEqualTo(j.replicationOffset());
            assertThat(chainValue.get(10, TimeUnit.SECONDS)).isEqualTo(expected);
            assertThat(verify.get(10, TimeUnit.SECONDS)).isNull();
            assertThat(j.hashedChain().sequence()).isEqualTo(last);
        }
    }

    @Test
    void aRotationWaitsForTheChainAndSealsWithTheExactTail() throws Exception {
        try (SegmentedJournal j = open(gatedHasher)) {
            appendThreeBatches(j);
            CompletableFuture<Void> rotation = async("rotate", () -> {
                j.rotate();
                return null;
            });
            // the rotation is queued behind a journal thread that waits for a spare buffer: nothing may be sealed
            awaitParked(1);
            assertThat(rotation).isNotDone();
            assertThat(j.hashedChain().sequence()).isZero();
            assertThat(j.segmentList()).hasSize(1);
            hashPermits.release(1_000_000);
            rotation.get(10, TimeUnit.SECONDS);

            List<Segment> segs = j.segmentList();
            assertThat(segs).hasSize(2);
            byte[] tail = segmentChain(dir.resolve(Segment.archiveName(1)));
            assertThat(segs.get(0).tailChain).isEqualTo(tail);
            assertThat(anchorOf(dir.resolve(Segment.LIVE))).isEqualTo(tail);
            assertThat(j.chainValue()).isEqualTo(tail); // an empty live segment's value is its anchor
            long last = Fixtures.append(j, 9_000, 0, Fixtures.APP, command("SET", "after", "rotation"));
            awaitDurable(j, last);
            assertThat(j.chainValue()).isEqualTo(segmentChain(dir.resolve(Segment.LIVE)));
            assertThat(j.verify()).isNull();
        }
    }

    @Test
    void rotationsUnderLoadWithASlowChainKeepEveryAnchorExact() throws Exception {
        // a chain thread several times slower than BLAKE3 alone, so that it lags the disk
        Blake3Digest extra = new Blake3Digest();
        byte[] work = new byte[64 * 1024];
        LongConsumer slow = sequence -> {
            for (int i = 0; i < 4; i++) {
                extra.update(work, 0, work.length);
            }
        };
        // batches of at most 50 entries (83 KB): each segment holds at most 64 KiB plus one batch, so the 2.7 MB
        // appended make at least 18 segments whatever the timing
        JournalSettings settings = new JournalSettings(dir, JournalSettings.MIN_SEGMENT_SIZE, WaitStrategy.BLOCKING,
                50, 0, 0, 3);
        int entries = 3_000;
        try (SegmentedJournal j = new SegmentedJournal(settings, Fixtures.MEASURE, FileIo.STANDARD, Clock.systemUTC(),
                slow)) {
            CompletableFuture<Long> appender = async("appender", () -> {
                long seq = 0;
                for (int i = 0; i < entries; i++) {
                    seq = Fixtures.append(j, 1_000 + i, i, Fixtures.APP,
                            command("SET", "u" + i, "z".repeat(100 + i % 1500)));
                }
                return seq;
            });
            int explicit = 0;
            while (!appender.isDone() && explicit < 40) {
                j.rotate(); // besides the rotations by size, at whatever point the appender has reached
                explicit++;
            }
            long last = appender.get(20, TimeUnit.SECONDS);
            j.awaitDurable(last);
            assertThat(explicit).isPositive();
            byte[] chain = j.chainValue();
            JournalStatus status = j.status();
            assertThat(j.verify()).isNull();
            assertThat(Fixtures.readAll(j, 0).entries).hasSize(entries);
            j.close(); // a rotation by size may follow the last batch: compare files once they hold still
            List<Segment> segs = j.segmentList();
            assertThat(segs.size()).isGreaterThan(10);
            assertSegmentsChainLikeTheFiles(segs);
            // the chain at the last sequence: the live segment's, or its anchor when a rotation sealed it
            assertThat(chain).isEqualTo(segmentChain(dir.resolve(Segment.LIVE)));
            assertThat(status.chainHex()).isEqualTo(ChainHash.hex(chain));
            assertThat(status.durableSequence()).isEqualTo(entries);
        }
        try (SegmentedJournal j = Fixtures.open(settings)) { // recovery re-checks every anchor
            assertThat(j.lastSequence()).isEqualTo(entries);
            assertThat(j.verify()).isNull();
        }
        assertThat(Inspection.of(dir, Fixtures.MEASURE).problem()).isNull();
    }

    @Test
    void closeWaitsForTheChainAndLeavesNoThreadBehind() throws Exception {
        SegmentedJournal j = open(gatedHasher);
        long seq = Fixtures.append(j, 1, 0, Fixtures.APP, command("SET", "a", "1"));
        awaitDurable(j, seq);
        CompletableFuture<Void> close = async("close", () -> {
            j.close();
            return null;
        });
        await(() -> !j.threads().get(0).isAlive(), "the journal thread to end");
        assertThat(close).isNotDone(); // the chain thread still holds the batch
        hashPermits.release(1_000_000);
        close.get(10, TimeUnit.SECONDS);
        for (Thread t : j.threads()) {
            assertThat(t.isAlive()).as(t.getName()).isFalse();
        }
        // the chain of a closed journal is complete and exact
        assertThat(j.chainValue()).isEqualTo(segmentChain(dir.resolve(Segment.LIVE)));
        assertThat(j.status().chainHex()).isEqualTo(ChainHash.hex(segmentChain(dir.resolve(Segment.LIVE))));
    }

    @Test
    void aFailStopEndsTheChainThreadToo() throws Exception {
        TestIo io = new TestIo();
        try (SegmentedJournal j = new SegmentedJournal(JournalSettings.defaults(dir), Fixtures.MEASURE, io,
                Clock.systemUTC())) {
            long first = Fixtures.append(j, 1, 0, Fixtures.APP, command("SET", "a", "1"));
            j.awaitDurable(first);
            io.failForce.set(new java.io.IOException("EIO"));
            long second = Fixtures.append(j, 2, 0, Fixtures.APP, command("SET", "a", "2"));
            assertThatThrownBy(() -> j.awaitDurable(second)).isInstanceOf(JournalStoppedException.class);
            for (Thread t : j.threads()) {
                t.join(10_000);
                assertThat(t.isAlive()).as(t.getName()).isFalse();
            }
            JournalStatus s = j.status(); // does not wait for a chain thread that is gone
            assertThat(s.durableSequence()).isEqualTo(first);
            assertThat(s.chainHex()).isEqualTo(ChainHash.hex(segmentChain(dir.resolve(Segment.LIVE), first)));
        }
    }

    @Test
    void aFailedChainThreadStopsTheJournalAtItsNextWrite() throws Exception {
        LongConsumer failing = sequence -> {
            if (sequence >= 2) {
                throw new IllegalStateException("hasher broke");
            }
        };
        try (SegmentedJournal j = open(failing)) {
            j.awaitDurable(Fixtures.append(j, 1, 0, Fixtures.APP, command("SET", "a", "1")));
            // durable; its hashing fails
            j.awaitDurable(Fixtures.append(j, 2, 0, Fixtures.APP, command("SET", "a", "2")));
            await(() -> !j.threads().get(1).isAlive(), "the chain thread to fail");
            long third = Fixtures.append(j, 3, 0, Fixtures.APP, command("SET", "a", "3"));
            await(() -> j.status().stoppedReason() != null, "the journal to stop");
            assertThat(j.status().stoppedReason()).contains("chain thread");
            assertThatThrownBy(() -> Fixtures.append(j, 4, 0, Fixtures.APP, command("SET", "a", "4")))
                    .isInstanceOf(JournalStoppedException.class);
            assertThatThrownBy(j::rotate).isInstanceOf(JournalStoppedException.class);
            assertThat(j.durableSequence()).isBetween(2L, third);
            await(() -> !j.threads().get(0).isAlive(), "the journal thread to end");
        }
    }

    // ------------------------------------------------------------------------------------------------ helpers

    /**
     * One fragmenting command per batch: its entries are encoded under one hold of the append lock, so each is
     * exactly one batch, and more appends than batches can never pile up behind a journal thread the chain holds.
     */
    private long appendThreeBatches(SegmentedJournal j) throws Exception {
        long last = 0;
        for (int b = 0; b < 3; b++) {
            last = Fixtures.append(j, 100 + b, b, Fixtures.APP, Fixtures.bigCommand(150_000, (byte) b));
            awaitDurable(j, last);
        }
        assertThat(last).isGreaterThan(3);
        return last;
    }

    private SegmentedJournal open(LongConsumer beforeHash) {
        return new SegmentedJournal(JournalSettings.defaults(dir), Fixtures.MEASURE, FileIo.STANDARD, Clock.systemUTC(),
                beforeHash);
    }

    /** awaitDurable with a deadline: a durability that waited for the gated chain would hang here. */
    private void awaitDurable(SegmentedJournal j, long sequence) throws Exception {
        async("awaitDurable", () -> {
            j.awaitDurable(sequence);
            return null;
        }).get(10, TimeUnit.SECONDS);
    }

    private <T> CompletableFuture<T> async(String name, Callable<T> task) {
        CompletableFuture<T> f = new CompletableFuture<>();
        Thread t = new Thread(() -> {
            try {
                f.complete(task.call());
            } catch (Throwable e) {
                f.completeExceptionally(e);
            }
        }, "test-" + name);
        t.setDaemon(true);
        helpers.add(t);
        t.start();
        return f;
    }

    /** Waits until {@code n} helper threads are parked (waiting for the chain), not merely not yet scheduled. */
    private void awaitParked(int n) {
        await(() -> helpers.stream().filter(t -> t.getState() == Thread.State.WAITING).count() >= n,
                n + " callers to wait for the chain");
    }

    /** Checks every anchor against BLAKE3 over its predecessor's file, and the archives' recorded tails. */
    static void assertSegmentsChainLikeTheFiles(List<Segment> segs) throws Exception {
        for (int i = 1; i < segs.size(); i++) {
            byte[] tail = segmentChain(segs.get(i - 1).path);
            assertThat(segs.get(i - 1).tailChain).as(segs.get(i - 1).name()).isEqualTo(tail);
            assertThat(anchorOf(segs.get(i).path)).as(segs.get(i).name()).isEqualTo(tail);
            assertThat(segs.get(i).anchor).isEqualTo(tail);
        }
    }

    /** BLAKE3(entry bytes from 4096 to the last valid entry || anchor), or the anchor when there is none. */
    static byte[] segmentChain(Path file) throws Exception {
        return segmentChain(file, Long.MAX_VALUE);
    }

    /** The same through the entry at {@code lastSequence}. */
    static byte[] segmentChain(Path file, long lastSequence) throws Exception {
        byte[] bytes = Files.readAllBytes(file);
        byte[] anchor = anchorOf(file);
        int end = SegmentHeader.SIZE;
        for (long[] b : Fixtures.entryBounds(file)) {
            if (b[0] <= lastSequence) {
                end = (int) b[2];
            }
        }
        if (end == SegmentHeader.SIZE) {
            return anchor;
        }
        Blake3Digest d = new Blake3Digest();
        d.update(bytes, SegmentHeader.SIZE, end - SegmentHeader.SIZE);
        d.update(anchor, 0, anchor.length);
        byte[] out = new byte[32];
        d.doFinal(out, 0);
        return out;
    }

    static byte[] anchorOf(Path file) throws Exception {
        ByteBuffer b = ByteBuffer.wrap(Files.readAllBytes(file));
        return new SegmentHeader().wrap(b, 0).anchor();
    }
}
