package tandem.replication;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ScheduledFuture;

import org.bouncycastle.math.ec.rfc8032.Ed25519;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import tandem.api.auth.NodeIdentity;
import tandem.api.checkpoint.Checkpoints;
import tandem.api.auth.ReplicaAuthorizer;
import tandem.api.journal.Journal;
import tandem.api.journal.SegmentInfo;
import tandem.api.replication.AckPolicy;
import tandem.api.replication.ReplicationHub;
import tandem.api.transport.FrameListener;
import tandem.api.transport.FrameSession;
import tandem.api.transport.FrameTransport;
import tandem.auth.AuthComponent;
import tandem.journal.JournalComponent;
import tandem.protocol.replication.Ack;
import tandem.protocol.replication.ChainCheck;
import tandem.protocol.replication.Challenge;
import tandem.protocol.replication.ChallengeResponse;
import tandem.protocol.replication.Frames;
import tandem.protocol.replication.Handshake;
import tandem.protocol.replication.Heartbeat;
import tandem.protocol.replication.InputBatch;
import tandem.protocol.replication.Rotate;
import tandem.protocol.replication.SegmentSeedBegin;
import tandem.protocol.replication.Signal;
import tandem.protocol.replication.SnapshotBegin;
import tandem.protocol.replication.SnapshotChunk;
import tandem.protocol.replication.SnapshotEnd;
import tandem.protocol.replication.StreamStart;
import tandem.store.StoreComponent;

/**
 * A replica's link over the real TCP pipeline, with its real journal and key: the test plays the primary, with
 * frames built from a second, real journal. Every input is fed whole and byte by byte.
 */
@Timeout(60)
class ReplicaLinkTest {

    private static final int MAX_FRAME = 128 * 1024;
    private static final byte[] ZEROS = new byte[32];
    private static final SecureRandom RANDOM = new SecureRandom();

    @TempDir
    Path root;

    private JournalComponent primary;
    private JournalComponent replica;
    private AuthComponent primaryAuth;
    private AuthComponent replicaAuth;
    private final TestHub hub = new TestHub();
    private final ManualScheduler scheduler = new ManualScheduler();
    private final List<Peer> peers = new CopyOnWriteArrayList<>();
    private final Node node = new Node();
    private ReplicaLink link;

    @BeforeEach
    void start() {
        primary = Nodes.journal(Nodes.home(root, "primary"));
        replica = Nodes.journal(Nodes.home(root, "replica"));
        primaryAuth = Nodes.auth(Nodes.home(root, "primary"));
        replicaAuth = Nodes.auth(Nodes.home(root, "replica"));
        primaryAuth.allow(Base64.getEncoder().encodeToString(replicaAuth.publicKey()), "replica");
    }

    @AfterEach
    void stop() {
        if (link != null) {
            link.close();
        }
        for (Peer p : peers) {
            p.close();
        }
        Nodes.close(primary);
        Nodes.close(replica);
    }

    /** The component's side: the replica's journal and key, and a transport that connects to an embedded channel. */
    private final class Node implements ReplicaLink.ReplicaContext {
        final ReplicationSettings settings = new ReplicationSettings("127.0.0.1", 0, "127.0.0.1", 7379, "auto",
                MAX_FRAME, 60_000, 10_000, 1_000, 4L * MAX_FRAME, null, List.of("tcp"));
        volatile long epoch;
        final List<String> connects = new CopyOnWriteArrayList<>();
        /** What the link told of its primary's psync history, hex or "none". */
        final List<String> histories = new CopyOnWriteArrayList<>();

        @Override
        public void primaryHistory(byte[] psyncId) {
            histories.add(psyncId == null ? "none" : java.util.HexFormat.of().formatHex(psyncId));
        }

        /** Set by a test: the journal's chain checks fail with it. */
        volatile RuntimeException chainCheckFailure;

        @Override
        public Journal journal() {
            RuntimeException failure = chainCheckFailure;
            if (failure == null) {
                return replica;
            }
            return (Journal) java.lang.reflect.Proxy.newProxyInstance(Journal.class.getClassLoader(),
                    new Class<?>[] {Journal.class}, (proxy, method, args) -> {
                        if (method.getName().equals("checkChain")) {
                            return java.util.concurrent.CompletableFuture.failedFuture(failure);
                        }
                        try {
                            return method.invoke(replica, args);
                        } catch (java.lang.reflect.InvocationTargetException e) {
                            throw e.getCause();
                        }
                    });
        }

        @Override
        public ReplicationHub hub() {
            return hub;
        }

        /** False while a test has the auth bundle away. */
        volatile boolean authActive = true;

        @Override
        public NodeIdentity identity() {
            return authActive ? replicaAuth : null;
        }

        /** False while a test has the transport bundle away. */
        volatile boolean transportActive = true;

        @Override
        public FrameTransport transport() {
            if (!transportActive) {
                return null;
            }
            return new FrameTransport() {
                @Override
                public String name() {
                    return "embedded";
                }

                @Override
                public FrameListener listen(String bindAddress, int port, int maxFrame,
                        java.util.function.Supplier<FrameSession> sessions) {
                    throw new UnsupportedOperationException();
                }

                @Override
                public void connect(String host, int port, int maxFrame, int connectMillis, FrameSession session) {
                    connects.add(host + ":" + port + " max " + maxFrame);
                    peers.add(new Peer(session, maxFrame));
                }
            };
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
        public void epoch(long seen) {
            epoch = Math.max(epoch, seen);
        }

        @Override
        public ScheduledFuture<?> schedule(Runnable task, long delayMs) {
            return scheduler.schedule(task, delayMs);
        }

        /** The replica's checkpoint service, when a test gives it one. */
        volatile Checkpoints checkpoints;

        @Override
        public Checkpoints checkpoints() {
            return checkpoints;
        }
    }

    private Peer connect() {
        link = new ReplicaLink(node);
        link.start();
        assertThat(node.connects).containsExactly("127.0.0.1:7379 max " + MAX_FRAME);
        return peers.get(0);
    }

    /** Challenge → the replica's signed response (verified) → AuthOk → its Handshake. @return the Handshake */
    private byte[] authenticate(Peer p, boolean byteByByte) {
        byte[] nonce = new byte[32];
        RANDOM.nextBytes(nonce);
        p.feed(Challenge.frame(nonce), byteByByte);
        byte[] response = p.expect(Frames.TAG_CHALLENGE_RESPONSE);
        assertThat(response).hasSize(ChallengeResponse.LENGTH);
        ByteBuffer r = ByteBuffer.wrap(response).order(ByteOrder.LITTLE_ENDIAN);
        byte[] key = ChallengeResponse.publicKey(r);
        byte[] signature = ChallengeResponse.signature(r);
        assertThat(key).isEqualTo(replicaAuth.publicKey());
        assertThat(Ed25519.verify(signature, 0, key, 0, nonce, 0, nonce.length)).isTrue();
        assertThat(primaryAuth.verify(key, nonce, signature)).isEqualTo(ReplicaAuthorizer.Verdict.ALLOWED);
        assertThat(link.status().state()).isEqualTo("authenticating");
        p.feed(Signal.AUTH_OK.frame(), byteByByte);
        return p.expect(Frames.TAG_HANDSHAKE);
    }

    private byte[] streamStart(long start, long epoch, AckPolicy policy) {
        SegmentInfo first = primary.segments().get(0);
        return StreamStart.frame(start, first.startSequence(), first.anchor(), epoch, policy.wire(), false, 0,
                first.replicationOffset());
    }

    /** InputBatch frames of the primary's slots after {@code after}, {@code perFrame} slots each. */
    private byte[] batches(long after, int perFrame) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        SlotFramer framer = new SlotFramer(MAX_FRAME);
        int[] n = {0};
        for (Nodes.Slot s : Nodes.slots(primary, after)) {
            framer.add(s.sequence(), ByteBuffer.wrap(s.bytes()));
            if (++n[0] % perFrame == 0) {
                out.writeBytes(bytes(framer.finish()));
                framer.reset();
            }
        }
        if (!framer.isEmpty()) {
            out.writeBytes(bytes(framer.finish()));
        }
        return out.toByteArray();
    }

    private static byte[] bytes(ByteBuffer b) {
        byte[] a = new byte[b.remaining()];
        b.duplicate().get(a);
        return a;
    }

    /** A fresh replica, authenticated and streaming. */
    private Peer streaming(boolean byteByByte) {
        Peer p = connect();
        authenticate(p, byteByByte);
        p.feed(streamStart(0, 0, AckPolicy.DISK_RAM), byteByByte);
        Peer.await(() -> "streaming".equals(link.status().state()), "streaming");
        return p;
    }

    private static long[] ack(byte[] f) {
        ByteBuffer b = ByteBuffer.wrap(f).order(ByteOrder.LITTLE_ENDIAN);
        return new long[] {Ack.ackedSequence(b), Ack.inMemorySequence(b)};
    }

    /** Reads Acks until one acknowledges {@code sequence} durably; each keeps acked ≤ in-memory. */
    private static void awaitDurableAck(Peer p, long sequence) {
        while (true) {
            long[] a = ack(p.next(Frames.TAG_ACK));
            assertThat(a[0]).isLessThanOrEqualTo(a[1]);
            assertThat(a[1]).isLessThanOrEqualTo(sequence);
            if (a[0] == sequence) {
                return;
            }
        }
    }

    // ---- snapshots --------------------------------------------------------------------------------------------

    /** A snapshot as a primary sends it: the checkpoint stream of its store and the seed of its journal. */
    private record Snapshot(long sequence, byte[] chain, byte[] stream, byte[] seed) {
    }

    /** The primary's store applied from its journal, cut and streamed; the seed at that sequence. */
    private Snapshot primarySnapshot(StoreComponent primaryStore) throws Exception {
        Nodes.applyAll(primary, primaryStore);
        Checkpoints cps = Nodes.checkpoints(Nodes.home(root, "primary"), primaryStore);
        java.io.ByteArrayOutputStream stream = new java.io.ByteArrayOutputStream();
        long s;
        try (Checkpoints.Cut cut = cps.cut("replica")) {
            s = cut.appliedSequence();
            cut.send(OutgoingSnapshot.TRAILER_ID, 0, java.nio.channels.Channels.newChannel(stream));
        }
        java.io.ByteArrayOutputStream seed = new java.io.ByteArrayOutputStream();
        primary.writeSeed(s, java.nio.channels.Channels.newChannel(seed));
        return new Snapshot(s, primary.chainAt(s), stream.toByteArray(), seed.toByteArray());
    }

    /** SnapshotBegin, chunks, SnapshotEnd; SegmentSeedBegin, chunks, SnapshotEnd: as a primary frames them. */
    private static byte[] transfer(Snapshot snap, boolean corruptChunk, boolean wrongSeedCrc) {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        out.writeBytes(SnapshotBegin.frame(snap.stream.length, snap.sequence, snap.chain));
        out.writeBytes(body(snap.stream, corruptChunk, false));
        out.writeBytes(SegmentSeedBegin.frame(snap.seed.length));
        out.writeBytes(body(snap.seed, false, wrongSeedCrc));
        return out.toByteArray();
    }

    private static byte[] body(byte[] data, boolean corrupt, boolean wrongCrc) {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
        crc.update(data);
        for (int at = 0; at < data.length; at += 5000) {
            byte[] chunk = Arrays.copyOfRange(data, at, Math.min(data.length, at + 5000));
            if (corrupt && at == 5000) {
                chunk[17] ^= 0x10; // corrupted in transit: the CRC32C and the hash of hashes no longer hold
            }
            out.writeBytes(SnapshotChunk.frame(ByteBuffer.wrap(chunk)));
        }
        out.writeBytes(SnapshotEnd.frame((int) crc.getValue() + (wrongCrc ? 1 : 0)));
        return out.toByteArray();
    }

    private static byte[] streamStartOfSeed(byte[] seed, long start, long epoch) {
        ByteBuffer h = ByteBuffer.wrap(seed).order(ByteOrder.LITTLE_ENDIAN);
        tandem.protocol.journal.SegmentHeader header = new tandem.protocol.journal.SegmentHeader().wrap(h, 0);
        return StreamStart.frame(start, header.startingSequence(), header.anchor(), epoch, AckPolicy.DISK_RAM.wire(),
                false, 0, header.replicationOffset());
    }

    @ParameterizedTest(name = "byteByByte={0}")
    @ValueSource(booleans = {false, true})
    void aDivergedReplicaInstallsTheSnapshotStoreFirstThenTheSeedAndStreamsOnByteIdentical(boolean byteByByte)
            throws Exception {
        Nodes.append(replica, 40, "mine"); // a history of its own
        byte[] ownChain = replica.chainAt(40);
        long last = Nodes.append(primary, 300, "p");
        StoreComponent primaryStore = Nodes.store(Nodes.home(root, "primary"));
        StoreComponent replicaStore = Nodes.store(Nodes.home(root, "replica"));
        try {
            Snapshot snap = primarySnapshot(primaryStore);
            assertThat(snap.sequence).isEqualTo(last);
            hub.store = replicaStore;
            node.checkpoints = Nodes.checkpoints(Nodes.home(root, "replica"), replicaStore);
            Peer p = connect();
            ByteBuffer h = ByteBuffer.wrap(authenticate(p, false)).order(ByteOrder.LITTLE_ENDIAN);
            assertThat(Handshake.chainHash(h)).isEqualTo(ownChain);
            p.feed(Signal.HASH_MISMATCH.frame(), byteByByte);
            Peer.await(() -> "snapshot".equals(link.status().state()), "receiving a snapshot");
            p.feed(transfer(snap, false, false), byteByByte);
            Peer.await(() -> "snapshot-installed".equals(link.status().state()), "the snapshot installed");
            assertThat(replicaStore.digest()).isEqualTo(primaryStore.digest());
            assertThat(replicaStore.origin()).isEqualTo(new tandem.api.store.Keyspace.Origin(last, snap.chain));
            assertThat(replica.durableSequence()).isEqualTo(last);
            assertThat(replica.chainAt(last)).isEqualTo(primary.chainAt(last));
            assertThat(Files.exists(Path.of(replica.status().directory()).resolve("lineage.1/journal")))
                    .as("the diverged history is archived, never deleted").isTrue();
            assertThat(hub.events).contains("install " + last);

            p.feed(streamStartOfSeed(snap.seed, last, 0), byteByByte);
            Peer.await(() -> "streaming".equals(link.status().state()), "streaming");
            long more = Nodes.append(primary, 25, "q");
            p.feed(batches(last, 10), byteByByte);
            awaitDurableAck(p, more);
            assertThat(Files.readAllBytes(Path.of(replica.status().directory()).resolve("journal")))
                    .as("the live segment byte-identical to the primary's")
                    .isEqualTo(Arrays.copyOf(Files.readAllBytes(Path.of(primary.status().directory())
                            .resolve("journal")), (int) Files.size(Path.of(replica.status().directory())
                            .resolve("journal"))));
            assertThat(replica.chainAt(more)).isEqualTo(primary.chainAt(more));
            assertThat(link.snapshotsInstalled()).isEqualTo(1);
        } finally {
            Nodes.close(primaryStore);
            Nodes.close(replicaStore);
        }
    }

    @ParameterizedTest(name = "corruptChunk={0}")
    @ValueSource(booleans = {true, false})
    void aCorruptedTransferInstallsNothingAndLeavesNothingBehind(boolean corruptChunk) throws Exception {
        long mine = Nodes.append(replica, 10, "mine");
        byte[] ownChain = replica.chainAt(mine);
        Nodes.append(primary, 200, "p");
        StoreComponent primaryStore = Nodes.store(Nodes.home(root, "primary"));
        try {
            Snapshot snap = primarySnapshot(primaryStore);
            Checkpoints cps = Nodes.checkpoints(Nodes.home(root, "replica"), null);
            node.checkpoints = cps;
            Peer p = connect();
            authenticate(p, false);
            p.feed(Signal.NEED_SNAPSHOT.frame(), false);
            // a chunk corrupted in transit, or a seed whose SnapshotEnd does not match what arrived
            p.feed(transfer(snap, corruptChunk, !corruptChunk), false);
            p.awaitClosed();
            assertThat(link.status().state()).isEqualTo("snapshot-failed");
            assertThat(link.status().lastError()).contains(corruptChunk ? "checksum mismatch" : "CRC32C");
            assertThat(hub.installed).as("nothing installed").isEqualTo(-1);
            assertThat(replica.durableSequence()).isEqualTo(mine);
            assertThat(replica.chainAt(mine)).isEqualTo(ownChain);
            Path checkpointRoot = root.resolve("replica/data/checkpoint");
            assertThat(Files.exists(checkpointRoot.resolve("incoming"))).isFalse();
            assertThat(Files.exists(Path.of(replica.status().directory()).resolve("seed.incoming"))).isFalse();
            assertThat(scheduler.pending()).as("a new attempt follows").hasSize(1);
        } finally {
            Nodes.close(primaryStore);
        }
    }

    @Test
    void aFrameOutOfOrderDuringTheSnapshotEndsTheAttemptAndWithoutACheckpointServiceNoneStarts() throws Exception {
        node.checkpoints = Nodes.checkpoints(Nodes.home(root, "replica"), null);
        Peer p = connect();
        authenticate(p, false);
        p.feed(Signal.HASH_MISMATCH.frame(), false);
        p.feed(SegmentSeedBegin.frame(4096), false);
        p.awaitClosed();
        assertThat(link.status().lastError()).contains("expected SnapshotBegin, got SegmentSeedBegin");

        link.close();
        peers.clear();
        node.connects.clear();
        node.checkpoints = null;
        Peer q = connect();
        authenticate(q, false);
        q.feed(Signal.NEED_SNAPSHOT.frame(), false);
        q.awaitClosed();
        assertThat(link.status().state()).isEqualTo("needs-snapshot");
        assertThat(link.status().lastError()).contains("no checkpoint service is active");
    }

    // ---- authentication and handshake -------------------------------------------------------------------------

    @ParameterizedTest(name = "byteByByte={0}")
    @ValueSource(booleans = {false, true})
    void aFreshReplicaSignsTheChallengeAndHandsOverAnEmptyPosition(boolean byteByByte) {
        node.epoch = 3;
        Peer p = connect();
        byte[] hs = authenticate(p, byteByByte);
        assertThat(hs).hasSize(Handshake.LENGTH);
        ByteBuffer h = ByteBuffer.wrap(hs).order(ByteOrder.LITTLE_ENDIAN);
        assertThat(Handshake.lastSequence(h)).isZero();
        assertThat(Handshake.chainHash(h)).isEqualTo(ZEROS);
        assertThat(Handshake.epoch(h)).isEqualTo(3);
        assertThat(Handshake.protocolVersion(h)).isEqualTo(6);
        assertThat(link.status().state()).isEqualTo("handshaking");
        assertThat(p.names()).containsExactly("ChallengeResponse", "Handshake");
    }

    @ParameterizedTest(name = "byteByByte={0}")
    @ValueSource(booleans = {false, true})
    void aReplicaWithAJournalHandsOverItsDurablePositionAndChain(boolean byteByByte) throws Exception {
        long last = Nodes.append(replica, 12, "r");
        Peer p = connect();
        ByteBuffer h = ByteBuffer.wrap(authenticate(p, byteByByte)).order(ByteOrder.LITTLE_ENDIAN);
        assertThat(Handshake.lastSequence(h)).isEqualTo(last);
        assertThat(Handshake.chainHash(h)).isEqualTo(replica.chainAt(last));
    }

    @Test
    void aLinkThatStreamedIsRetriedAtOnceThenEveryTenMillisecondsForHalfASecondThenWithTheBackoff() {
        Peer p = streaming(false);
        p.close();
        Peer.await(() -> scheduler.pending().size() == 1, "the first reconnection");
        List<Long> delays = new ArrayList<>();
        for (int i = 0; i < ReplicaLink.QUICK_RETRIES + 3; i++) {
            ManualScheduler.Task attempt = scheduler.pending().get(0);
            delays.add(attempt.delayMs);
            attempt.run();
            peers.get(peers.size() - 1).close(); // the primary is not back yet: refused before streaming
            Peer.await(() -> scheduler.pending().size() == 1, "the next attempt");
        }
        assertThat(delays.get(0)).as("at once").isZero();
        assertThat(delays.subList(1, 1 + ReplicaLink.QUICK_RETRIES)).containsOnly(ReplicaLink.QUICK_RETRY_MS);
        assertThat(delays.subList(1 + ReplicaLink.QUICK_RETRIES, delays.size())).containsExactly(25L, 50L);
    }

    @ParameterizedTest(name = "byteByByte={0}")
    @ValueSource(booleans = {false, true})
    void theReplicaTakesThePsyncIdOfTheHistoryItsPrimaryStreamsAndDropsItBeforeASnapshot(boolean byteByByte) {
        byte[] id = new byte[StreamStart.PSYNC_ID_LENGTH];
        java.util.Arrays.fill(id, (byte) 0xab);
        SegmentInfo first = primary.segments().get(0);
        Peer p = connect();
        authenticate(p, byteByByte);
        p.feed(StreamStart.frame(0, first.startSequence(), first.anchor(), 0, AckPolicy.DISK_RAM.wire(), false, 0,
                first.replicationOffset(), id), byteByByte);
        Peer.await(() -> "streaming".equals(link.status().state()), "streaming");
        p.close();
        Peer.await(() -> scheduler.pending().size() == 1, "the reconnection");
        scheduler.pending().get(0).run();
        Peer q = peers.get(peers.size() - 1);
        authenticate(q, byteByByte);
        q.feed(streamStart(0, 0, AckPolicy.DISK_RAM), byteByByte); // a primary of an earlier version: no id
        Peer.await(() -> node.histories.size() == 2, "the second StreamStart");
        q.close();
        Peer.await(() -> scheduler.pending().size() == 1, "the second reconnection");
        node.checkpoints = Nodes.checkpoints(Nodes.home(root, "replica"), null);
        scheduler.pending().get(0).run();
        Peer r = peers.get(peers.size() - 1);
        authenticate(r, byteByByte);
        r.feed(Signal.HASH_MISMATCH.frame(), byteByByte);
        r.feed(SegmentSeedBegin.frame(4096), byteByByte); // out of order: the attempt ends, the journal untouched
        r.awaitClosed();
        assertThat(node.histories).containsExactly("ab".repeat(20), "none", "none");
    }

    @Test
    void withoutATransportTheLinkRetriesAndOneThatArrivesIsUsedAtOnce() {
        node.transportActive = false;
        link = new ReplicaLink(node);
        link.start();
        assertThat(node.connects).isEmpty();
        assertThat(link.status().lastError()).contains("no replication transport is active");
        assertThat(scheduler.pending()).hasSize(1);
        node.transportActive = true;
        link.transportChanged();
        assertThat(node.connects).hasSize(1);
        assertThat(scheduler.pending()).as("the retry was cancelled; what is left is the handshake's timeout")
                .extracting(t -> t.delayMs).containsExactly((long) node.settings.handshakeTimeoutMs());
    }

    @Test
    void aStreamingLinkMovesToANewTransportAtOnce() {
        Peer p = streaming(false);
        link.transportChanged();
        p.awaitClosed();
        assertThat(p.closedReason()).contains("the replication transport changed");
        Peer.await(() -> scheduler.pending().size() == 1, "the reconnection");
        assertThat(scheduler.pending().get(0).delayMs).as("at once").isZero();
    }

    @Test
    void withoutAKeyToAnswerWithTheLinkClosesAndIsRetried() {
        node.authActive = false; // the auth bundle being updated
        Peer p = connect();
        p.feed(Challenge.frame(new byte[32]), false);
        p.awaitClosed();
        assertThat(p.names()).as("nothing signed").isEmpty();
        assertThat(p.closedReason()).contains("tandem.auth is not active");
        assertThat(link.status().state()).isEqualTo("disconnected");
        assertThat(scheduler.pending()).hasSize(1); // the reconnection, with backoff
    }

    @ParameterizedTest(name = "byteByByte={0}")
    @ValueSource(booleans = {false, true})
    void authFailedLeavesTheLinkRefusedWithTheLineToAuthorize(boolean byteByByte) {
        Peer p = connect();
        p.feed(Challenge.frame(new byte[32]), byteByByte);
        p.expect(Frames.TAG_CHALLENGE_RESPONSE);
        p.feed(Signal.AUTH_FAILED.frame(), byteByByte);
        p.awaitClosed();
        assertThat(link.status().state()).isEqualTo("refused");
        String[] line = replicaAuth.authorizedKeysLine().split(" ", 3);
        assertThat(link.status().lastError()).contains("auth:allow replication \"" + line[1] + "\" " + line[2]);
        assertThat(p.names()).containsExactly("ChallengeResponse");
        assertThat(scheduler.pending()).hasSize(1); // the reconnection, with backoff
    }

    @ParameterizedTest(name = "byteByByte={0}")
    @ValueSource(booleans = {false, true})
    void aStreamStartFromALowerEpochIsRefused(boolean byteByByte) {
        node.epoch = 5;
        Peer p = connect();
        authenticate(p, byteByByte);
        p.feed(streamStart(0, 3, AckPolicy.DISK), byteByByte);
        p.awaitClosed();
        assertThat(p.closedReason()).isEqualTo("stale primary");
        assertThat(link.status().state()).isEqualTo("refused");
        assertThat(link.status().lastError()).contains("epoch 3").contains("5");
        assertThat(node.epoch).isEqualTo(5);
    }

    @ParameterizedTest(name = "byteByByte={0}")
    @ValueSource(booleans = {false, true})
    void garbageBeforeStreamingClosesTheLink(boolean byteByByte) {
        Peer p = connect();
        byte[] random = new byte[512];
        new java.util.Random(7).nextBytes(random);
        p.feed(random, byteByByte);
        p.awaitClosed();
        assertThat(p.closedReason()).isNotBlank();
        assertThat(p.frames()).isEmpty();
        assertThat(link.status().state()).isEqualTo("disconnected");
        assertThat(link.status().lastError()).isEqualTo(p.closedReason());
    }

    @ParameterizedTest(name = "byteByByte={0}")
    @ValueSource(booleans = {false, true})
    void aControlFrameOverTheControlLimitBeforeStreamingClosesTheLink(boolean byteByByte) {
        Peer p = connect();
        byte[] challenge = Challenge.frame(new byte[32]);
        byte[] padded = new byte[4 + Frames.MAX_CONTROL_FRAME + 1];
        System.arraycopy(challenge, 0, padded, 0, challenge.length);
        java.nio.ByteBuffer.wrap(padded).order(java.nio.ByteOrder.LITTLE_ENDIAN).putInt(0, Frames.MAX_CONTROL_FRAME + 1);
        p.feed(padded, byteByByte);
        p.awaitClosed();
        assertThat(p.closedReason()).contains("257-byte Challenge frame before the stream started");
        assertThat(p.frames()).as("no signature for an oversized challenge").isEmpty();
    }

    // ---- streaming --------------------------------------------------------------------------------------------

    @ParameterizedTest(name = "byteByByte={0}")
    @ValueSource(booleans = {false, true})
    void streamedEntriesAreJournaledByteIdenticalAndAcknowledgedOnBothTracks(boolean byteByByte) throws Exception {
        long last = Nodes.append(primary, 200, "p");
        node.epoch = 0;
        Peer p = connect();
        authenticate(p, byteByByte);
        p.feed(streamStart(0, 2, AckPolicy.DISK_RAM), byteByByte);
        Peer.await(() -> "streaming".equals(link.status().state()), "streaming");
        assertThat(node.epoch).isEqualTo(2);
        assertThat(link.primaryPolicy()).isEqualTo(AckPolicy.DISK_RAM);
        // the fresh journal took the primary's first segment identity
        SegmentInfo mine = replica.segments().get(0);
        SegmentInfo theirs = primary.segments().get(0);
        assertThat(mine.startSequence()).isEqualTo(theirs.startSequence());
        assertThat(mine.anchor()).isEqualTo(theirs.anchor());
        assertThat(mine.replicationOffset()).isEqualTo(theirs.replicationOffset());

        p.feed(batches(0, 37), byteByByte);
        Peer.await(() -> replica.lastSequence() == last, "the replica's journal to reach " + last);
        awaitDurableAck(p, last);
        assertThat(hub.appended).isEqualTo(last);
        assertThat(hub.events).contains("appended " + last);
        assertThat(Nodes.slots(replica, 0)).containsExactlyElementsOf(Nodes.slots(primary, 0));
        assertThat(replica.chainAt(last)).isEqualTo(primary.chainAt(last));
        byte[] replicaFile = Files.readAllBytes(root.resolve("replica/data/journal").resolve(mine.name()));
        byte[] primaryFile = Files.readAllBytes(root.resolve("primary/data/journal").resolve(theirs.name()));
        assertThat(replicaFile).isEqualTo(primaryFile);
        assertThat(link.status().received()).isEqualTo(last);
        Peer.await(() -> link.status().acked() == last, "acked in status");
        assertThat(p.isOpen()).isTrue();
    }

    @ParameterizedTest(name = "byteByByte={0}")
    @ValueSource(booleans = {false, true})
    void entriesSentAgainAreSkippedAndTheStreamGoesOn(boolean byteByByte) throws Exception {
        long first = Nodes.append(primary, 10, "a");
        Peer p = streaming(byteByByte);
        byte[] batch = batches(0, 4);
        p.feed(batch, byteByByte);
        Peer.await(() -> replica.lastSequence() == first, "the first entries");
        p.feed(batch, byteByByte); // a reconnection may send them again
        long last = Nodes.append(primary, 5, "b");
        p.feed(batches(first - 3, 100), byteByByte); // overlapping
        Peer.await(() -> replica.lastSequence() == last, "the next entries");
        replica.awaitDurable(last);
        assertThat(Nodes.slots(replica, 0)).containsExactlyElementsOf(Nodes.slots(primary, 0));
        Peer.await(() -> hub.appended == last, "the pipeline told that everything is durable");
        awaitDurableAck(p, last);
        assertThat(p.isOpen()).isTrue();
    }

    @ParameterizedTest(name = "byteByByte={0}")
    @ValueSource(booleans = {false, true})
    void aSequenceGapClosesTheLink(boolean byteByByte) throws Exception {
        Nodes.append(primary, 10, "a");
        Peer p = streaming(byteByByte);
        p.feed(batches(0, 100), byteByByte);
        Peer.await(() -> replica.lastSequence() == 10, "the first entries");
        Nodes.append(primary, 5, "b");
        p.feed(batches(11, 100), byteByByte); // 12.. : 11 is missing
        p.awaitClosed();
        assertThat(p.closedReason()).isEqualTo("sequence gap: expected 11, got 12");
        assertThat(replica.lastSequence()).isEqualTo(10);
        assertThat(link.status().state()).isEqualTo("disconnected");
        assertThat(link.status().lastError()).contains("sequence gap");
    }

    @ParameterizedTest(name = "byteByByte={0}")
    @ValueSource(booleans = {false, true})
    void aRotateWithTheRightTailRotatesAndAWrongOneReportsDivergence(boolean byteByByte) throws Exception {
        long last = Nodes.append(primary, 8, "a");
        primary.rotate();
        byte[] tail = primary.segments().get(1).anchor();
        Peer p = streaming(byteByByte);
        p.feed(batches(0, 100), byteByByte);
        Peer.await(() -> replica.lastSequence() == last, "the entries");
        p.feed(Rotate.frame(last, tail), byteByByte);
        Peer.await(() -> replica.segments().size() == 2, "the rotation");
        assertThat(replica.segments().get(1).startSequence()).isEqualTo(last + 1);
        assertThat(replica.segments().get(1).anchor()).isEqualTo(tail);
        assertThat(p.isOpen()).isTrue();

        long next = Nodes.append(primary, 3, "b");
        p.feed(batches(last, 100), byteByByte);
        Peer.await(() -> replica.lastSequence() == next, "the next entries");
        byte[] wrong = primary.chainAt(next).clone();
        wrong[0] ^= 1;
        p.feed(Rotate.frame(next, wrong), byteByByte);
        p.awaitClosed();
        assertThat(link.status().state()).isEqualTo("diverged");
        assertThat(link.status().lastError()).startsWith("this node's journal diverged from the primary's");
        assertThat(replica.segments()).hasSize(2);
    }

    /**
     * A ChainCheck is compared with this replica's chain at its sequence when that is exactly where the replica is:
     * a match goes on, one at another sequence is not compared, and a mismatch ends the session as a divergence.
     * The replica's journal is left as it is, and the next Handshake tells it as it is (its own chain, neither the
     * value the primary sent nor an inverted one as after a genesis mismatch): the primary's comparison then fails
     * and it answers HashMismatch.
     */
    @Test
    void aChainCheckThatCannotBeComparedIsCountedAndTheStreamGoesOn() throws Exception {
        long first = Nodes.append(primary, 6, "a");
        node.chainCheckFailure = new IllegalStateException("sequence 6 cannot be checked: not durable or not retained");
        Peer p = streaming(false);
        p.feed(batches(0, 100), false);
        awaitDurableAck(p, first);
        p.feed(ChainCheck.frame(first, primary.chainAt(first)), false);
        Peer.await(() -> link.chainChecksSkipped() == 1, "the skipped check counted");
        long last = Nodes.append(primary, 3, "b");
        p.feed(batches(first, 100), false);
        awaitDurableAck(p, last);
        assertThat(p.isOpen()).isTrue();
        assertThat(link.status().state()).isEqualTo("streaming");
    }

    @ParameterizedTest(name = "byteByByte={0}")
    @ValueSource(booleans = {false, true})
    void aChainCheckThatDoesNotMatchEndsTheSessionAndTheNextHandshakeTellsTheHistoryAsItIs(boolean byteByByte)
            throws Exception {
        long first = Nodes.append(primary, 6, "a");
        Peer p = streaming(byteByByte);
        p.feed(batches(0, 100), byteByByte);
        awaitDurableAck(p, first);
        byte[] wrongAtFirst = primary.chainAt(first).clone();
        wrongAtFirst[0] ^= 1;
        p.feed(ChainCheck.frame(first, primary.chainAt(first)), byteByByte);
        p.feed(ChainCheck.frame(first - 1, wrongAtFirst), byteByByte); // not where this replica is: not compared
        long last = Nodes.append(primary, 3, "b");
        p.feed(batches(first, 100), byteByByte);
        awaitDurableAck(p, last);
        assertThat(p.isOpen()).isTrue();
        byte[] ours = replica.chainAt(last);
        assertThat(ours).isEqualTo(primary.chainAt(last));
        byte[] wrong = ours.clone();
        wrong[0] ^= 1;

        p.feed(ChainCheck.frame(last, wrong), byteByByte);
        p.awaitClosed();
        assertThat(p.closedReason()).as("the earlier ChainChecks went on").contains("chain mismatch at sequence "
                + last);
        assertThat(link.status().state()).isEqualTo("diverged");
        assertThat(link.status().lastError()).isEqualTo("this node's journal diverged from the primary's: chain "
                + "mismatch at sequence " + last);
        assertThat(replica.durableSequence()).as("its journal is untouched").isEqualTo(last);

        scheduler.runPending();
        ByteBuffer h = ByteBuffer.wrap(authenticate(peers.get(1), byteByByte)).order(ByteOrder.LITTLE_ENDIAN);
        assertThat(Handshake.lastSequence(h)).isEqualTo(last);
        assertThat(Handshake.chainHash(h)).isEqualTo(ours).isNotEqualTo(wrong);
    }

    @ParameterizedTest(name = "byteByByte={0}")
    @ValueSource(booleans = {false, true})
    void aRotateAheadOfTheStreamClosesTheLink(boolean byteByByte) throws Exception {
        Peer p = streaming(byteByByte);
        p.feed(Rotate.frame(5, ZEROS), byteByByte);
        p.awaitClosed();
        assertThat(p.closedReason()).isEqualTo("rotation announced after 5 but this node is at 0");
    }

    @ParameterizedTest(name = "byteByByte={0}")
    @ValueSource(booleans = {false, true})
    void aHeartbeatUpdatesThePolicyThePrimaryAnnouncedAndIsAcknowledged(boolean byteByByte) {
        Peer p = streaming(byteByByte);
        assertThat(link.primaryPolicy()).isEqualTo(AckPolicy.DISK_RAM);
        p.feed(Heartbeat.frame(0, AckPolicy.TWO_DISKS.wire()), byteByByte);
        Peer.await(() -> link.primaryPolicy() == AckPolicy.TWO_DISKS, "the new policy");
        p.feed(Heartbeat.frame(0, (byte) 0x7f), byteByByte); // unknown: kept
        p.feed(Heartbeat.frame(0, AckPolicy.RAM.wire()), byteByByte);
        Peer.await(() -> link.primaryPolicy() == AckPolicy.RAM, "the next policy");
        assertThat(p.isOpen()).isTrue();
        // an idle stream is acknowledged too (the primary's quorum fence reads liveness from acks): each heartbeat
        // gets an Ack of what this replica holds, nothing here
        Peer.await(() -> p.frames().stream().filter(f -> f[0] == Frames.TAG_ACK).count() == 3, "three acks");
        assertThat(p.frames()).filteredOn(f -> f[0] == Frames.TAG_ACK).allSatisfy(f -> {
            ByteBuffer ack = ByteBuffer.wrap(f).order(ByteOrder.LITTLE_ENDIAN);
            assertThat(Ack.ackedSequence(ack)).isZero();
            assertThat(Ack.inMemorySequence(ack)).isZero();
        });
    }

    @ParameterizedTest(name = "byteByByte={0}")
    @ValueSource(booleans = {false, true})
    void aMalformedBatchClosesTheLink(boolean byteByByte) throws Exception {
        Nodes.append(primary, 3, "a");
        Peer p = streaming(byteByByte);
        byte[] batch = batches(0, 100);
        // declare one slot more than the frame carries
        ByteBuffer b = ByteBuffer.wrap(batch).order(ByteOrder.LITTLE_ENDIAN);
        b.putShort(4 + InputBatch.COUNT_OFFSET, (short) (b.getShort(4 + InputBatch.COUNT_OFFSET) + 1));
        p.feed(batch, byteByByte);
        p.awaitClosed();
        assertThat(p.closedReason()).contains("InputBatch slot 3");
    }

    @Test
    void closingStopsTheLinkAndItsReconnections() {
        Peer p = streaming(false);
        link.close();
        p.awaitClosed();
        assertThat(p.closedReason()).isEqualTo("replication stopped");
        scheduler.runPending();
        assertThat(node.connects).hasSize(1);
        link = null;
    }

    @Test
    void aLostLinkReconnects() {
        Peer p = streaming(false);
        p.link().close("peer went away");
        p.awaitClosed();
        assertThat(link.status().state()).isEqualTo("disconnected");
        scheduler.runPending();
        assertThat(node.connects).hasSize(2);
        assertThat(peers).hasSize(2);
        assertThat(link.status().state()).isEqualTo("authenticating");
        List<String> names = new ArrayList<>(peers.get(1).names());
        assertThat(names).isEmpty();
        assertThat(Arrays.asList(p.isOpen(), peers.get(1).isOpen())).containsExactly(false, true);
    }

    @Test
    void aGenesisOfAnotherLengthAsksForASnapshotWithAChainThatCannotMatch() throws Exception {
        Nodes.append(replica, 10, "g");
        replica.rotate(); // the replica's genesis segment, sealed with 10 entries
        long last = Nodes.append(replica, 2, "h");
        byte[] chain = replica.chainAt(last);
        Peer p = connect();
        authenticate(p, false);
        SegmentInfo first = replica.segments().get(0);
        p.feed(StreamStart.frame(last, first.startSequence(), first.anchor(), 0, AckPolicy.DISK.wire(), true, 7,
                first.replicationOffset()), false);
        p.awaitClosed();
        assertThat(p.closedReason()).isEqualTo("genesis mismatch");
        assertThat(link.status().lastError()).contains("holds 7 entries, this node's 10").contains("asking for");

        scheduler.runPending();
        ByteBuffer h = ByteBuffer.wrap(authenticate(peers.get(1), false)).order(ByteOrder.LITTLE_ENDIAN);
        assertThat(Handshake.lastSequence(h)).isEqualTo(last);
        byte[] claimed = Handshake.chainHash(h);
        for (int i = 0; i < chain.length; i++) {
            assertThat(claimed[i]).isEqualTo((byte) ~chain[i]);
        }
        assertThat(replica.durableSequence()).as("its journal is untouched until a snapshot replaces it")
                .isEqualTo(last);
    }
}
