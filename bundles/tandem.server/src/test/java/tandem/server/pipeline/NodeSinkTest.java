package tandem.server.pipeline;

import static org.assertj.core.api.Assertions.assertThat;
import static tandem.node.Waiting.await;

import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import tandem.node.FakeJournal;
import tandem.node.MapKeyspace;
import tandem.node.NodeCore;
import tandem.server.command.ClientSession;
import tandem.server.command.CommandTable;
import tandem.server.command.Commands;
import tandem.server.resp.RespRequest;

/**
 * The RESP front end over a real node core ({@link NodeSink}, {@link NodeFrontend}, {@link Connection}): requests
 * resolved against the server's table and the keyspace's, {@code requirepass}, the command statistics, the slow log
 * and what {@code INFO} reports of the node. The node core's own behaviour is tested in {@code tandem.node}; here
 * its journal and keyspace are that bundle's test fakes, and replies travel over Netty's embedded channel.
 */
@Timeout(20)
class NodeSinkTest {

    private final FakeJournal journal = new FakeJournal();
    private final MapKeyspace keyspace = new MapKeyspace();
    private final CommandTable table = Commands.table();
    private NodeCore core;
    private NodeFrontend frontend;
    private NodeSink sink;
    private volatile String requirePass;
    private final tandem.server.acl.Acl acl = new tandem.server.acl.Acl(tandem.server.acl.AclCatalog.get());
    private final tandem.server.command.CommandMonitor monitor = new tandem.server.command.CommandMonitor();
    /** The server as AUTH and INFO see it: its requirepass and what the node core reports. */
    private final tandem.server.command.ServerContext server = (tandem.server.command.ServerContext)
            java.lang.reflect.Proxy.newProxyInstance(getClass().getClassLoader(),
                    new Class<?>[] {tandem.server.command.ServerContext.class},
                    (proxy, method, args) -> switch (method.getName()) {
                        case "requirePass" -> requirePass;
                        case "acl" -> acl;
                        case "monitor" -> monitor;
                        case "blockedClients" -> core.blockedClients();
                        case "loading" -> core.loading();
                        case "notReady" -> core.notReady();
                        case "connectedClients", "maxClients" -> 0;
                        default -> null;
                    });

    @BeforeEach
    void start() {
        core = new NodeCore(2000);
        frontend = new NodeFrontend(InboundBudget.ofHeap(), monitor, null, null);
        core.frontend(frontend);
        sink = new NodeSink(core::open, core::resolve, table, frontend, acl, NodeSink.Scripts.NONE);
    }

    @AfterEach
    void stop() {
        core.close();
        monitor.close();
    }

    /** A client whose replies the test reads; requests go straight into the pipeline as decoded messages. */
    private final class Client {
        final StringBuffer received = new StringBuffer();
        final Connection connection;

        Client(long id) {
            connection = new Connection(new RecordingChannel(received), new ClientSession(id, "local:" + id), table,
                    server);
            sink.opened(connection);
        }

        void send(String... args) {
            byte[][] a = new byte[args.length][];
            for (int i = 0; i < args.length; i++) {
                a[i] = args[i].getBytes(StandardCharsets.ISO_8859_1);
            }
            sink.submit(connection, new RespRequest(a, false));
            sink.readComplete(connection);
        }

        void awaitReplies(String expected) {
            await("replies " + expected.replace("\r\n", "\\r\\n") + " (got " + received + ")",
                    () -> received.toString().equals(expected));
        }

        /** Sends {@code INFO section} and returns its reply once it came. */
        String info(String section) {
            received.setLength(0);
            send("INFO", section);
            await("the INFO " + section + " reply", () -> received.toString().endsWith("\r\n\r\n"));
            return received.toString();
        }
    }

    @Test
    void commandsAreCountedAsRedisCountsThemAndTheSlowLogShowsThem() {
        monitor.slowlog(0, 128);
        core.journal(journal);
        core.keyspace(keyspace);
        Client c = new Client(1);
        c.send("SET", "k", "v");
        c.send("GET", "k");
        c.send("GET");
        c.send("SET", "k", "bad");
        c.send("SLOWLOG", "LEN");
        c.awaitReplies("+OK\r\n$1\r\nv\r\n-ERR wrong number of arguments for 'get' command\r\n"
                + "-ERR bad value (the key holds v)\r\n:3\r\n");
        StringBuilder stats = new StringBuilder();
        monitor.commandstats(stats);
        assertThat(stats.toString())
                .contains("cmdstat_get:calls=1,").contains(",rejected_calls=1,failed_calls=0\r\n")
                .contains("cmdstat_set:calls=2,").contains(",rejected_calls=0,failed_calls=1\r\n")
                .contains("cmdstat_slowlog|len:calls=1,");
        StringBuilder errors = new StringBuilder();
        monitor.errorstats(errors);
        assertThat(errors).hasToString("errorstat_ERR:count=2\r\n");
        c.send("SLOWLOG", "GET", "1");
        await("the newest entry is SLOWLOG LEN", () -> c.received.toString().contains("$7\r\nSLOWLOG\r\n$3\r\nLEN"));
    }

    @Test
    void withRequirepassEveryCommandButAuthAnswersNoauthAndAnAuthPipelinedBeforeAWriteLetsItThrough() {
        core.journal(journal);
        core.keyspace(keyspace);
        requirePass = "secret";
        acl.requirePass("secret");
        Client c = new Client(1);
        c.send("GET", "k");
        c.send("SET", "k", "v");
        c.send("AUTH", "wrong");
        c.send("AUTH", "default", "secret");
        c.send("SET", "k", "v");
        c.awaitReplies("-NOAUTH Authentication required.\r\n-NOAUTH Authentication required.\r\n"
                + "-WRONGPASS invalid username-password pair or user is disabled.\r\n+OK\r\n+OK\r\n");
        assertThat(journal.entries).as("only the authenticated write is journaled").hasSize(1);
        Client other = new Client(2);
        other.send("MULTI");
        other.send("AUTH", "secret");
        other.send("GET", "k");
        other.awaitReplies("-NOAUTH Authentication required.\r\n+OK\r\n$1\r\nv\r\n");
    }

    @Test
    void infoReportsTheClientsParkedInWaitAsBlockedAndAnInstallingStoreAsLoading() throws Exception {
        core.journal(journal);
        core.keyspace(keyspace);
        tandem.api.replication.ReplicationHub.ReplicaSlot slot = core.gate().attach("r1", "psync",
                "127.0.0.1:1", () -> { });
        slot.seed(0);
        Client a = new Client(1);
        Client info = new Client(3);
        assertThat(info.info("clients")).contains("\r\nblocked_clients:0\r\n");
        assertThat(info.info("persistence")).contains("\r\nloading:0\r\n");
        a.send("SET", "a", "1");
        a.send("WAIT", "1", "0");
        await("the WAIT is parked", () -> core.blockedClients() == 1);
        assertThat(info.info("clients")).contains("\r\nblocked_clients:1\r\n");
        slot.ack(1, 1);
        a.awaitReplies("+OK\r\n:1\r\n");
        assertThat(info.info("clients")).contains("\r\nblocked_clients:0\r\n");

        core.follow("127.0.0.1:1");
        byte[] chain = new byte[32];
        java.nio.file.Path cp = java.nio.file.Path.of("/checkpoint");
        keyspace.checkpoints.put(cp, java.util.Map.of("k", "v"));
        core.install(cp, 1, chain);
        await("the installed store waits for its journal", core::loading);
        assertThat(info.info("persistence")).contains("\r\nloading:1\r\n");
    }

    /**
     * Collects what the pipeline writes to the connection's channel. An embedded channel runs a write on the calling
     * thread, here the logic thread; the StringBuffer makes the bytes visible to the test thread.
     */
    static final class RecordingChannel extends io.netty.channel.embedded.EmbeddedChannel {
        RecordingChannel(StringBuffer sink) {
            super();
            pipeline().addLast(new io.netty.channel.ChannelOutboundHandlerAdapter() {
                @Override
                public void write(ChannelHandlerContext ctx, Object msg, io.netty.channel.ChannelPromise promise) {
                    ByteBuf buf = (ByteBuf) msg;
                    sink.append(buf.toString(StandardCharsets.ISO_8859_1));
                    buf.release();
                    promise.setSuccess();
                }
            });
        }
    }
}
