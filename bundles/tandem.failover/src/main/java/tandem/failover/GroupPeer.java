package tandem.failover;

import java.io.File;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.Callable;

import org.apache.ratis.client.RaftClient;
import org.apache.ratis.client.RaftClientConfigKeys;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.grpc.GrpcConfigKeys;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.retry.RetryPolicies;
import org.apache.ratis.server.DivisionInfo;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.RaftServerConfigKeys;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.util.TimeDuration;

/**
 * This node's Raft peer in the group and its client, over gRPC on the configured address. Ratis loads its
 * implementation classes by name through the thread context class loader it first sees, so every call that may be
 * Ratis' first runs with the Ratis bundle's loader as that (research/ratis.md, §3).
 */
final class GroupPeer implements AutoCloseable {

    private final RaftGroup group;
    private final RaftServer server;
    private final RaftClient client;

    GroupPeer(FailoverSettings s, GroupMachine machine) throws IOException {
        List<RaftPeer> peers = new ArrayList<>();
        s.peers().forEach((id, address) -> peers.add(RaftPeer.newBuilder().setId(id).setAddress(address).build()));
        RaftGroupId gid = RaftGroupId.valueOf(UUID.nameUUIDFromBytes(("tandem.failover:" + s.group())
                .getBytes(StandardCharsets.UTF_8)));
        this.group = RaftGroup.valueOf(gid, peers);
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
        this.server = withRatisLoader(() -> {
            RaftServer srv = RaftServer.newBuilder().setServerId(RaftPeerId.valueOf(s.nodeId())).setGroup(group)
                    .setProperties(p).setStateMachine(machine).setOption(RaftStorage.StartupOption.RECOVER).build();
            srv.start();
            return srv;
        });
        this.client = withRatisLoader(() -> RaftClient.newBuilder().setProperties(p).setRaftGroup(group)
                .setRetryPolicy(RetryPolicies.retryUpToMaximumCountWithFixedSleep(3,
                        TimeDuration.valueOf(20, TimeUnit.MILLISECONDS)))
                .build());
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
        RaftClientReply reply = client.io().sendReadOnly(Message.valueOf(ByteBuffer.wrap(request)), leader);
        if (!reply.isSuccess()) {
            throw new IOException("the group did not answer: " + reply.getException());
        }
        return reply.getMessage().getContent().asReadOnlyByteBuffer();
    }

    /** Appends an entry to the group's log; the future completes once it is committed and applied here. */
    CompletableFuture<RaftClientReply> append(byte[] entry) {
        return client.async().send(Message.valueOf(ByteBuffer.wrap(entry)));
    }

    /** Hands this peer's leadership to {@code id}; @return whether the transfer succeeded */
    boolean transferLeadership(String id, long timeoutMs) throws IOException {
        return client.admin().transferLeadership(RaftPeerId.valueOf(id), timeoutMs).isSuccess();
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
            client.close();
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
