package tandem.itests;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertTrue;
import static org.ops4j.pax.exam.CoreOptions.bundle;
import static org.ops4j.pax.exam.CoreOptions.cleanCaches;
import static org.ops4j.pax.exam.CoreOptions.junitBundles;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import javax.inject.Inject;

import org.apache.ratis.client.RaftClient;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.grpc.GrpcConfigKeys;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.retry.RetryPolicies;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.RaftServerConfigKeys;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.statemachine.TransactionContext;
import org.apache.ratis.statemachine.impl.BaseStateMachine;
import org.apache.ratis.util.TimeDuration;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.Timeout;
import org.junit.runner.RunWith;
import org.ops4j.pax.exam.Configuration;
import org.ops4j.pax.exam.Option;
import org.ops4j.pax.exam.junit.PaxExam;
import org.ops4j.pax.exam.spi.reactors.ExamReactorStrategy;
import org.ops4j.pax.exam.spi.reactors.PerClass;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;

import tandem.testsupport.Await;

/**
 * The Apache Ratis wrapper bundle inside Felix, with the distribution's SLF4J (and SPI Fly, which SLF4J 2 needs): a
 * group of three peers on loopback elects a leader, commits a write, loses its leader and commits through the next
 * one. Ratis picks its implementation classes by name through the thread context class loader it sees first, so
 * every Ratis call here runs with the Ratis bundle's loader as that (research/ratis.md, §3).
 */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerClass.class)
public class RatisBundleIT {

    private static final Duration DEADLINE = Duration.ofSeconds(20);

    @Rule
    public Timeout timeout = Timeout.seconds(120);

    @Inject
    private BundleContext context;

    @Configuration
    public Option[] config() throws IOException {
        List<Option> options = new ArrayList<>();
        for (Path jar : DistributionIT.distributionJars(Path.of(System.getProperty("tandem.dist")))) {
            String name = jar.getFileName().toString();
            if (name.startsWith("slf4j-") || name.startsWith("asm-") || name.startsWith("org.apache.aries.spifly")) {
                options.add(bundle(jar.toUri().toString()));
            }
        }
        options.add(bundle(Path.of(System.getProperty("tandem.itest.ratis")).toUri().toString()));
        options.add(junitBundles());
        for (String jar : System.getProperty("tandem.itest.bundles").split(",")) {
            options.add(bundle(Path.of(jar).toUri().toString()));
        }
        options.add(cleanCaches(true));
        return options.toArray(new Option[0]);
    }

    /** Counts the entries it applies; its reply is the count. */
    static final class Counter extends BaseStateMachine {
        final AtomicLong applied = new AtomicLong();

        @Override
        public CompletableFuture<Message> applyTransaction(TransactionContext trx) {
            var entry = trx.getLogEntry();
            long n = applied.incrementAndGet();
            updateLastAppliedTermIndex(entry.getTerm(), entry.getIndex());
            return CompletableFuture.completedFuture(Message.valueOf(Long.toString(n)));
        }
    }

    @Test
    public void aGroupOfThreeElectsCommitsLosesItsLeaderAndCommitsThroughTheNext() throws Exception {
        Bundle ratis = null;
        for (Bundle b : context.getBundles()) {
            if ("org.apache.ratis".equals(b.getSymbolicName())) {
                ratis = b;
            }
        }
        assertNotNull("the Ratis bundle is installed", ratis);
        assertEquals("the Ratis bundle resolves and starts", Bundle.ACTIVE, ratis.getState());

        Thread thread = Thread.currentThread();
        ClassLoader previous = thread.getContextClassLoader();
        thread.setContextClassLoader(RaftServer.class.getClassLoader());
        Path storage = Files.createTempDirectory("ratis-it");
        List<RaftServer> servers = new ArrayList<>();
        List<Counter> machines = new ArrayList<>();
        RaftClient client = null;
        try {
            List<RaftPeer> peers = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                peers.add(RaftPeer.newBuilder().setId("n" + i).setAddress("127.0.0.1:" + DistributionIT.freePort()).build());
            }
            RaftGroup group = RaftGroup.valueOf(RaftGroupId.randomId(), peers);
            for (RaftPeer peer : peers) {
                RaftProperties p = new RaftProperties();
                GrpcConfigKeys.Server.setHost(p, "127.0.0.1");
                GrpcConfigKeys.Server.setPort(p, Integer.parseInt(peer.getAddress().split(":")[1]));
                RaftServerConfigKeys.setStorageDir(p, List.of(new File(storage.toFile(), peer.getId().toString())));
                Counter machine = new Counter();
                RaftServer server = RaftServer.newBuilder().setServerId(peer.getId()).setGroup(group).setProperties(p)
                        .setStateMachine(machine).setOption(RaftStorage.StartupOption.RECOVER).build();
                server.start();
                servers.add(server);
                machines.add(machine);
            }
            client = RaftClient.newBuilder().setProperties(new RaftProperties()).setRaftGroup(group)
                    .setRetryPolicy(RetryPolicies.retryUpToMaximumCountWithFixedSleep(200,
                            TimeDuration.valueOf(100, TimeUnit.MILLISECONDS)))
                    .build();
            RaftClientReply first = client.io().send(Message.valueOf("one"));
            assertTrue("the first write commits: " + first, first.isSuccess());
            assertEquals("1", first.getMessage().getContent().toString(StandardCharsets.UTF_8));

            RaftServer leader = leaderOf(servers, group);
            int gone = servers.indexOf(leader);
            leader.close();
            List<RaftServer> rest = new ArrayList<>(servers);
            rest.remove(gone);
            Await.until("another peer leads", DEADLINE, () -> leaderOf(rest, group) != null);

            RaftClientReply second = client.io().send(Message.valueOf("two"));
            assertTrue("a write commits through the new leader: " + second, second.isSuccess());
            assertEquals("2", second.getMessage().getContent().toString(StandardCharsets.UTF_8));
            for (int i = 0; i < machines.size(); i++) {
                if (i != gone) {
                    Counter m = machines.get(i);
                    Await.until("n" + i + " applied both writes", DEADLINE, () -> m.applied.get() == 2);
                }
            }
        } finally {
            if (client != null) {
                client.close();
            }
            for (RaftServer s : servers) {
                s.close();
            }
            thread.setContextClassLoader(previous);
        }
    }

    /** @return the server that leads {@code group} and is ready to commit, or null */
    private static RaftServer leaderOf(List<RaftServer> servers, RaftGroup group) {
        for (RaftServer s : servers) {
            try {
                var info = s.getDivision(group.getGroupId()).getInfo();
                if (info.isLeader() && info.isLeaderReady()) {
                    return s;
                }
            } catch (IOException e) {
                // closed, or not yet part of the group
            }
        }
        return null;
    }
}
