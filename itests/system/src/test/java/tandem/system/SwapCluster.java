package tandem.system;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.util.regex.Pattern;

/**
 * What the swap tests swap bundles under: a primary under {@code disk+ram} with a journal-protocol replica and a psync
 * replica, so that either protocol keeps acknowledging while the other is swapped, each a real process with its own
 * home.
 */
final class SwapCluster implements AutoCloseable {

    final TandemNode primary;
    final TandemNode journalReplica;
    final TandemNode psyncReplica;
    private final JournalCluster journal;

    private SwapCluster(JournalCluster journal, TandemNode journalReplica, TandemNode psyncReplica) {
        this.journal = journal;
        this.primary = journal.primary;
        this.journalReplica = journalReplica;
        this.psyncReplica = psyncReplica;
    }

    /** Starts the three nodes and waits until both replicas stream. */
    static SwapCluster start(String name) throws IOException {
        JournalCluster journal = JournalCluster.start(name, "disk+ram");
        TandemNode psync = null;
        try {
            TandemNode journalReplica = journal.addReplica(true);
            psync = TandemNode.start(name + "-psync", "--replication-port", Integer.toString(TandemNode.freePort()),
                    "--config", "tandem.psync:reconnect.max.ms=300");
            TandemNode.Result r = psync.redisCli("REPLICAOF", "127.0.0.1", Integer.toString(journal.primary.port()));
            assertThat(r.out().trim()).as(r.err()).isEqualTo("OK");
            SwapCluster cluster = new SwapCluster(journal, journalReplica, psync);
            cluster.awaitBothStreaming();
            return cluster;
        } catch (IOException | RuntimeException | AssertionError e) {
            if (psync != null) {
                psync.close();
            }
            journal.close();
            throw e;
        }
    }

    void awaitBothStreaming() {
        JournalCluster.awaitStreaming(journalReplica);
        JournalCluster.awaitStreaming(psyncReplica);
    }

    /** How many snapshots (journal protocol) and full syncs (psync) the primary has sent so far. */
    record Resyncs(int snapshots, int fullSyncs) {
    }

    Resyncs resyncs() {
        String log = primary.log();
        return new Resyncs(count(log, "sending a snapshot at sequence"), count(log, "full sync sent"));
    }

    /** The replicas resumed from their position since {@code before}: no snapshot, no full sync ({@code +CONTINUE}). */
    void assertResumedSince(Resyncs before) {
        Resyncs now = resyncs();
        assertThat(now.snapshots()).as("no snapshot: resumed from position").isEqualTo(before.snapshots());
        assertThat(now.fullSyncs()).as("no full sync: +CONTINUE").isEqualTo(before.fullSyncs());
    }

    /** Both replicas hold the primary's keyspace (equal {@code store:digest}); the primary takes no more writes. */
    void awaitReplicasAtPrimaryDigest() throws IOException {
        JournalCluster.awaitDigestOf(primary, journalReplica, psyncReplica);
    }

    /** Every acknowledged write of {@code writer} is on the primary and both replicas. */
    void assertAcknowledgedEverywhere(Writer writer) {
        writer.assertAcknowledgedOn(primary);
        writer.assertAcknowledgedOn(journalReplica);
        writer.assertAcknowledgedOn(psyncReplica);
    }

    private static int count(String log, String text) {
        return log.split(Pattern.quote(text), -1).length - 1;
    }

    @Override
    public void close() {
        psyncReplica.close();
        journal.close();
    }
}
