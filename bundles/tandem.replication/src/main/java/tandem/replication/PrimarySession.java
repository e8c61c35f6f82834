package tandem.replication;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.nio.ByteBuffer;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.concurrent.ScheduledFuture;

import org.HdrHistogram.Histogram;

import tandem.api.auth.ReplicaAuthorizer;
import tandem.api.checkpoint.Checkpoints;
import tandem.api.journal.JournalReader;
import tandem.api.replication.ReplicationHub;
import tandem.api.replication.ReplicationStatus;
import tandem.api.transport.FrameLink;
import tandem.api.transport.FrameSession;
import tandem.protocol.replication.Ack;
import tandem.protocol.replication.Challenge;
import tandem.protocol.replication.ChallengeResponse;
import tandem.protocol.replication.FrameException;
import tandem.protocol.replication.Frames;
import tandem.protocol.replication.Handshake;
import tandem.protocol.replication.Signal;

/**
 * The primary's side of one replica connection, on the transport's thread: the handshake (Challenge, the signed
 * response, the Handshake), then the replica's Acks. Once the handshake is done, a {@link PrimarySender} streams to
 * the replica on a thread of its own; the session keeps what the replica acknowledged and ends both.
 */
final class PrimarySession implements FrameSession {

    private static final Logger LOG = System.getLogger("tandem.replication");
    private static final SecureRandom RANDOM = new SecureRandom();

    enum State { AUTHENTICATING, HANDSHAKING, CATCHING_UP, STREAMING, CLOSED }

    private final PrimaryContext node;
    private final byte[] nonce = new byte[Frames.HASH_LENGTH];
    private final AckRoundTrip ackRoundTrip = new AckRoundTrip();
    private volatile State state = State.AUTHENTICATING;
    private volatile FrameLink link;
    private volatile String id = "";
    private volatile long inMemory;
    private volatile long acked;
    private volatile long lastAckNanos;
    private volatile ReplicationHub.ReplicaSlot slot;
    private volatile PrimarySender sender;
    private ScheduledFuture<?> handshakeTimeout;

    /** What a session needs from the component. */
    interface PrimaryContext {
        JournalReader journal();

        ReplicationHub hub();

        ReplicaAuthorizer authorizer();

        ReplicationSettings settings();

        long epoch();

        Fanout fanout();

        /** @return the checkpoint service, or null while none is active */
        Checkpoints checkpoints();

        /** @return true when the key is new to the registry (persisted before this returns) */
        boolean register(String id);

        /** Closes any other session of the same replica: a reconnection replaces its stale predecessor. */
        void replaceOthers(PrimarySession session);

        void ended(PrimarySession session);

        /** A snapshot (checkpoint and segment seed) is about to be sent to a replica: a full sync, counted. */
        default void snapshotSent() {
        }

        /**
         * The restart fence: a replica showed its position, ahead of this journal or not.
         *
         * @return false when this primary is fenced and the replica is ahead: it is sent nothing (no HashMismatch
         *         that would make it discard what it holds) and the fence names it
         */
        boolean shown(String id, String address, long replicaLast, boolean ahead);

        /** A replica has seen a higher epoch than this primary's: another node was promoted after this one. */
        void superseded(String id, String address, long replicaEpoch);

        ScheduledFuture<?> schedule(Runnable task, long delayMs);

        /**
         * @return this node's psync id as StreamStart carries it ({@link tandem.protocol.replication.StreamStart
         *         #PSYNC_ID_LENGTH} bytes), or null when the psync protocol is not active or names no id
         */
        default byte[] psyncId() {
            return null;
        }
    }

    PrimarySession(PrimaryContext node) {
        this.node = node;
    }

    /** @return the ack round trips measured since the last call */
    Histogram ackRoundTrips() {
        return ackRoundTrip.interval();
    }

    /** @return the replica's key (base64) once it authenticated, else empty */
    String id() {
        return id;
    }

    State state() {
        return state;
    }

    @Override
    public void opened(FrameLink l) {
        this.link = l;
        RANDOM.nextBytes(nonce);
        l.send(ByteBuffer.wrap(Challenge.frame(nonce)));
        handshakeTimeout = node.schedule(() -> {
            if (state == State.AUTHENTICATING || state == State.HANDSHAKING) {
                l.close("no " + (state == State.AUTHENTICATING ? "challenge response" : "handshake") + " within "
                        + node.settings().handshakeTimeoutMs() + " ms");
            }
        }, node.settings().handshakeTimeoutMs());
    }

    @Override
    public void frame(ByteBuffer payload) {
        byte tag = Frames.tag(payload);
        if (payload.remaining() > Frames.MAX_CONTROL_FRAME && state != State.CLOSED) {
            // a replica sends control frames only: auth, handshake and acks are all within this limit
            throw new FrameException("a " + payload.remaining() + "-byte " + Frames.name(tag)
                    + " frame from a replica (the limit is " + Frames.MAX_CONTROL_FRAME + ")");
        }
        switch (state) {
            case AUTHENTICATING -> authenticate(payload, tag);
            case HANDSHAKING -> handshake(payload, tag);
            case CATCHING_UP, STREAMING -> {
                if (tag == Frames.TAG_ACK) {
                    ack(payload);
                }
                // other replica frames after the handshake are ignored, as the spec's primary does
            }
            default -> {
            }
        }
    }

    private void authenticate(ByteBuffer p, byte tag) {
        if (tag != Frames.TAG_CHALLENGE_RESPONSE) {
            throw new FrameException("expected ChallengeResponse before anything else, got " + Frames.name(tag));
        }
        ChallengeResponse.check(p);
        byte[] key = ChallengeResponse.publicKey(p);
        ReplicaAuthorizer authorizer = node.authorizer();
        if (authorizer == null) {
            // not AuthFailed: the key is not refused, it cannot be checked now; the replica retries
            link.close("no replica authorizer: tandem.auth is not active");
            return;
        }
        ReplicaAuthorizer.Verdict verdict = authorizer.verify(key, nonce, ChallengeResponse.signature(p));
        String keyText = Base64.getEncoder().encodeToString(key);
        if (verdict != ReplicaAuthorizer.Verdict.ALLOWED) {
            link.send(ByteBuffer.wrap(Signal.AUTH_FAILED.frame()));
            LOG.log(Level.WARNING, "replica {0} with key {1} refused: {2}", link.remoteAddress(), keyText, verdict);
            link.close("authentication failed: " + verdict);
            return;
        }
        id = keyText;
        state = State.HANDSHAKING;
        link.send(ByteBuffer.wrap(Signal.AUTH_OK.frame()));
    }

    private void handshake(ByteBuffer p, byte tag) {
        if (tag != Frames.TAG_HANDSHAKE) {
            throw new FrameException("expected Handshake after AuthOk, got " + Frames.name(tag));
        }
        Handshake.check(p);
        int version = Handshake.protocolVersion(p);
        if (version != Frames.PROTOCOL_VERSION) {
            LOG.log(Level.WARNING, "replica {0} speaks protocol version {1}, this primary {2}: refused",
                    link.remoteAddress(), version, Frames.PROTOCOL_VERSION);
            link.close("protocol version " + version + ", the primary speaks " + Frames.PROTOCOL_VERSION);
            return;
        }
        long replicaEpoch = Handshake.epoch(p);
        if (replicaEpoch > node.epoch()) {
            LOG.log(Level.ERROR, "replica {0} has seen epoch {1}, this primary is at {2}: another node was promoted "
                    + "after this one; refusing it", link.remoteAddress(), replicaEpoch, node.epoch());
            node.superseded(id, link.remoteAddress(), replicaEpoch);
            link.close("the replica's epoch " + replicaEpoch + " is above this primary's " + node.epoch());
            return;
        }
        if (node.hub().upstream() != null) {
            LOG.log(Level.WARNING, "replica {0} ({1}) refused: this node follows {2} itself", link.remoteAddress(), id,
                    node.hub().upstream());
            link.close("this node is a replica of " + node.hub().upstream() + ": no chained replication");
            return;
        }
        node.replaceOthers(this);
        ReplicationHub.ReplicaSlot s = node.hub().attach(id, "journal", link.remoteAddress());
        if (s == null) {
            LOG.log(Level.WARNING, "replica {0} ({1}) refused: this primary already serves {2} replicas",
                    link.remoteAddress(), id, ReplicationHub.MAX_REPLICAS);
            link.close("the primary already serves " + ReplicationHub.MAX_REPLICAS + " replicas");
            return;
        }
        slot = s;
        handshakeTimeout.cancel(false);
        state = State.CATCHING_UP;
        PrimarySender out = new PrimarySender(this, node, link, Handshake.lastSequence(p), Handshake.chainHash(p));
        sender = out;
        out.start();
    }

    private void ack(ByteBuffer p) {
        Ack.check(p);
        long a = Ack.ackedSequence(p);
        long m = Ack.inMemorySequence(p);
        PrimarySender s = sender;
        long sent = s == null ? 0 : s.sentHighWater();
        if (m > sent || a > m) {
            LOG.log(Level.ERROR, "replica {0} evicted: its ack claims in-memory {1} and durable {2} but it was sent "
                    + "up to {3}", id, m, a, sent);
            link.close("ack beyond what was sent (in-memory " + m + ", durable " + a + ", sent " + sent + ")");
            return;
        }
        inMemory = Math.max(inMemory, m);
        acked = Math.max(acked, a);
        lastAckNanos = System.nanoTime();
        ackRoundTrip.acknowledged(m);
        ReplicationHub.ReplicaSlot replica = slot;
        if (replica != null) {
            replica.ack(m, a);
        }
    }

    @Override
    public void writable() {
        PrimarySender s = sender;
        if (s != null) {
            s.writable();
        }
    }

    @Override
    public void closed(String reason) {
        teardown(reason);
    }

    /** Releases everything the session holds, once, whichever of the link or the component ends it first. */
    private void teardown(String reason) {
        State was;
        synchronized (this) {
            was = state;
            if (was == State.CLOSED) {
                return;
            }
            state = State.CLOSED;
        }
        if (handshakeTimeout != null) {
            handshakeTimeout.cancel(false);
        }
        PrimarySender s = sender;
        if (s != null) {
            s.stop();
        }
        ReplicationHub.ReplicaSlot replica = slot;
        if (replica != null) {
            replica.detach();
        }
        if (was == State.STREAMING || was == State.CATCHING_UP) {
            LOG.log(Level.INFO, "replica {0} ({1}) disconnected at sequence {2}: {3}", id, remote(),
                    s == null ? 0 : s.sentHighWater(), reason);
        } else {
            LOG.log(Level.INFO, "replica connection {0} closed before streaming: {1}", remote(), reason);
        }
        node.ended(this);
    }

    void close(String reason) {
        FrameLink l = link;
        if (l != null) {
            l.close(reason);
        }
    }

    /**
     * The component is stopping: closes the link and releases the replica's slot now, without waiting for the
     * transport to report the close (a transport that is stopping too may never report it).
     */
    void shutdown(String reason) {
        close(reason);
        teardown(reason);
    }

    String remote() {
        FrameLink l = link;
        return l == null ? "?" : l.remoteAddress();
    }

    ReplicationStatus.Replica status(long lastSequence) {
        long since = lastAckNanos == 0 ? -1 : (System.nanoTime() - lastAckNanos) / 1_000_000;
        String s = switch (state) {
            case AUTHENTICATING, HANDSHAKING -> "connecting";
            case CATCHING_UP -> "catching-up";
            case STREAMING -> "streaming";
            case CLOSED -> "disconnected";
        };
        PrimarySender out = sender;
        ReplicationStatus.Transfer t = out == null ? null : out.transfer();
        return new ReplicationStatus.Replica(id, remote(), t != null ? "snapshot" : s,
                out == null ? 0 : out.sentHighWater(), inMemory, acked, Math.max(0, lastSequence - acked), since, t);
    }

    // ---- what the sender reports ------------------------------------------------------------------------------

    boolean isClosed() {
        return state == State.CLOSED;
    }

    /** The replica starts from {@code last}: what it holds, as its handshake said or a snapshot made it. */
    void startsAt(long last) {
        slot.seed(last);
        inMemory = last;
        acked = last;
    }

    /** The catch-up is done: the live stream follows. */
    void streaming() {
        state = State.STREAMING;
    }

    /** A live batch ending at {@code last} went to the transport now. */
    void sent(long last) {
        ackRoundTrip.sent(last);
    }
}
