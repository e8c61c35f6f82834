package tandem.journal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static tandem.journal.Fixtures.await;
import static tandem.journal.Fixtures.command;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import tandem.api.journal.JournalStoppedException;

/** Group commit, fail-stop and the wait strategies, through file I/O that counts, holds and fails syncs. */
@Timeout(30)
class DurabilityTest {

    @TempDir
    Path dir;

    private final TestIo io = new TestIo();

    private SegmentedJournal open(WaitStrategy strategy) {
        return new SegmentedJournal(JournalSettings.defaults(dir).withWaitStrategy(strategy), Fixtures.MEASURE, io,
                Clock.systemUTC());
    }

    @Test
    void appendsMadeDuringASyncShareTheNextWriteAndSync() throws Exception {
        try (SegmentedJournal j = open(WaitStrategy.BLOCKING)) {
            int forcesBefore = io.forces.get();
            int writesBefore = io.writes.get();
            io.gated = true;
            Fixtures.append(j, 1, 0, Fixtures.APP, command("SET", "k", "0"));
            await(() -> io.atGate.get() == 1, "the journal thread to sync the first batch");
            for (int i = 1; i < 1000; i++) {
                Fixtures.append(j, 1 + i, 0, Fixtures.APP, command("SET", "k", Integer.toString(i)));
            }
            io.gated = false;
            io.gate.release(10);
            j.awaitDurable(1000);
            assertThat(io.forces.get() - forcesBefore).isEqualTo(2);
            assertThat(io.writes.get() - writesBefore).isEqualTo(2);
            assertThat(Fixtures.readAll(j, 0).entries).hasSize(1000);
        }
    }

    @Test
    void aFailedWriteStopsTheJournalAndNothingAfterItBecomesDurable() throws Exception {
        long durable;
        try (SegmentedJournal j = open(WaitStrategy.BLOCKING)) {
            long seq = 0;
            for (int i = 0; i < 5; i++) {
                seq = Fixtures.append(j, 10 + i, 0, Fixtures.APP, command("SET", "a", "" + i));
            }
            j.awaitDurable(seq);
            durable = j.durableSequence();
            io.failWrite.set(new IOException("No space left on device"));
            long lost = Fixtures.append(j, 100, 0, Fixtures.APP, command("SET", "b", "1"));
            assertThatThrownBy(() -> j.awaitDurable(lost)).isInstanceOf(JournalStoppedException.class)
                    .hasMessageContaining("No space left on device");
            assertThat(j.durableSequence()).isEqualTo(durable).isEqualTo(5);
            assertThat(j.status().stoppedReason()).contains("No space left on device");
            assertThatThrownBy(() -> Fixtures.append(j, 101, 0, Fixtures.APP, command("SET", "c", "1")))
                    .isInstanceOf(JournalStoppedException.class);
            assertThatThrownBy(j::rotate).isInstanceOf(JournalStoppedException.class);
            assertThat(j.durableSequence()).isEqualTo(5);
        }
        try (SegmentedJournal j = Fixtures.open(JournalSettings.defaults(dir))) {
            assertThat(j.lastSequence()).isEqualTo(durable);
            assertThat(j.verify()).isNull();
        }
    }

    @Test
    void aFailedSyncFreezesTheDurableSequence() throws Exception {
        try (SegmentedJournal j = open(WaitStrategy.BLOCKING)) {
            long first = Fixtures.append(j, 1, 0, Fixtures.APP, command("SET", "a", "1"));
            j.awaitDurable(first);
            io.failForce.set(new IOException("EIO"));
            long second = Fixtures.append(j, 2, 0, Fixtures.APP, command("SET", "a", "2"));
            assertThatThrownBy(() -> j.awaitDurable(second)).isInstanceOf(JournalStoppedException.class)
                    .hasMessageContaining("EIO").hasMessageContaining("durable sequence 1");
            assertThat(j.durableSequence()).isEqualTo(first);
            assertThatThrownBy(() -> Fixtures.append(j, 3, 0, Fixtures.APP, command("SET", "a", "3")))
                    .isInstanceOf(JournalStoppedException.class);
            j.awaitDurable(first); // what was durable stays durable
        }
    }

    @ParameterizedTest
    @EnumSource(WaitStrategy.class)
    void aWaiterIsReleasedByDurability(WaitStrategy strategy) throws Exception {
        try (SegmentedJournal j = open(strategy)) {
            CompletableFuture<Void> waiter = waiterHeldAtTheSync(j);
            assertThat(waiter).isNotDone();
            io.gated = false;
            io.gate.release();
            waiter.get(10, TimeUnit.SECONDS);
            assertThat(j.durableSequence()).isEqualTo(1);
        }
    }

    @ParameterizedTest
    @EnumSource(WaitStrategy.class)
    void aWaiterIsReleasedByAStop(WaitStrategy strategy) throws Exception {
        try (SegmentedJournal j = open(strategy)) {
            CompletableFuture<Void> waiter = waiterHeldAtTheSync(j);
            io.failForce.set(new IOException("device gone"));
            io.gated = false;
            io.gate.release();
            assertThatThrownBy(() -> waiter.get(10, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
                    .hasCauseInstanceOf(JournalStoppedException.class).hasMessageContaining("device gone");
        }
    }

    @ParameterizedTest
    @EnumSource(WaitStrategy.class)
    void aWaiterIsReleasedByClose(WaitStrategy strategy) throws Exception {
        SegmentedJournal j = open(strategy);
        long seq = Fixtures.append(j, 1, 0, Fixtures.APP, command("SET", "a", "1"));
        CompletableFuture<Void> waiter = waitFor(j, seq + 1); // never appended
        j.close();
        assertThatThrownBy(() -> waiter.get(10, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
                .hasCauseInstanceOf(JournalStoppedException.class).hasMessageContaining("closed");
        assertThat(j.durableSequence()).isEqualTo(seq);
        assertThatThrownBy(() -> Fixtures.append(j, 2, 0, Fixtures.APP, command("PING")))
                .isInstanceOf(JournalStoppedException.class);
    }

    @Test
    void theWaitStrategyChangesLive() throws Exception {
        try (SegmentedJournal j = open(WaitStrategy.BLOCKING)) {
            j.reconfigure(j.settings().withWaitStrategy(WaitStrategy.SPIN_YIELD));
            long seq = Fixtures.append(j, 1, 0, Fixtures.APP, command("SET", "a", "1"));
            j.awaitDurable(seq);
            assertThat(j.settings().waitStrategy()).isEqualTo(WaitStrategy.SPIN_YIELD);
        }
    }

    /** Appends sequence 1, whose sync the gate holds, and a waiter for it, once the sync has begun. */
    private CompletableFuture<Void> waiterHeldAtTheSync(SegmentedJournal j) {
        io.gated = true;
        long seq = Fixtures.append(j, 1, 0, Fixtures.APP, command("SET", "a", "1"));
        CompletableFuture<Void> waiter = waitFor(j, seq);
        await(() -> io.atGate.get() == 1, "the sync to start");
        return waiter;
    }

    private static CompletableFuture<Void> waitFor(SegmentedJournal j, long seq) {
        CompletableFuture<Void> f = new CompletableFuture<>();
        Thread t = new Thread(() -> {
            try {
                j.awaitDurable(seq);
                f.complete(null);
            } catch (Throwable e) {
                f.completeExceptionally(e);
            }
        }, "waiter");
        t.setDaemon(true);
        t.start();
        return f;
    }
}
