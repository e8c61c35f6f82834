package tandem.failover;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import tandem.api.failover.FailoverStatus.Failover;
import tandem.failover.GroupCodec.Report;
import tandem.failover.Liveness.Seen;

/** Each refusal rule of the leader's decision, on the clock the test gives it. */
@Timeout(30)
class DetectorTest {

    private static final long MS = 1_000_000L;
    private static final String PEERS = "n1@127.0.0.1:1,n2@127.0.0.1:2,n3@127.0.0.1:3";

    private final FailoverSettings settings = settings(false);
    private final GroupState group = GroupState.EMPTY
            .join(new GroupState.Member("n1", "r1", "p1", false))
            .join(new GroupState.Member("n2", "r2", "p2", false))
            .join(new GroupState.Member("n3", "r3", "p3", false))
            .promote(new Failover("", "n1", 1, 0, 0, "first"));
    private final Map<String, Seen> seen = new LinkedHashMap<>();

    private static FailoverSettings settings(boolean lossy) {
        return FailoverSettings.of(GroupPeerTest.config("n1", PEERS, "/tmp/x", lossy, 1000, 600), Path.of("/tmp"));
    }

    /** Records a report as the leader's {@link Liveness} does, keeping when the member last said it is a primary. */
    private void heard(String id, String role, long tip, String policy, long atMs) {
        heard(id, role, 1, tip, policy, atMs);
    }

    private void heard(String id, String role, long journalEpoch, long tip, String policy, long atMs) {
        Liveness table = new Liveness();
        Seen before = seen.get(id);
        if (before != null) {
            table.heard(before.report(), before.primaryAtNanos() == Long.MIN_VALUE ? before.atNanos()
                    : before.primaryAtNanos());
        }
        table.heard(new Report(id, role, "r" + id.charAt(1), "p" + id.charAt(1), journalEpoch, tip, policy, false),
                atMs * MS);
        seen.put(id, table.get(id));
    }

    private Detector.Decision decide(long nowMs, FailoverSettings s) {
        return Detector.decide(group, seen, nowMs * MS, 0, 0, s, 42);
    }

    private static Failover promotion(Detector.Decision d) {
        assertThat(d.entries()).hasSize(1);
        return GroupCodec.readPromote(ByteBuffer.wrap(d.entries().get(0)));
    }

    @Test
    void aLivePrimaryIsKept() {
        heard("n1", "primary", 10, "disk+ram", 9_500);
        heard("n2", "replica", 10, "disk+ram", 9_900);
        assertThat(decide(10_000, settings)).isEqualTo(new Detector.Decision(List.of(), null));
    }

    @Test
    void theReplicaWithTheMostHistoryIsPromotedOnceThePrimaryIsSilent() {
        heard("n1", "primary", 10, "disk+ram", 8_000);
        heard("n2", "replica", 9, "disk+ram", 9_900);
        heard("n3", "replica", 11, "disk+ram", 9_950);
        Failover f = promotion(decide(10_000, settings));
        assertThat(f.to()).isEqualTo("n3");
        assertThat(f.from()).isEqualTo("n1");
        assertThat(f.epoch()).isEqualTo(2);
        assertThat(f.downMillis()).isEqualTo(2_000);
    }

    @Test
    void aMemberThatFollowsByPsyncIsNoCandidateWhateverItsTip() {
        heard("n1", "primary", 10, "disk+ram", 8_000);
        heard("n2", "replica", 9, "disk+ram", 9_900);
        heard("n3", LocalNode.PSYNC_REPLICA, 500, "disk+ram", 9_950); // its own lineage's sequences
        assertThat(promotion(decide(10_000, settings)).to()).isEqualTo("n2");
        seen.remove("n2");
        assertThat(decide(10_000, settings).entries()).isEmpty();
    }

    /**
     * n3, a former primary, came back with a divergent tail longer than what n1 (named after it) acknowledged and
     * n2 holds; n1 is lost before n3 resynced. n2, of n1's epoch, is promoted.
     */
    @Test
    void aReplicaOfTheNewerEpochIsPreferredToALongerTailOfAnOlderOne() {
        heard("n1", "primary", 3, 40, "disk+ram", 8_000);
        heard("n2", "replica", 3, 40, "disk+ram", 9_900);
        heard("n3", "replica", 2, 90, "disk+ram", 9_950);
        Failover f = promotion(decide(10_000, settings));
        assertThat(f.to()).isEqualTo("n2");
        assertThat(f.reason()).endsWith("n2 holds the most history (journal epoch 3, tip 40)");
        heard("n3", "replica", 3, 41, "disk+ram", 9_960); // resynced, and ahead
        assertThat(promotion(decide(10_000, settings)).to()).isEqualTo("n3");
    }

    @Test
    void tiesGoToThePeersOrder() {
        heard("n1", "primary", 10, "disk+ram", 8_000);
        heard("n3", "replica", 11, "two-disks", 9_950);
        heard("n2", "replica", 11, "two-disks", 9_900);
        assertThat(promotion(decide(10_000, settings)).to()).isEqualTo("n2");
    }

    @Test
    void aNewLeaderWaitsTheWholeDetectionTimeFromItsElection() {
        heard("n2", "replica", 11, "disk+ram", 9_950);
        Detector.Decision d = Detector.decide(group, seen, 10_000 * MS, 9_500 * MS, 0, settings, 42);
        assertThat(d.entries()).isEmpty();
        assertThat(d.refusal()).isNull();
        heard("n2", "replica", 11, "disk+ram", 10_550); // after 9,500 + the 600 ms lease
        assertThat(promotion(Detector.decide(group, seen, 10_600 * MS, 9_500 * MS, 0, settings, 42)).to())
                .isEqualTo("n2");
    }

    @Test
    void onlyReplicasHeardAfterTheLeaseLapsedAreCandidates() {
        heard("n1", "primary", 10, "disk+ram", 8_000);
        heard("n2", "replica", 9, "disk+ram", 8_500); // before 8,000 + 600: its tip may miss acknowledged writes
        Detector.Decision d = decide(9_100, settings);
        assertThat(d.entries()).isEmpty();
        assertThat(d.refusal()).contains("no replica has reported since its lease lapsed");
    }

    @Test
    void aSilentReplicaIsNoCandidate() {
        heard("n1", "primary", 10, "disk+ram", 8_000);
        heard("n2", "replica", 20, "disk+ram", 8_700);
        heard("n3", "replica", 9, "disk+ram", 9_900);
        // n2 was last heard 1,300 ms ago: down; n3 is the live one
        assertThat(promotion(decide(10_000, settings)).to()).isEqualTo("n3");
    }

    @Test
    void underTheDiskPolicyNoneIsPromotedUnlessLossyIsSet() {
        heard("n1", "primary", 10, "disk", 8_000);
        heard("n2", "replica", 10, "disk", 9_900);
        Detector.Decision d = decide(10_000, settings);
        assertThat(d.entries()).isEmpty();
        assertThat(d.refusal()).contains("under the disk ack policy").contains("tandem.failover:lossy=true");
        assertThat(promotion(decide(10_000, settings(true))).to()).isEqualTo("n2");
        heard("n2", "replica", 10, "", 9_900);
        assertThat(decide(10_000, settings).refusal()).contains("(unknown to n2)");
    }

    @Test
    void aLeavingPrimaryIsGivenItsGrace() {
        seen.put("n1", new Seen(new Report("n1", "primary", "r1", "p1", 1, 10, "disk+ram", true), 8_000 * MS));
        heard("n2", "replica", 10, "disk+ram", 9_900);
        assertThat(decide(10_000, settings).entries()).isEmpty();
        assertThat(decide(18_500, settings).entries()).isEmpty(); // 8,000 + 10,000 grace
        heard("n2", "replica", 10, "disk+ram", 19_900);
        assertThat(promotion(decide(20_000, settings)).to()).isEqualTo("n2");
    }

    @Test
    void aReplicaThatNeverStreamedDoesNotBlockTheOneThatDid() {
        heard("n1", "primary", 10, "disk+ram", 8_000);
        heard("n2", "replica", 0, "", 9_900); // never reached the primary: no policy, no history
        heard("n3", "replica", 10, "disk+ram", 9_950);
        assertThat(promotion(decide(10_000, settings)).to()).isEqualTo("n3");
    }

    @Test
    void automaticOffOnlyReports() {
        FailoverConfig off = new FailoverConfigOff(GroupPeerTest.config("n1", PEERS, "/tmp/x", false, 1000, 600));
        heard("n1", "primary", 10, "disk+ram", 8_000);
        heard("n2", "replica", 10, "disk+ram", 9_900);
        Detector.Decision d = decide(10_000, FailoverSettings.of(off, Path.of("/tmp")));
        assertThat(d.entries()).isEmpty();
        assertThat(d.refusal()).contains("automatic failover is off");
    }

    @Test
    void theFirstPrimaryIsTheNodeThatStartedAsOneAndMembersAreRecorded() {
        heard("n2", "replica", 0, "", 9_900);
        heard("n1", "primary", 3, "disk+ram", 9_950);
        Detector.Decision d = Detector.decide(GroupState.EMPTY, seen, 10_000 * MS, 0, 0, settings, 42);
        assertThat(d.entries()).hasSize(3);
        GroupState after = GroupState.EMPTY;
        for (byte[] e : d.entries()) {
            after = GroupMachine.apply(after, ByteBuffer.wrap(e));
        }
        assertThat(after.primary()).isEqualTo("n1");
        assertThat(after.epoch()).isEqualTo(1);
        assertThat(after.members()).containsKeys("n1", "n2");
        // a stale promotion (not for the next epoch) changes nothing
        byte[] stale = GroupCodec.promote(new Failover("n1", "n2", 1, 0, 0, "stale"));
        assertThat(GroupMachine.apply(after, ByteBuffer.wrap(stale))).isSameAs(after);
    }

    @Test
    void aNamedPrimaryThatDoesNotBecomeOneIsReplacedLikeASilentOne() {
        heard("n1", "primary", 10, "disk+ram", 8_000);
        heard("n1", "replica", 10, "disk+ram", 9_950); // alive, but it never promoted itself (or fell back)
        heard("n2", "replica", 10, "disk+ram", 9_900);
        Failover f = promotion(decide(10_000, settings));
        assertThat(f.to()).isEqualTo("n2");
        assertThat(f.reason()).contains("silent (or not a primary) for 2000 ms");
        // a newly named primary has the detection time, from when the leader applied its epoch, to become one
        seen.clear();
        heard("n1", "replica", 10, "disk+ram", 9_950);
        heard("n2", "replica", 10, "disk+ram", 9_900);
        assertThat(Detector.decide(group, seen, 10_000 * MS, 0, 9_500 * MS, settings, 42).entries()).isEmpty();
    }

    @Test
    void unknownMembersAreIgnored() {
        heard("n1", "primary", 10, "disk+ram", 9_950);
        seen.put("x9", new Seen(new Report("x9", "replica", "r", "p", 1, 99, "disk+ram", false), 9_950 * MS));
        assertThat(decide(10_000, settings).entries()).isEmpty();
    }

    /** {@link FailoverConfig} with automatic failover off. */
    private record FailoverConfigOff(FailoverConfig base) implements FailoverConfig {
        @Override public Class<? extends java.lang.annotation.Annotation> annotationType() {
            return FailoverConfig.class;
        }
        @Override public String group() { return base.group(); }
        @Override public String node_id() { return base.node_id(); }
        @Override public String peers() { return base.peers(); }
        @Override public String raft_bind() { return base.raft_bind(); }
        @Override public int raft_port() { return base.raft_port(); }
        @Override public boolean witness() { return false; }
        @Override public boolean join() { return false; }
        @Override public boolean tls() { return false; }
        @Override public boolean automatic() { return false; }
        @Override public int down_after_ms() { return base.down_after_ms(); }
        @Override public int lease_ms() { return base.lease_ms(); }
        @Override public int report_interval_ms() { return base.report_interval_ms(); }
        @Override public int election_timeout_min_ms() { return base.election_timeout_min_ms(); }
        @Override public int election_timeout_max_ms() { return base.election_timeout_max_ms(); }
        @Override public boolean lossy() { return base.lossy(); }
        @Override public int update_grace_ms() { return base.update_grace_ms(); }
        @Override public String storage_directory() { return base.storage_directory(); }
    }
}
