package tandem.failover;

import java.io.File;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicBoolean;

import org.apache.ratis.client.RaftClient;
import org.apache.ratis.client.RaftClientConfigKeys;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.conf.Parameters;
import org.apache.ratis.grpc.GrpcConfigKeys;
import org.apache.ratis.grpc.GrpcTlsConfig;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.retry.RetryPolicies;
import org.apache.ratis.server.DivisionInfo;
import org.apache.ratis.server.RaftConfiguration;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.RaftServerConfigKeys;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.util.TimeDuration;

import tandem.api.tls.TlsMaterial;

/**
 * This node's Raft peer in the group and its client, over gRPC on the configured address. Ratis loads its
 * implementation classes by name through the thread context class loader it first sees, so every call that may be
 * Ratis' first runs with the Ratis bundle's loader as that (research/ratis.md, §3).
 */
final class GroupPeer implements AutoCloseable {

    private final RaftGroup group;
    private final RaftServer server;
    /** Ratis' non-string settings: the TLS configuration, when the group's traffic is TLS. */
    private final Parameters parameters;
    private final RaftProperties properties;
    /** How long an entry may take to commit before the next tick tries again with a fresh client. */
    private final long appendTimeoutMs;
    private volatile Client client;

    /** The leader appender's waits after failures: 1 ms ×10, 100 ms ×100, then 500 ms (Ratis' own syntax). */
    static final String APPENDER_RETRIES = "1ms,10, 100ms,100, 500ms,100000";

    /**
     * A Ratis client, built for the configuration and the leader this peer knew when it was made; {@code failed} once
     * a request through it failed.
     */
    private record Client(RaftClient raft, RaftConfiguration conf, RaftPeerId leader, AtomicBoolean failed) {
    }

    /** @param tls the node's TLS material when the group's traffic is TLS, else null */
    GroupPeer(FailoverSettings s, GroupMachine machine, TlsMaterial tls) throws IOException {
        List<RaftPeer> peers = new ArrayList<>();
        s.peers().forEach((id, address) -> peers.add(RaftPeer.newBuilder().setId(id).setAddress(address).build()));
        RaftGroupId gid = RaftGroupId.valueOf(UUID.nameUUIDFromBytes(("tandem.failover:" + s.group())
                .getBytes(StandardCharsets.UTF_8)));
        this.group = RaftGroup.valueOf(gid, peers);
        RaftProperties p = properties(s);
        this.properties = p;
        this.parameters = new Parameters();
        if (tls != null) {
            // the managers follow tandem.tls, so a rotated certificate serves the next handshake; mutual: each
            // member's certificate must chain to the cluster's CA
            GrpcTlsConfig conf = new GrpcTlsConfig(tls.keyManager(), tls.trustManager(), true);
            GrpcConfigKeys.Server.setTlsConf(parameters, conf);
            GrpcConfigKeys.Client.setTlsConf(parameters, conf);
            GrpcConfigKeys.Admin.setTlsConf(parameters, conf);
        }
        // a node joining a running group starts with no members: Ratis tells a candidate its peers do not know to
        // shut down, and a joiner formatted with the new membership would stand for election before it is added.
        // The leader's appends bring the membership; a formatted storage recovers it from the log either way
        boolean fresh = !Files.isDirectory(s.storage().resolve(s.nodeId()).resolve(gid.getUuid().toString()));
        RaftGroup initial = s.join() && fresh ? RaftGroup.valueOf(gid) : group;
        this.server = withRatisLoader(() -> {
            RaftServer srv = RaftServer.newBuilder().setServerId(RaftPeerId.valueOf(s.nodeId())).setGroup(initial)
                    .setProperties(p).setParameters(parameters).setStateMachine(machine).setOption(RaftStorage.StartupOption.RECOVER).build();
            srv.start();
            return srv;
        });
        this.appendTimeoutMs = Math.max(1000, 2 * s.leaseMs());
        this.client = new Client(newClient(group.getPeers(), null, p), null, null, new AtomicBoolean());
    }

    /** The Ratis properties of {@code s}'s peer and client. */
    static RaftProperties properties(FailoverSettings s) {
        RaftProperties p = new RaftProperties();
        GrpcConfigKeys.Server.setHost(p, s.raftBind());
        GrpcConfigKeys.Server.setPort(p, s.raftPort());
        RaftServerConfigKeys.setStorageDir(p, List.of(new File(s.storage().toFile(), s.nodeId())));
        RaftServerConfigKeys.Rpc.setTimeoutMin(p, TimeDuration.valueOf(s.electionMinMs(), TimeUnit.MILLISECONDS));
        RaftServerConfigKeys.Rpc.setTimeoutMax(p, TimeDuration.valueOf(s.electionMaxMs(), TimeUnit.MILLISECONDS));
        // a report's answer must prove this leader still led a majority after the report was sent: the lease rests
        // on it
        RaftServerConfigKeys.Read.setOption(p, RaftServerConfigKeys.Read.Option.LINEARIZABLE);
        RaftClientConfigKeys.Rpc.setRequestTimeout(p, TimeDuration.valueOf(Math.max(200, s.leaseMs()),
                TimeUnit.MILLISECONDS));
        // Ratis 3.3.0's follower takes an append that starts where a pending one starts for a duplicate, whatever its
        // length: it acknowledged [35..36] while [35] was still being written and never wrote 36, and the leader,
        // whose match index never goes back within a term, heartbeat that follower forever without sending it data
        // (the checker's partition-leader trial of 2026-12-06; docs/failover-checker.md). Appending every request as it
        // comes, as Ratis 3.1 did, writes what it acknowledges; heartbeats on the data stream cannot overtake an
        // append in flight then
        RaftServerConfigKeys.Log.setAppendEntriesComposeEnabled(p, false);
        GrpcConfigKeys.Server.setHeartbeatChannel(p, false);
        // the leader's appender backs off 1 s, then 5 s, between failures by default: a restarted member waited up to
        // 15 s for its first append. Metadata entries are few and small; retrying sooner costs little
        RaftServerConfigKeys.Log.Appender.setRetryPolicy(p, APPENDER_RETRIES);
        return p;
    }

    private RaftClient newClient(java.util.Collection<RaftPeer> peers, RaftPeerId leader, RaftProperties p)
            throws IOException {
        return withRatisLoader(() -> {
            RaftClient.Builder b = RaftClient.newBuilder().setProperties(p).setParameters(parameters)
                    .setRaftGroup(RaftGroup.valueOf(group.getGroupId(), peers))
                    .setRetryPolicy(RetryPolicies.retryUpToMaximumCountWithFixedSleep(3,
                            TimeDuration.valueOf(20, TimeUnit.MILLISECONDS)));
            if (leader != null) {
                b.setLeaderId(leader);
            }
            return b.build();
        });
    }

    /**
     * The client, rebuilt when it no longer fits: after a membership change (or a restart with a configured
     * {@code peers} older than the group's log), so that it names the peers the log holds now; after a change of
     * leader, because an ordered client keeps sending writes to the leader it last heard of — a partitioned former
     * leader held a promotion for 25 s in the failover checker; and after a failed request, because a failure can
     * close its sliding window for good (every later write then fails at once).
     */
    private Client client() throws IOException {
        Client c = client;
        RaftConfiguration conf = conf();
        DivisionInfo info = info();
        RaftPeerId leader = info == null ? null : info.getLeaderId();
        if (fits(c, conf, leader)) {
            return c;
        }
        synchronized (this) {
            c = client;
            if (fits(c, conf, leader)) {
                return c;
            }
            Client next = new Client(newClient(conf == null ? group.getPeers() : conf.getCurrentPeers(), leader,
                    properties), conf, leader, new AtomicBoolean());
            client = next;
            retire(c.raft());
            return next;
        }
    }

    private static boolean fits(Client c, RaftConfiguration conf, RaftPeerId leader) {
        return !c.failed().get() && (conf == null || conf.equals(c.conf()))
                && (leader == null || leader.equals(c.leader()));
    }

    /** Closes a replaced client once what it still carries has had its time. */
    private static void retire(RaftClient old) {
        CompletableFuture.delayedExecutor(10, TimeUnit.SECONDS).execute(() -> {
            try {
                old.close();
            } catch (IOException | RuntimeException e) {
                // done with either way
            }
        });
    }

    /** @return the configuration this peer applies now, or null once closed */
    private RaftConfiguration conf() {
        try {
            return server.getDivision(group.getGroupId()).getRaftConf();
        } catch (IOException e) {
            return null;
        }
    }

    /**
     * @param order ids in the order ties are broken by (the configured {@code peers}); others follow by id
     * @return the group's voting members as this peer's Raft configuration holds them, {@code id -> ip:port}, or
     *         empty once closed
     */
    Map<String, String> members(List<String> order) {
        RaftConfiguration conf = conf();
        if (conf == null) {
            return Map.of();
        }
        Map<String, String> byId = new TreeMap<>();
        conf.getCurrentPeers().forEach(p -> byId.put(p.getId().toString(), p.getAddress()));
        Map<String, String> out = new LinkedHashMap<>();
        order.stream().filter(byId::containsKey).forEach(id -> out.put(id, byId.get(id)));
        out.putAll(byId);
        return out;
    }

    /**
     * Replaces the group's voting members through the leader, waiting up to {@code timeoutMs} for a new member to
     * catch up and the change to commit.
     */
    void setMembers(Map<String, String> members, long timeoutMs) throws IOException {
        List<RaftPeer> peers = new ArrayList<>();
        members.forEach((id, address) -> peers.add(RaftPeer.newBuilder().setId(id).setAddress(address).build()));
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        // the leader stages a new member until it has caught up, and gives up after its staging timeout when the
        // member is not serving yet (it may still be starting): try again until the caller's deadline
        while (true) {
            long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
            RaftProperties p = new RaftProperties(properties);
            RaftClientConfigKeys.Rpc.setRequestTimeout(p, TimeDuration.valueOf(Math.max(1000, left),
                    TimeUnit.MILLISECONDS));
            RaftConfiguration conf = conf();
            DivisionInfo info = info();
            Throwable failure;
            try (RaftClient admin = newClient(conf == null ? group.getPeers() : conf.getCurrentPeers(),
                    info == null ? null : info.getLeaderId(), p)) {
                RaftClientReply reply = withRatisLoader(() -> admin.admin().setConfiguration(peers));
                if (reply.isSuccess()) {
                    return;
                }
                failure = reply.getException();
            } catch (IOException e) {
                failure = e;
            }
            if (left < 500) {
                throw new IOException(rootMessage(failure));
            }
            try {
                Thread.sleep(250); // a retry after the leader's refusal, bounded by the caller's deadline
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted", e);
            }
        }
    }

    /** @return the innermost cause's message: Ratis wraps the reason in a retry failure that names only itself */
    private static String rootMessage(Throwable t) {
        Throwable root = t;
        while (root != null && root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return root == null ? "no reason given" : root.getClass().getSimpleName() + ": " + root.getMessage();
    }

    /**
     * Sends a read-only query to the leader this peer knows: with linearizable reads a follower would answer too (a
     * ReadIndex through the leader), and the leader would never hear the report.
     *
     * @return the leader's answer, or throws when no leader is known or none answered in time
     */
    ByteBuffer query(byte[] request) throws IOException {
        DivisionInfo info = info();
        RaftPeerId leader = info == null ? null : info.getLeaderId();
        if (leader == null) {
            throw new IOException("no leader is known");
        }
        RaftClientReply reply = client().raft().io().sendReadOnly(Message.valueOf(ByteBuffer.wrap(request)), leader);
        if (!reply.isSuccess()) {
            throw new IOException("the group did not answer: " + reply.getException());
        }
        return reply.getMessage().getContent().asReadOnlyByteBuffer();
    }

    /** Appends an entry to the group's log; the future completes once it is committed and applied here. */
    CompletableFuture<RaftClientReply> append(byte[] entry) {
        Client c;
        try {
            c = client();
        } catch (IOException e) {
            return CompletableFuture.failedFuture(e);
        }
        return c.raft().async().send(Message.valueOf(ByteBuffer.wrap(entry)))
                .orTimeout(appendTimeoutMs, TimeUnit.MILLISECONDS)
                .whenComplete((reply, e) -> {
                    if (e != null || !reply.isSuccess()) {
                        c.failed().set(true);
                    }
                });
    }

    /** Hands this peer's leadership to {@code id}; @return whether the transfer succeeded */
    boolean transferLeadership(String id, long timeoutMs) throws IOException {
        return client().raft().admin().transferLeadership(RaftPeerId.valueOf(id), timeoutMs).isSuccess();
    }

    /** @return this peer's division, or null once closed */
    DivisionInfo info() {
        try {
            return server.getDivision(group.getGroupId()).getInfo();
        } catch (IOException e) {
            return null;
        }
    }

    @Override
    public void close() {
        try {
            client.raft().close();
        } catch (IOException e) {
            // closing: nothing to do
        }
        try {
            server.close();
        } catch (IOException e) {
            // closing: nothing to do
        }
    }

    static <T> T withRatisLoader(Callable<T> call) throws IOException {
        Thread t = Thread.currentThread();
        ClassLoader previous = t.getContextClassLoader();
        t.setContextClassLoader(RaftServer.class.getClassLoader());
        try {
            return call.call();
        } catch (IOException | RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IOException(e);
        } finally {
            t.setContextClassLoader(previous);
        }
    }
}
