package tandem.replication;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ScheduledFuture;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import tandem.api.auth.ReplicaAuthorizer;
import tandem.api.checkpoint.Checkpoints;
import tandem.api.journal.Journal;
import tandem.api.journal.SegmentInfo;
import tandem.api.replication.AckPolicy;
import tandem.api.replication.ReplicationHub;
import tandem.auth.AuthComponent;
import tandem.journal.JournalComponent;
import tandem.protocol.replication.Ack;
import tandem.protocol.replication.ChallengeResponse;
import tandem.protocol.replication.Frames;
import tandem.protocol.replication.Handshake;
import tandem.protocol.replication.Heartbeat;
import tandem.protocol.replication.InputBatch;
import tandem.protocol.replication.SegmentSeedBegin;
import tandem.protocol.replication.SnapshotBegin;
import tandem.protocol.replication.SnapshotEnd;
import tandem.protocol.replication.StreamStart;
import tandem.store.StoreComponent;

/**
 * The primary's side of one link over the real TCP pipeline, with a real journal and real keys: the test plays the
 * replica. Every input is fed whole and byte by byte.
 */
@Timeout(60)
class PrimarySessionTest {

    private static final int MAX_FRAME = 128 * 1024;
    private static final byte[] ZEROS = new byte[32];

    @TempDir
    Path root;

    private JournalComponent journal;
    private AuthComponent primaryAuth;
    private AuthComponent replicaAuth;
    private AuthComponent strangerAuth;
    private final TestHub hub = new TestHub();
    private final ManualScheduler scheduler = new ManualScheduler();
    private final List<Peer> peers = new ArrayList<>();
    private final List<PrimarySession> sessions = new ArrayList<>();
    private Node node;

    @BeforeEach
    void start() {
        journal = Nodes.journal(Nodes.home(root, "primary"));
        primaryAuth = Nodes.auth(Nodes.home(root, "primary"));
        replicaAuth = Nodes.auth(Nodes.home(root, "replica"));
        strangerAuth = Nodes.auth(Nodes.home(root, "stranger"));
        primaryAuth.allow(Base64.getEncoder().encodeToString(replicaAuth.publicKey()), "replica");
        node = new Node(60_000);
    }

    @AfterEach
    void stop() {
        for (PrimarySession s : sessions) {
            s.close("test over");
        }
        for (Peer p : peers) {
            p.close();
        }
        journal.untap(node.fanout);
        Nodes.close(journal);
    }

    /** The component's side, with real parts where they run outside a framework. */
    private final class Node implements PrimarySession.PrimaryContext {
        final ReplicationSettings settings;
        final Fanout fanout = new Fanout(MAX_FRAME);
        final Registry registry;
        final List<String> events = new CopyOnWriteArrayList<>();
        volatile long epoch = 1;

        Node(int heartbeatMs) {
            settings = new ReplicationSettings("127.0.0.1", 0, null, 0, "auto", MAX_FRAME, heartbeatMs, 10_000,
                    1_000, 4L * MAX_FRAME, root.resolve("state"), List.of("tcp"));
            registry = new Registry(settings.stateDirectory());
            journal.tap(fanout);
        }

        @Override
        public Journal journal() {
            return journal;
        }

        @Override
        public ReplicationHub hub() {
            return hub;
        }

        /** False while a test has the auth bundle away. */
        volatile boolean authActive = true;

        @Override
        public ReplicaAuthorizer authorizer() {
            return authActive ? primaryAuth : null;
        }

        @Override
        public ReplicationSettings settings() {
            return settings;
        }

        @Override
        public long epoch() {
            return epoch;
        }

        @Override
        public Fanout fanout() {
            return fanout;
        }

        /** The checkpoint service a test gives the primary; none by default. */
        volatile Checkpoints checkpoints;

        @Override
        public Checkpoints checkpoints() {
            return checkpoints;
        }

        @Override
        public boolean register(String id) {
            boolean fresh = registry.register(id, System.currentTimeMillis());
            events.add("register " + fresh);
            return fresh;
        }

        @Override
        public void replaceOthers(PrimarySession session) {
            events.add("replaceOthers");
        }

        @Override
        public void ended(PrimarySession session) {
            events.add("ended");
        }

        @Override
        public ScheduledFuture<?> schedule(Runnable task, long delayMs) {
            return scheduler.schedule(task, delayMs);
        }

        /** Replicas the test makes this primary wait for, as a primary restarted after a crash does. */
        final java.util.Set<String> fencedFor = java.util.concurrent.ConcurrentHashMap.newKeySet();

        @Override
        public boolean shown(String id, String address, long replicaLast, boolean ahead) {
            events.add("shown " + replicaLast + (ahead ? " ahead" : ""));
            return !(fencedFor.contains(id) && ahead);
        }

        @Override
        public void superseded(String id, String address, long replicaEpoch) {
            events.add("superseded " + replicaEpoch);
        }
    }

    private Peer connect() {
        PrimarySession s = new PrimarySession(node);
        sessions.add(s);
        Peer p = new Peer(s, MAX_FRAME);
        peers.add(p);
        return p;
    }

    private static byte[] nonce(byte[] challenge) {
        return Arrays.copyOfRange(challenge, 1, 33);
    }

    private static byte[] handshake(long last, byte[] chain, long epoch) {
        return Handshake.frame(last, chain, epoch);
    }

    /** Challenge → signed response → AuthOk. */
    private Peer authenticated(boolean byteByByte) {
        Peer p = connect();
        byte[] challenge = p.expect(Frames.TAG_CHALLENGE);
        p.feed(ChallengeResponse.frame(replicaAuth.sign(nonce(challenge)), replicaAuth.publicKey()), byteByByte);
        p.expect(Frames.TAG_AUTH_OK);
        return p;
    }

    private static List<Nodes.Slot> slotsOf(byte[] inputBatch) {
        List<Nodes.Slot> out = new ArrayList<>();
        ByteBuffer b = ByteBuffer.wrap(inputBatch).order(ByteOrder.LITTLE_ENDIAN);
        InputBatch.Cursor c = new InputBatch.Cursor().wrap(b);
        while (c.next()) {
            out.add(new Nodes.Slot(c.sequence(), Arrays.copyOfRange(inputBatch, c.slotOffset(),
                    c.slotOffset() + c.slotLength())));
        }
        return out;
    }

    /** Collects the slots of InputBatch frames (skipping heartbeats) until {@code last} arrived. */
    private static List<Nodes.Slot> receiveUpTo(Peer p, long last) {
        List<Nodes.Slot> got = new ArrayList<>();
        while (got.isEmpty() || got.get(got.size() - 1).sequence() < last) {
            byte[] f = p.next();
            if (f[0] == Frames.TAG_HEARTBEAT) {
                continue;
            }
            assertThat(Frames.name(f[0])).isEqualTo("InputBatch");
            assertThat(f.length).isLessThanOrEqualTo(MAX_FRAME);
            got.addAll(slotsOf(f));
        }
        return got;
    }

    // ---- authentication ---------------------------------------------------------------------------------------

    @Test
    void aChallengeWithAFreshNonceIsSentOnOpen() {
        byte[] a = connect().expect(Frames.TAG_CHALLENGE);
        byte[] b = connect().expect(Frames.TAG_CHALLENGE);
        assertThat(a).hasSize(33);
        assertThat(b).hasSize(33);
        assertThat(nonce(a)).isNotEqualTo(nonce(b)).isNotEqualTo(ZEROS);
        assertThat(scheduler.pending()).hasSize(2); // the handshake timeouts
    }

    @ParameterizedTest(name = "byteByByte={0}")
    @ValueSource(booleans = {false, true})
    void anAuthorizedKeyWithAGoodSignatureGetsAuthOkAndNothingElse(boolean byteByByte) {
        Peer p = authenticated(byteByByte);
        assertThat(p.names()).containsExactly("Challenge", "AuthOk");
        assertThat(p.isOpen()).isTrue();
        assertThat(sessions.get(0).state()).isEqualTo(PrimarySession.State.HANDSHAKING);
        assertThat(sessions.get(0).id()).isEqualTo(Base64.getEncoder().encodeToString(replicaAuth.publicKey()));
        assertThat(hub.events).isEmpty();
    }

    @ParameterizedTest(name = "byteByByte={0}")
    @ValueSource(booleans = {false, true})
    void anUnknownKeyGetsAuthFailedAndTheLinkClosesWithNothingElseSent(boolean byteByByte) {
        Peer p = connect();
        byte[] challenge = p.expect(Frames.TAG_CHALLENGE);
        p.feed(ChallengeResponse.frame(strangerAuth.sign(nonce(challenge)), strangerAuth.publicKey()), byteByByte);
        p.awaitClosed();
        assertThat(p.names()).containsExactly("Challenge", "AuthFailed");
        assertThat(p.closedReason()).contains("UNKNOWN_KEY");
        // what a refused peer sends next is never read
        p.feed(handshake(0, ZEROS, 0), byteByByte);
        assertThat(p.names()).containsExactly("Challenge", "AuthFailed");
        assertThat(hub.events).isEmpty();
        assertThat(node.events).containsExactly("ended");
    }

    @Test
    void whileNoAuthorizerIsBoundAKeyIsNotRefusedButTheLinkClosesAndRunningLinksStay() {
        Peer running = authenticated(false);
        node.authActive = false; // the auth bundle being updated
        Peer p = connect();
        byte[] challenge = p.expect(Frames.TAG_CHALLENGE);
        p.feed(ChallengeResponse.frame(replicaAuth.sign(nonce(challenge)), replicaAuth.publicKey()), false);
        p.awaitClosed();
        assertThat(p.names()).as("no AuthFailed: the key was not judged").containsExactly("Challenge");
        assertThat(p.closedReason()).contains("tandem.auth is not active");
        assertThat(running.isOpen()).isTrue();
        assertThat(sessions.get(0).state()).isEqualTo(PrimarySession.State.HANDSHAKING);
    }

    @ParameterizedTest(name = "byteByByte={0}")
    @ValueSource(booleans = {false, true})
    void aBadSignatureGetsAuthFailedAndTheLinkCloses(boolean byteByByte) {
        Peer p = connect();
        byte[] challenge = p.expect(Frames.TAG_CHALLENGE);
        byte[] wrongNonce = nonce(challenge);
        wrongNonce[0] ^= 1;
        p.feed(ChallengeResponse.frame(replicaAuth.sign(wrongNonce), replicaAuth.publicKey()), byteByByte);
        p.awaitClosed();
        assertThat(p.names()).containsExactly("Challenge", "AuthFailed");
        assertThat(p.closedReason()).contains("BAD_SIGNATURE");
        assertThat(hub.events).isEmpty();
    }

    @ParameterizedTest(name = "byteByByte={0}")
    @ValueSource(booleans = {false, true})
    void aHandshakeBeforeAuthenticationClosesTheLink(boolean byteByByte) {
        Peer p = connect();
        p.expect(Frames.TAG_CHALLENGE);
        p.feed(handshake(0, ZEROS, 0), byteByByte);
        p.awaitClosed();
        assertThat(p.closedReason()).contains("expected ChallengeResponse").contains("Handshake");
        assertThat(p.names()).containsExactly("Challenge");
        assertThat(hub.events).isEmpty();
    }

    @ParameterizedTest(name = "byteByByte={0}")
    @ValueSource(booleans = {false, true})
    void garbageClosesTheLinkWithAReasonAndNothingIsSent(boolean byteByByte) {
        byte[] random = new byte[4096];
        new Random(42).nextBytes(random);
        byte[] tooLong = ByteBuffer.allocate(16).order(ByteOrder.LITTLE_ENDIAN).putInt(MAX_FRAME + 1).array();
        byte[] huge = ByteBuffer.allocate(16).order(ByteOrder.LITTLE_ENDIAN).putInt(-1).array();
        byte[] empty = ByteBuffer.allocate(16).order(ByteOrder.LITTLE_ENDIAN).putInt(0).array();
        byte[] shortResponse = frame(new byte[] {Frames.TAG_CHALLENGE_RESPONSE, 1, 2, 3});
        byte[] unknownTag = frame(new byte[] {0x7f, 0, 0, 0});
        byte[] emptyPayloadTag = frame(new byte[] {Frames.TAG_AUTH_OK});
        List<byte[]> inputs = List.of(random, tooLong, huge, empty, shortResponse, unknownTag, emptyPayloadTag);
        List<String> reasons = new ArrayList<>();
        for (byte[] input : inputs) {
            Peer p = connect();
            p.expect(Frames.TAG_CHALLENGE);
            p.feed(input, byteByByte);
            p.awaitClosed();
            assertThat(p.names()).as("sent after %s", p.closedReason()).containsExactly("Challenge");
            reasons.add(p.closedReason());
        }
        assertThat(reasons.get(1)).contains("frame length " + (MAX_FRAME + 1) + " exceeds the limit");
        assertThat(reasons.get(2)).contains("frame length 4294967295 exceeds the limit");
        assertThat(reasons.get(3)).contains("declared length 0");
        assertThat(reasons.get(4)).contains("ChallengeResponse");
        assertThat(reasons.get(5)).contains("unknown 0x7f");
        assertThat(reasons.get(6)).contains("AuthOk");
        assertThat(reasons).allSatisfy(r -> assertThat(r).isNotBlank());
        assertThat(hub.events).isEmpty();
    }

    @ParameterizedTest(name = "byteByByte={0}")
    @ValueSource(booleans = {false, true})
    void controlFramesLongerThanTheControlLimitAreRefusedBeforeTheHandshake(boolean byteByByte) {
        // a valid response from an authorized key, padded beyond MAX_CONTROL_FRAME: no AuthOk
        Peer p = connect();
        byte[] challenge = p.expect(Frames.TAG_CHALLENGE);
        byte[] response = ChallengeResponse.frame(replicaAuth.sign(nonce(challenge)), replicaAuth.publicKey());
        byte[] padded = Arrays.copyOfRange(response, 4, 4 + Frames.MAX_CONTROL_FRAME + 1);
        p.feed(frame(padded), byteByByte);
        p.awaitClosed();
        assertThat(p.names()).containsExactly("Challenge");
        assertThat(p.closedReason()).contains(Integer.toString(Frames.MAX_CONTROL_FRAME + 1));

        // and a handshake so padded after AuthOk: no stream
        Peer q = authenticated(byteByByte);
        byte[] hs = handshake(0, ZEROS, 0);
        q.feed(frame(Arrays.copyOfRange(hs, 4, 4 + Frames.MAX_CONTROL_FRAME + 1)), byteByByte);
        q.awaitClosed();
        assertThat(q.names()).containsExactly("Challenge", "AuthOk");
        assertThat(hub.events).isEmpty();
    }

    @Test
    void noResponseWithinTheHandshakeTimeoutClosesTheLink() {
        Peer p = connect();
        p.expect(Frames.TAG_CHALLENGE);
        scheduler.runPending();
        p.awaitClosed();
        assertThat(p.closedReason()).isEqualTo("no challenge response within 10000 ms");
    }

    private static byte[] frame(byte[] payload) {
        return ByteBuffer.allocate(4 + payload.length).order(ByteOrder.LITTLE_ENDIAN).putInt(payload.length)
                .put(payload).array();
    }

    // ---- handshake --------------------------------------------------------------------------------------------

    @ParameterizedTest(name = "byteByByte={0}")
    @ValueSource(booleans = {false, true})
    void anotherProtocolVersionIsRefused(boolean byteByByte) {
        Peer p = authenticated(byteByByte);
        p.feed(Handshake.frame(0, ZEROS, 0, 5), byteByByte); // a replica from before the Publish entry
        p.awaitClosed();
        assertThat(p.closedReason()).isEqualTo("protocol version 5, the primary speaks 6");
        assertThat(p.names()).containsExactly("Challenge", "AuthOk");
        assertThat(hub.events).isEmpty();
    }

    @ParameterizedTest(name = "byteByByte={0}")
    @ValueSource(booleans = {false, true})
    void aReplicaThatHasSeenAHigherEpochIsRefused(boolean byteByByte) {
        Peer p = authenticated(byteByByte);
        p.feed(handshake(0, ZEROS, 2), byteByByte);
        p.awaitClosed();
        assertThat(p.closedReason()).isEqualTo("the replica's epoch 2 is above this primary's 1");
        assertThat(p.names()).containsExactly("Challenge", "AuthOk");
        assertThat(hub.events).isEmpty();
    }

    @ParameterizedTest(name = "byteByByte={0}")
    @ValueSource(booleans = {false, true})
    void aReplicaBeyondTheHubsSlotsIsRefused(boolean byteByByte) {
        hub.full = true;
        Peer p = authenticated(byteByByte);
        p.feed(handshake(0, ZEROS, 1), byteByByte);
        p.awaitClosed();
        assertThat(p.closedReason()).isEqualTo("the primary already serves 2 replicas");
        assertThat(p.names()).containsExactly("Challenge", "AuthOk");
        assertThat(hub.events).containsExactly("refused journal");
        assertThat(node.registry.ids()).isEmpty();
    }

    @ParameterizedTest(name = "byteByByte={0}")
    @ValueSource(booleans = {false, true})
    void aFreshReplicaGetsTheFirstSegmentsIdentityThenEveryEntryThenLiveOnes(boolean byteByByte) throws Exception {
        hub.policy = AckPolicy.DISK_RAM;
        long last = Nodes.append(journal, 300, "a");
        Peer p = authenticated(byteByByte);
        p.feed(handshake(0, ZEROS, 1), byteByByte);

        byte[] start = p.expect(Frames.TAG_STREAM_START);
        ByteBuffer s = ByteBuffer.wrap(start).order(ByteOrder.LITTLE_ENDIAN);
        SegmentInfo first = journal.segments().get(0);
        assertThat(StreamStart.startSequence(s)).isZero();
        assertThat(StreamStart.segmentStartSequence(s)).isEqualTo(1);
        assertThat(StreamStart.anchorHash(s)).isEqualTo(first.anchor());
        assertThat(StreamStart.epoch(s)).isEqualTo(1);
        assertThat(StreamStart.ackPolicy(s)).isEqualTo(AckPolicy.DISK_RAM.wire());
        assertThat(StreamStart.genesisKnown(s)).isFalse(); // the first segment is still live
        assertThat(StreamStart.segmentStartOffset(s)).isEqualTo(first.replicationOffset());

        assertThat(receiveUpTo(p, last)).containsExactlyElementsOf(Nodes.slots(journal, 0));
        String id = Base64.getEncoder().encodeToString(replicaAuth.publicKey());
        assertThat(node.registry.ids()).containsExactly(id);
        assertThat(node.events).containsExactly("replaceOthers", "shown 0", "register true");
        assertThat(hub.events).containsExactly("attach journal", "seed 0");
        Peer.await(() -> sessions.get(0).state() == PrimarySession.State.STREAMING, "streaming");

        // live: what the journal writes from now on arrives through the fanout
        long live = Nodes.append(journal, 50, "b");
        assertThat(receiveUpTo(p, live)).containsExactlyElementsOf(Nodes.slots(journal, last));
        assertThat(p.isOpen()).isTrue();

        p.feed(Ack.frame(live - 10, live), byteByByte);
        Peer.await(() -> hub.events.contains("ack " + live + " " + (live - 10)), "the ack in the hub");
        var status = sessions.get(0).status(journal.lastSequence());
        assertThat(status.state()).isEqualTo("streaming");
        assertThat(status.sent()).isEqualTo(live);
        assertThat(status.inMemory()).isEqualTo(live);
        assertThat(status.acked()).isEqualTo(live - 10);
        assertThat(status.lagEntries()).isEqualTo(10);
    }

    @ParameterizedTest(name = "byteByByte={0}")
    @ValueSource(booleans = {false, true})
    void aReplicaWithTheSameHistoryResumesAfterItsPosition(boolean byteByByte) throws Exception {
        long last = Nodes.append(journal, 40, "a");
        Peer p = authenticated(byteByByte);
        p.feed(handshake(25, journal.chainAt(25), 1), byteByByte);
        byte[] start = p.expect(Frames.TAG_STREAM_START);
        assertThat(StreamStart.startSequence(ByteBuffer.wrap(start).order(ByteOrder.LITTLE_ENDIAN))).isEqualTo(25);
        assertThat(receiveUpTo(p, last)).containsExactlyElementsOf(Nodes.slots(journal, 25));
        assertThat(hub.events).containsExactly("attach journal", "seed 25");
    }

    @ParameterizedTest(name = "byteByByte={0}")
    @ValueSource(booleans = {false, true})
    void aDivergedReplicaThatNeedsASnapshotNoneCanServeGetsNothingAndTheLinkCloses(boolean byteByByte)
            throws Exception {
        Nodes.append(journal, 20, "a");
        Peer p = authenticated(byteByByte);
        byte[] wrong = journal.chainAt(10).clone();
        wrong[5] ^= 1;
        p.feed(handshake(10, wrong, 1), byteByByte);
        p.awaitClosed();
        assertThat(p.closedReason()).contains("a snapshot is needed but cannot be served");
        assertThat(p.names()).as("its journal is left as it is: no HashMismatch without a snapshot to follow")
                .containsExactly("Challenge", "AuthOk");
        assertThat(hub.events).containsExactly("attach journal", "detach");
        assertThat(node.registry.ids()).isEmpty();
    }

    @ParameterizedTest(name = "byteByByte={0}")
    @ValueSource(booleans = {false, true})
    void aDivergedReplicaGetsHashMismatchThenTheSnapshotAndTheSeedThenStreamsOn(boolean byteByByte)
            throws Exception {
        long last = Nodes.append(journal, 400, "a");
        StoreComponent store = Nodes.store(Nodes.home(root, "primary"));
        try {
            Nodes.applyAll(journal, store);
            node.checkpoints = Nodes.checkpoints(Nodes.home(root, "primary"), store);
            Peer p = authenticated(byteByByte);
            byte[] wrong = journal.chainAt(100).clone();
            wrong[0] ^= 1;
            p.feed(handshake(100, wrong, 1), byteByByte);
            p.expect(Frames.TAG_HASH_MISMATCH);
            Received r = receiveSnapshot(p);
            assertThat(r.sequence).isEqualTo(last);
            assertThat(r.chain).isEqualTo(journal.chainAt(last));
            assertStoreCopy(r.checkpoint, store);
            assertThat(r.seed).as("the seed is the raw prefix of the segment holding S+1")
                    .isEqualTo(livePrefix(r.seed.length));
            ByteBuffer start = ByteBuffer.wrap(p.expect(Frames.TAG_STREAM_START)).order(ByteOrder.LITTLE_ENDIAN);
            SegmentInfo live = journal.segments().get(journal.segments().size() - 1);
            assertThat(StreamStart.startSequence(start)).isEqualTo(last);
            assertThat(StreamStart.segmentStartSequence(start)).isEqualTo(live.startSequence());
            assertThat(StreamStart.anchorHash(start)).isEqualTo(live.anchor());
            assertThat(StreamStart.segmentStartOffset(start)).isEqualTo(live.replicationOffset());
            assertThat(hub.events).containsExactly("attach journal", "seed " + last);
            assertThat(node.registry.ids()).hasSize(1);
            long more = Nodes.append(journal, 30, "b");
            assertThat(receiveUpTo(p, more)).containsExactlyElementsOf(Nodes.slots(journal, last));
            try (var dirs = Files.list(root.resolve("primary/data/checkpoint"))) {
                assertThat(dirs.toList()).as("the per-replica checkpoint is gone once sent").isEmpty();
            }
            try (var files = Files.list(node.settings.stateDirectory())) {
                assertThat(files.filter(f -> f.getFileName().toString().startsWith("seed-")).toList()).isEmpty();
            }
        } finally {
            Nodes.close(store);
        }
    }

    @Test
    void aReplicaBehindTheRetainedJournalGetsNeedSnapshotAndASeedFromAnArchivedSegment() throws Exception {
        journal.untap(node.fanout);
        Nodes.close(journal);
        journal = Nodes.journal(Nodes.home(root, "small"), 64 * 1024, 0);
        node = new Node(60_000);
        StoreComponent store = Nodes.store(Nodes.home(root, "small"));
        try {
            long cut = Nodes.append(journal, 600, "a");
            Nodes.applyAll(journal, store);
            Nodes.append(journal, 5, "tail"); // journaled, not applied: the checkpoint stops before them
            Peer.await(() -> store.status().flushedSequence() >= cut, "the store flushed");
            assertThat(journal.purge(store.status().flushedSequence())).isPositive();
            long firstRetained = journal.segments().get(0).startSequence();
            assertThat(firstRetained).isGreaterThan(1);
            node.checkpoints = Nodes.checkpoints(Nodes.home(root, "small"), store);

            Peer p = authenticated(false);
            p.feed(handshake(0, ZEROS, 1), false);
            p.expect(Frames.TAG_NEED_SNAPSHOT);
            Received r = receiveSnapshot(p);
            assertThat(r.sequence).isEqualTo(cut);
            SegmentInfo holder = journal.segments().stream().filter(seg -> seg.startSequence() <= cut + 1
                    && cut + 1 <= seg.lastSequence() + 1).findFirst().orElseThrow();
            assertThat(r.seed).isEqualTo(prefix(holder.name(), r.seed.length));
            ByteBuffer start = ByteBuffer.wrap(p.expect(Frames.TAG_STREAM_START)).order(ByteOrder.LITTLE_ENDIAN);
            assertThat(StreamStart.segmentStartSequence(start)).isEqualTo(holder.startSequence());
            assertThat(StreamStart.anchorHash(start)).isEqualTo(holder.anchor());
            if (holder.startSequence() == cut + 1) {
                // the seed is only a header: the catch-up announces the boundary the replica already sits on
                ByteBuffer rotate = ByteBuffer.wrap(p.expect(Frames.TAG_ROTATE)).order(ByteOrder.LITTLE_ENDIAN);
                assertThat(tandem.protocol.replication.Rotate.boundarySeq(rotate)).isEqualTo(cut);
            }
            assertThat(receiveUpTo(p, journal.durableSequence())).containsExactlyElementsOf(Nodes.slots(journal, cut));
        } finally {
            Nodes.close(store);
        }
    }

    @Test
    void aReplicaAheadOfAFencedPrimaryIsSentNothingAndNamedWhileOneNotAheadStreams() throws Exception {
        long last = Nodes.append(journal, 5, "a");
        String id = Base64.getEncoder().encodeToString(replicaAuth.publicKey());
        node.fencedFor.add(id);
        Peer p = authenticated(false);
        p.feed(handshake(9, ZEROS, 1), false);
        p.awaitClosed();
        assertThat(p.names()).as("no HashMismatch: it must not discard what it holds")
                .containsExactly("Challenge", "AuthOk");
        assertThat(p.closedReason()).contains("ahead of this restarted primary");
        assertThat(node.events).contains("shown 9 ahead");

        Peer q = authenticated(false);
        q.feed(handshake(3, journal.chainAt(3), 1), false);
        q.expect(Frames.TAG_STREAM_START);
        assertThat(receiveUpTo(q, last)).containsExactlyElementsOf(Nodes.slots(journal, 3));
        assertThat(node.events).contains("shown 3");
    }

    @Test
    void aReplicaThatHasSeenAHigherEpochTellsThePrimaryItWasSuperseded() {
        Peer p = authenticated(false);
        p.feed(handshake(0, ZEROS, 2), false);
        p.awaitClosed();
        assertThat(node.events).contains("superseded 2");
    }

    /** What a snapshot transfer carried. */
    private record Received(long sequence, byte[] chain, byte[] checkpoint, byte[] seed) {
    }

    /** SnapshotBegin, chunks, SnapshotEnd (CRC checked), SegmentSeedBegin, chunks, SnapshotEnd (CRC checked). */
    private static Received receiveSnapshot(Peer p) {
        ByteBuffer begin = ByteBuffer.wrap(p.expect(Frames.TAG_SNAPSHOT_BEGIN)).order(ByteOrder.LITTLE_ENDIAN);
        byte[] body = chunksUntilEnd(p);
        assertThat((long) body.length).isEqualTo(SnapshotBegin.snapshotLen(begin));
        ByteBuffer seedBegin = ByteBuffer.wrap(p.expect(Frames.TAG_SEGMENT_SEED_BEGIN)).order(ByteOrder.LITTLE_ENDIAN);
        byte[] seed = chunksUntilEnd(p);
        assertThat((long) seed.length).isEqualTo(SegmentSeedBegin.seedLen(seedBegin));
        return new Received(SnapshotBegin.snapSequence(begin), SnapshotBegin.snapChainHash(begin), body, seed);
    }

    private static byte[] chunksUntilEnd(Peer p) {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        while (true) {
            byte[] f = p.next();
            if (f[0] == Frames.TAG_SNAPSHOT_END) {
                java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
                crc.update(out.toByteArray());
                assertThat(SnapshotEnd.crc32c(ByteBuffer.wrap(f).order(ByteOrder.LITTLE_ENDIAN)))
                        .isEqualTo((int) crc.getValue());
                return out.toByteArray();
            }
            assertThat(Frames.name(f[0])).isEqualTo("SnapshotChunk");
            assertThat(f.length - 1).isBetween(1, Frames.SNAPSHOT_CHUNK);
            out.write(f, 1, f.length - 1);
        }
    }

    /** The checkpoint stream, received and installed on a second store, holds what the primary's store holds. */
    private void assertStoreCopy(byte[] stream, StoreComponent primaryStore) throws Exception {
        Path home = Nodes.home(root, "copy");
        StoreComponent copy = Nodes.store(home);
        try {
            Checkpoints.Staged staged;
            try (Checkpoints.Receive receive = Nodes.checkpoints(home, null).receive(stream.length)) {
                assertThat(receive.feed(ByteBuffer.wrap(stream))).isTrue();
                staged = receive.commit();
            }
            assertThat(staged.replicationId()).isEqualTo(OutgoingSnapshot.TRAILER_ID);
            copy.install(staged.directory(), primaryStore.appliedSequence(), new byte[32]);
            assertThat(copy.digest()).isEqualTo(primaryStore.digest());
        } finally {
            Nodes.close(copy);
        }
    }

    private byte[] livePrefix(int length) throws java.io.IOException {
        return prefix("journal", length);
    }

    private byte[] prefix(String segment, int length) throws java.io.IOException {
        byte[] all = Files.readAllBytes(Path.of(journal.status().directory()).resolve(segment));
        return Arrays.copyOf(all, length);
    }

    @Test
    void anIdleStreamCarriesHeartbeatsWithThePositionAndPolicy() throws Exception {
        journal.untap(node.fanout);
        node = new Node(20);
        hub.policy = AckPolicy.TWO_DISKS;
        long last = Nodes.append(journal, 3, "a");
        Peer p = authenticated(false);
        p.feed(handshake(0, ZEROS, 1), false);
        p.expect(Frames.TAG_STREAM_START);
        receiveUpTo(p, last);
        byte[] hb = p.next(Frames.TAG_HEARTBEAT);
        ByteBuffer b = ByteBuffer.wrap(hb).order(ByteOrder.LITTLE_ENDIAN);
        assertThat(Heartbeat.sequence(b)).isEqualTo(last);
        assertThat(Heartbeat.ackPolicy(b)).isEqualTo(AckPolicy.TWO_DISKS.wire());
    }

    // ---- acks -------------------------------------------------------------------------------------------------

    private Peer streaming(boolean byteByByte, long last) {
        Peer p = authenticated(byteByByte);
        p.feed(handshake(0, ZEROS, 1), byteByByte);
        p.expect(Frames.TAG_STREAM_START);
        receiveUpTo(p, last);
        return p;
    }

    @ParameterizedTest(name = "byteByByte={0}")
    @ValueSource(booleans = {false, true})
    void anAckWithinWhatWasSentReachesTheHub(boolean byteByByte) throws Exception {
        long last = Nodes.append(journal, 10, "a");
        Peer p = streaming(byteByByte, last);
        p.feed(Ack.frame(4, 7), byteByByte);
        p.feed(Ack.frame(last, last), byteByByte);
        Peer.await(() -> hub.events.contains("ack " + last + " " + last), "the acks");
        assertThat(hub.events).containsSubsequence("seed 0", "ack 7 4", "ack " + last + " " + last);
        assertThat(p.isOpen()).isTrue();
    }

    @ParameterizedTest(name = "byteByByte={0}")
    @ValueSource(booleans = {false, true})
    void anAckBeyondWhatWasSentEvictsTheReplica(boolean byteByByte) throws Exception {
        long last = Nodes.append(journal, 10, "a");
        Peer p = streaming(byteByByte, last);
        p.feed(Ack.frame(last, last + 1), byteByByte);
        p.awaitClosed();
        assertThat(p.closedReason()).isEqualTo("ack beyond what was sent (in-memory " + (last + 1) + ", durable "
                + last + ", sent " + last + ")");
        assertThat(hub.events).containsExactly("attach journal", "seed 0", "detach");
    }

    @ParameterizedTest(name = "byteByByte={0}")
    @ValueSource(booleans = {false, true})
    void aDurableTrackAheadOfTheInMemoryTrackEvictsTheReplica(boolean byteByByte) throws Exception {
        long last = Nodes.append(journal, 10, "a");
        Peer p = streaming(byteByByte, last);
        p.feed(Ack.frame(6, 5), byteByByte);
        p.awaitClosed();
        assertThat(p.closedReason()).isEqualTo("ack beyond what was sent (in-memory 5, durable 6, sent " + last
                + ")");
        assertThat(hub.events).containsExactly("attach journal", "seed 0", "detach");
    }

    @ParameterizedTest(name = "byteByByte={0}")
    @ValueSource(booleans = {false, true})
    void anOversizedOrShortFrameWhileStreamingClosesTheLink(boolean byteByByte) throws Exception {
        long last = Nodes.append(journal, 3, "a");
        Peer p = streaming(byteByByte, last);
        byte[] shortAck = frame(new byte[] {Frames.TAG_ACK, 1, 2});
        p.feed(shortAck, byteByByte);
        p.awaitClosed();
        assertThat(p.closedReason()).contains("Ack");
        assertThat(hub.events).containsExactly("attach journal", "seed 0", "detach");

        Peer q = streaming(byteByByte, last);
        byte[] big = new byte[Frames.MAX_CONTROL_FRAME + 1];
        big[0] = Frames.TAG_HEARTBEAT;
        q.feed(frame(big), byteByByte);
        q.awaitClosed();
        assertThat(q.closedReason()).contains(Integer.toString(Frames.MAX_CONTROL_FRAME + 1));
    }
}
