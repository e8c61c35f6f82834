package tandem.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.channel.embedded.EmbeddedChannel;
import tandem.api.store.KeyspaceEvents;
import tandem.server.command.ClientSession;
import tandem.server.command.CommandTable;
import tandem.server.command.Commands;
import tandem.server.command.ServerContext;
import tandem.server.pubsub.OutputLimit;
import tandem.server.pubsub.PubSubRegistry;
import tandem.server.pubsub.Subscriptions;
import tandem.server.resp.RespRequestDecoder;

/**
 * Pub/Sub through the decoder and the connection handler on {@link EmbeddedChannel}s, one per client, sharing one
 * {@link PubSubRegistry}: request bytes in, exact reply and push bytes out (recorded from Redis 7.0.15), each
 * request fed whole and byte by byte.
 */
@Timeout(10)
class PubSubConnectionTest {

    private static final tandem.server.acl.Acl ACL = new tandem.server.acl.Acl(tandem.server.acl.AclCatalog.get());

    private final PubSubRegistry registry = new PubSubRegistry();
    private final CommandTable table = Commands.table();
    private final Map<Long, ClientSession> sessions = new HashMap<>();
    private final List<EmbeddedChannel> channels = new ArrayList<>();
    private long nextId = 1;
    /** Whether clients send their requests one byte at a time (each test runs both ways). */
    private boolean bytewise;

    /** The server as the commands see it: the registry, and each client's subscriptions for CLIENT LIST. */
    private final ServerContext server = (ServerContext) java.lang.reflect.Proxy.newProxyInstance(
            getClass().getClassLoader(), new Class<?>[] {ServerContext.class},
            (proxy, method, args) -> switch (method.getName()) {
                case "pubsub" -> registry;
                case "acl" -> ACL;
                case "subscriptions" -> sessions.get((Long) args[0]).subscriptions();
                case "clients" -> sessions.values().stream().map(ClientSession::info).toList();
                case "replicationStatuses" -> List.of();
                case "totalConnections" -> 0L;
                default -> null;
            });

    @AfterEach
    void releaseAll() {
        channels.forEach(EmbeddedChannel::finishAndReleaseAll);
    }

    @ParameterizedTest(name = "byte by byte: {0}")
    @ValueSource(booleans = {false, true})
    void subscribeConfirmsEachChannelWithTheCountOfChannelsAndPatterns(boolean bytewise) {
        this.bytewise = bytewise;
        Client a = new Client();
        a.expect("SUBSCRIBE x y x\r\n", confirm("subscribe", "x", 1) + confirm("subscribe", "y", 2)
                + confirm("subscribe", "x", 2));
        a.expect("PSUBSCRIBE h*llo x\r\n", confirm("psubscribe", "h*llo", 3) + confirm("psubscribe", "x", 4));
        a.expect("SSUBSCRIBE s\r\n", confirm("ssubscribe", "s", 1));
        a.expect("UNSUBSCRIBE\r\n", confirm("unsubscribe", "x", 3) + confirm("unsubscribe", "y", 2));
        a.expect("PUNSUBSCRIBE\r\n", confirm("punsubscribe", "h*llo", 1) + confirm("punsubscribe", "x", 0));
        a.expect("SUNSUBSCRIBE s\r\n", confirm("sunsubscribe", "s", 0));
    }

    @ParameterizedTest(name = "byte by byte: {0}")
    @ValueSource(booleans = {false, true})
    void aKeyspaceEventGoesToTheKeyspaceChannelThenTheKeyeventChannelAsTheClassesSay(boolean bytewise) {
        this.bytewise = bytewise;
        Client a = new Client();
        a.expect("PSUBSCRIBE __key*__:*\r\n", confirm("psubscribe", "__key*__:*", 1));
        registry.keyspaceEvents(KeyspaceEvents.KEYSPACE | KeyspaceEvents.KEYEVENT | KeyspaceEvents.STRING);
        assertThat(registry.keyspaceEventClasses()).isEqualTo(0x0B);
        registry.keyspaceEvent(KeyspaceEvents.STRING, "set", 0, bytes("k"), 0);
        registry.keyspaceEvent(KeyspaceEvents.GENERIC, "del", 0, bytes("k"), 0); // not a class asked for
        assertThat(a.take()).isEqualTo("*4\r\n$8\r\npmessage\r\n$10\r\n__key*__:*\r\n$16\r\n__keyspace@0__:k\r\n"
                + "$3\r\nset\r\n*4\r\n$8\r\npmessage\r\n$10\r\n__key*__:*\r\n$18\r\n__keyevent@0__:set\r\n"
                + "$1\r\nk\r\n");
        registry.keyspaceEvents(KeyspaceEvents.KEYEVENT | KeyspaceEvents.GENERIC);
        registry.keyspaceEvent(KeyspaceEvents.GENERIC, "del", 3, bytes("k"), 0);
        assertThat(a.take()).isEqualTo("*4\r\n$8\r\npmessage\r\n$10\r\n__key*__:*\r\n$18\r\n__keyevent@3__:del\r\n"
                + "$1\r\nk\r\n");
        registry.keyspaceEvents(KeyspaceEvents.GENERIC | KeyspaceEvents.STRING); // neither K nor E: nothing at all
        assertThat(registry.keyspaceEventClasses()).isZero();
    }

    @ParameterizedTest(name = "byte by byte: {0}")
    @ValueSource(booleans = {false, true})
    void unsubscribingWithNothingSubscribedNamesNil(boolean bytewise) {
        this.bytewise = bytewise;
        Client a = new Client();
        a.expect("UNSUBSCRIBE\r\n", "*3\r\n$11\r\nunsubscribe\r\n$-1\r\n:0\r\n");
        a.expect("PUNSUBSCRIBE\r\n", "*3\r\n$12\r\npunsubscribe\r\n$-1\r\n:0\r\n");
        a.expect("SUNSUBSCRIBE\r\n", "*3\r\n$12\r\nsunsubscribe\r\n$-1\r\n:0\r\n");
        a.expect("UNSUBSCRIBE nope\r\n", confirm("unsubscribe", "nope", 0));
        a.expect("PING\r\n", "+PONG\r\n");
    }

    @ParameterizedTest(name = "byte by byte: {0}")
    @ValueSource(booleans = {false, true})
    void publishReachesChannelAndPatternSubscribersAndCountsEachSubscription(boolean bytewise) {
        this.bytewise = bytewise;
        Client a = new Client();
        Client b = new Client();
        a.expect("SUBSCRIBE x\r\nPSUBSCRIBE h*llo x\r\n", confirm("subscribe", "x", 1)
                + confirm("psubscribe", "h*llo", 2) + confirm("psubscribe", "x", 3));
        b.expect("PUBLISH x m\r\n", ":2\r\n");
        b.expect("PUBLISH hello m2\r\n", ":1\r\n");
        b.expect("PUBLISH nobody m\r\n", ":0\r\n");
        assertThat(a.take()).isEqualTo("*3\r\n$7\r\nmessage\r\n$1\r\nx\r\n$1\r\nm\r\n"
                + "*4\r\n$8\r\npmessage\r\n$1\r\nx\r\n$1\r\nx\r\n$1\r\nm\r\n"
                + "*4\r\n$8\r\npmessage\r\n$5\r\nh*llo\r\n$5\r\nhello\r\n$2\r\nm2\r\n");
        Client s = new Client();
        s.expect("SSUBSCRIBE x\r\n", confirm("ssubscribe", "x", 1));
        b.expect("SPUBLISH x q\r\n", ":1\r\n");
        assertThat(s.take()).isEqualTo("*3\r\n$8\r\nsmessage\r\n$1\r\nx\r\n$1\r\nq\r\n");
        assertThat(a.take()).as("shard channels are a namespace of their own").isEmpty();
    }

    @ParameterizedTest(name = "byte by byte: {0}")
    @ValueSource(booleans = {false, true})
    void theApiPublishesAsPublishDoesInOrder(boolean bytewise) {
        this.bytewise = bytewise;
        Client a = new Client();
        a.expect("PSUBSCRIBE *\r\n", confirm("psubscribe", "*", 1));
        assertThat(registry.publish("+switch-master", bytes("tandem 127.0.0.1 1 127.0.0.1 2"))).isEqualTo(1);
        assertThat(registry.publish("+elected-leader", bytes("x"))).isEqualTo(1);
        assertThat(a.take()).isEqualTo("*4\r\n$8\r\npmessage\r\n$1\r\n*\r\n$14\r\n+switch-master\r\n"
                + "$30\r\ntandem 127.0.0.1 1 127.0.0.1 2\r\n"
                + "*4\r\n$8\r\npmessage\r\n$1\r\n*\r\n$15\r\n+elected-leader\r\n$1\r\nx\r\n");
    }

    @ParameterizedTest(name = "byte by byte: {0}")
    @ValueSource(booleans = {false, true})
    void aSubscribedConnectionAcceptsOnlyPubSubPingQuitAndReset(boolean bytewise) {
        this.bytewise = bytewise;
        Client a = new Client();
        a.expect("SUBSCRIBE a\r\n", confirm("subscribe", "a", 1));
        a.expect("CLIENT LIST\r\n", "-ERR Can't execute 'client|list': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / "
                + "PING / QUIT / RESET are allowed in this context\r\n");
        a.expect("PUBLISH a b\r\n", "-ERR Can't execute 'publish': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / "
                + "PING / QUIT / RESET are allowed in this context\r\n");
        a.expect("CLIENT FOO\r\n", "-ERR unknown subcommand 'FOO'. Try CLIENT HELP.\r\n");
        a.expect("ECHO\r\n", "-ERR wrong number of arguments for 'echo' command\r\n");
        a.expect("PING\r\n", "*2\r\n$4\r\npong\r\n$0\r\n\r\n");
        a.expect("PING hi\r\n", "*2\r\n$4\r\npong\r\n$2\r\nhi\r\n");
        a.expect("PING a b\r\n", "-ERR wrong number of arguments for 'ping' command\r\n");
        a.expect("RESET\r\nECHO e\r\nPING\r\n", "+RESET\r\n$1\r\ne\r\n+PONG\r\n");
        assertThat(registry.subscribers(tandem.server.pubsub.Kind.CHANNEL, bytes("a"))).isZero();
    }

    @ParameterizedTest(name = "byte by byte: {0}")
    @ValueSource(booleans = {false, true})
    void pubsubIntrospectionAndItsErrors(boolean bytewise) {
        this.bytewise = bytewise;
        Client a = new Client();
        Client b = new Client();
        Client c = new Client();
        a.expect("SUBSCRIBE y x\r\nPSUBSCRIBE p*\r\n", confirm("subscribe", "y", 1) + confirm("subscribe", "x", 2)
                + confirm("psubscribe", "p*", 3));
        c.expect("PSUBSCRIBE p*\r\nSSUBSCRIBE s\r\n", confirm("psubscribe", "p*", 1) + confirm("ssubscribe", "s", 1));
        assertThat(b.send("PUBSUB CHANNELS\r\n")).isIn("*2\r\n$1\r\ny\r\n$1\r\nx\r\n", "*2\r\n$1\r\nx\r\n$1\r\ny\r\n");
        b.expect("PUBSUB CHANNELS x*\r\n", "*1\r\n$1\r\nx\r\n");
        b.expect("PUBSUB NUMSUB x z\r\n", "*4\r\n$1\r\nx\r\n:1\r\n$1\r\nz\r\n:0\r\n");
        b.expect("PUBSUB NUMSUB\r\n", "*0\r\n");
        b.expect("PUBSUB NUMPAT\r\n", ":1\r\n");
        b.expect("PUBSUB SHARDCHANNELS\r\n", "*1\r\n$1\r\ns\r\n");
        b.expect("PUBSUB SHARDNUMSUB s\r\n", "*2\r\n$1\r\ns\r\n:1\r\n");
        b.expect("PUBSUB FOO\r\n", "-ERR unknown subcommand 'FOO'. Try PUBSUB HELP.\r\n");
        b.expect("PUBSUB CHANNELS a b\r\n",
                "-ERR unknown subcommand or wrong number of arguments for 'CHANNELS'. Try PUBSUB HELP.\r\n");
        b.expect("PUBSUB\r\n", "-ERR wrong number of arguments for 'pubsub' command\r\n");
        b.expect("PUBLISH x\r\n", "-ERR wrong number of arguments for 'publish' command\r\n");
        b.expect("SUBSCRIBE\r\n", "-ERR wrong number of arguments for 'subscribe' command\r\n");
        b.expect("PUBSUB HELP\r\n", "*14\r\n"
                + "+PUBSUB <subcommand> [<arg> [value] [opt] ...]. Subcommands are:\r\n"
                + "+CHANNELS [<pattern>]\r\n"
                + "+    Return the currently active channels matching a <pattern> (default: '*').\r\n"
                + "+NUMPAT\r\n"
                + "+    Return number of subscriptions to patterns.\r\n"
                + "+NUMSUB [<channel> ...]\r\n"
                + "+    Return the number of subscribers for the specified channels, excluding\r\n"
                + "+    pattern subscriptions(default: no channels).\r\n"
                + "+SHARDCHANNELS [<pattern>]\r\n"
                + "+    Return the currently active shard level channels matching a <pattern> (default: '*').\r\n"
                + "+SHARDNUMSUB [<shardchannel> ...]\r\n"
                + "+    Return the number of subscribers for the specified shard level channel(s)\r\n"
                + "+HELP\r\n"
                + "+    Prints this help.\r\n");
        String list = b.send("CLIENT LIST\r\n");
        assertThat(list).contains("id=1 ").contains(" flags=P db=0 sub=2 psub=1 ssub=0 multi=-1 ")
                .contains(" cmd=psubscribe user=default redir=-1 resp=2\n")
                .contains("id=3 ").contains(" flags=P db=0 sub=0 psub=1 ssub=1 multi=-1 ")
                .contains(" cmd=ssubscribe user=default")
                .contains("id=2 ").contains(" flags=N db=0 sub=0 psub=0 ssub=0 multi=-1 ")
                .contains(" cmd=client|list user=default");
        assertThat(b.send("CLIENT LIST TYPE pubsub\r\n")).contains("id=1 ").contains("id=3 ").doesNotContain("id=2 ");
        assertThat(b.send("INFO stats\r\n")).contains("\r\npubsub_channels:2\r\npubsub_patterns:1\r\n"
                + "pubsubshard_channels:1\r\n");
        a.channel.close();
        b.expect("PUBSUB NUMSUB x\r\nPUBSUB NUMPAT\r\n", "*2\r\n$1\r\nx\r\n:0\r\n:1\r\n");
        c.channel.close();
        b.expect("PUBSUB NUMPAT\r\nPUBSUB SHARDCHANNELS\r\n", ":0\r\n*0\r\n");
    }

    @ParameterizedTest(name = "byte by byte: {0}")
    @ValueSource(booleans = {false, true})
    void noMessageFollowsTheConfirmationOfItsUnsubscription(boolean bytewise) {
        this.bytewise = bytewise;
        Client a = new Client();
        a.expect("SUBSCRIBE x\r\n", confirm("subscribe", "x", 1));
        // queued for the subscriber but not yet written when the unsubscription is confirmed
        EmbeddedChannel loopless = a.channel;
        a.expect("UNSUBSCRIBE x\r\n", confirm("unsubscribe", "x", 0));
        assertThat(registry.publish("x", bytes("late"))).isZero();
        assertThat(a.take()).isEmpty();
        assertThat(loopless.isOpen()).isTrue();
    }

    @ParameterizedTest(name = "byte by byte: {0}")
    @ValueSource(booleans = {false, true})
    void aSubscriberPastTheHardLimitIsClosedAndWhatItQueuedIsDropped(boolean bytewise) {
        this.bytewise = bytewise;
        registry.limit(new OutputLimit(1000, 0, 0));
        Client slow = new Client(new StalledChannel());
        Client fast = new Client();
        slow.expect("SUBSCRIBE c\r\n", "");
        fast.expect("SUBSCRIBE c\r\n", confirm("subscribe", "c", 1));
        byte[] payload = new byte[100];
        int published = 0;
        while (slow.channel.isOpen() && published < 100) {
            registry.publish("c", payload);
            published++;
        }
        assertThat(slow.channel.isOpen()).as("closed past 1000 bytes").isFalse();
        // what the channel holds counts with Netty's overhead per message, so it goes before 10 messages are held
        assertThat(published).isBetween(2, 10);
        assertThat(registry.publish("c", payload)).as("only the reader is left").isEqualTo(1);
        assertThat(fast.take()).hasSize((published + 1) * (payload.length + 32));
    }

    @ParameterizedTest(name = "byte by byte: {0}")
    @ValueSource(booleans = {false, true})
    void aSubscriberOverTheSoftLimitForItsSecondsIsClosed(boolean bytewise) throws Exception {
        this.bytewise = bytewise;
        registry.limit(new OutputLimit(0, 500, 1));
        Client slow = new Client(new StalledChannel());
        slow.expect("SUBSCRIBE c\r\n", "");
        long start = System.nanoTime();
        for (int i = 0; i < 10; i++) {
            registry.publish("c", new byte[100]);
        }
        assertThat(slow.channel.isOpen()).as("over the soft limit, for less than its second").isTrue();
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (slow.channel.isOpen() && System.nanoTime() < deadline) {
            slow.channel.runScheduledPendingTasks(); // the timer the subscriber set when it went over
            Thread.onSpinWait();
        }
        assertThat(slow.channel.isOpen()).isFalse();
        assertThat(System.nanoTime() - start).as("not before its second").isGreaterThanOrEqualTo(1_000_000_000L);
    }

    // ---- machinery ------------------------------------------------------------------------------------------

    /** A channel that never writes to its peer: what it is given stays in its outbound buffer. */
    private static final class StalledChannel extends EmbeddedChannel {
        @Override
        protected void doWrite(ChannelOutboundBuffer in) {
        }
    }

    private final class Client {
        final EmbeddedChannel channel;
        final ClientSession session;

        Client() {
            this(new EmbeddedChannel());
        }

        Client(EmbeddedChannel channel) {
            this.channel = channel;
            this.session = new ClientSession(nextId++, "127.0.0.1:" + (5000 + nextId));
            sessions.put(session.id(), session);
            channel.pipeline().addLast(new RespRequestDecoder(() -> 1 << 20),
                    new RespConnectionHandler(session, table, server));
            channels.add(channel);
        }

        /** Sends {@code script}, whole or byte by byte, and expects exactly {@code expected} back. */
        void expect(String script, String expected) {
            assertThat(visible(send(script))).as("replies to %s", visible(script)).isEqualTo(visible(expected));
        }

        String send(String script) {
            byte[] input = bytes(script);
            for (int from = 0; from < input.length; from += bytewise ? 1 : input.length) {
                ByteBuf buf = channel.alloc().buffer();
                buf.writeBytes(input, from, bytewise ? 1 : input.length);
                channel.writeInbound(buf);
            }
            return take();
        }

        /** @return what the client was sent since the last call */
        String take() {
            channel.runPendingTasks();
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            RespConnectionHandlerTest.collect(channel, out);
            return out.toString(StandardCharsets.ISO_8859_1);
        }
    }

    private static String confirm(String kind, String name, int count) {
        return "*3\r\n$" + kind.length() + "\r\n" + kind + "\r\n$" + name.length() + "\r\n" + name + "\r\n:" + count
                + "\r\n";
    }

    private static String visible(String s) {
        return s.replace("\r", "\\r").replace("\n", "\\n");
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.ISO_8859_1);
    }
}
