package tandem.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import tandem.server.command.ClientSession;
import tandem.server.command.CommandTable;
import tandem.server.command.Commands;
import tandem.server.command.ServerContext;
import tandem.server.pubsub.PubSubRegistry;
import tandem.server.resp.RespRequestDecoder;

/**
 * Publishers on several threads at once, subscribers on real sockets served by two event loops: every subscriber
 * gets every message it subscribed to, each publisher's in the order it published them, and each publish counts
 * the subscriptions it reached.
 */
@Timeout(60)
class PubSubConcurrencyTest {

    private static final int PUBLISHERS = 4;
    private static final int MESSAGES = 5_000;

    private final PubSubRegistry registry = new PubSubRegistry();
    private final CommandTable table = Commands.table();
    private final AtomicLong ids = new AtomicLong();
    private final ServerContext server = (ServerContext) java.lang.reflect.Proxy.newProxyInstance(
            getClass().getClassLoader(), new Class<?>[] {ServerContext.class},
            (proxy, method, args) -> method.getName().equals("pubsub") ? registry : null);
    private final EventLoopGroup group = new MultiThreadIoEventLoopGroup(2, NioIoHandler.newFactory());
    private final List<Socket> sockets = new ArrayList<>();

    @AfterEach
    void close() throws IOException {
        for (Socket s : sockets) {
            s.close();
        }
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    @Test
    void everySubscriberGetsEachPublishersMessagesInOrder() throws Exception {
        Channel listener = new ServerBootstrap().group(group).channel(NioServerSocketChannel.class)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        ch.pipeline().addLast(new RespRequestDecoder(() -> 1 << 20), new RespConnectionHandler(
                                new ClientSession(ids.incrementAndGet(), "local"), table, server));
                    }
                }).bind(new InetSocketAddress("127.0.0.1", 0)).syncUninterruptibly().channel();
        int port = ((InetSocketAddress) listener.localAddress()).getPort();
        InputStream channel = subscriber(port, "SUBSCRIBE c\r\n", 1);
        InputStream pattern = subscriber(port, "PSUBSCRIBE c*\r\n", 1);
        InputStream both = subscriber(port, "SUBSCRIBE c\r\nPSUBSCRIBE c*\r\n", 2);

        CountDownLatch go = new CountDownLatch(1);
        AtomicLong reached = new AtomicLong();
        List<Thread> publishers = new ArrayList<>();
        for (int p = 0; p < PUBLISHERS; p++) {
            int publisher = p;
            Thread t = new Thread(() -> {
                try {
                    go.await();
                } catch (InterruptedException e) {
                    return;
                }
                for (int n = 0; n < MESSAGES; n++) {
                    reached.addAndGet(registry.publish("c", (publisher + ":" + n).getBytes(StandardCharsets.UTF_8)));
                }
            }, "publisher-" + p);
            t.start();
            publishers.add(t);
        }
        go.countDown();
        assertThat(readAll(channel, 1)).as("the channel's subscriber").isEqualTo(PUBLISHERS * MESSAGES);
        assertThat(readAll(pattern, 1)).as("the pattern's subscriber").isEqualTo(PUBLISHERS * MESSAGES);
        assertThat(readAll(both, 2)).as("the subscriber of both").isEqualTo(2 * PUBLISHERS * MESSAGES);
        for (Thread t : publishers) {
            t.join();
        }
        assertThat(reached.get()).isEqualTo(4L * PUBLISHERS * MESSAGES);
    }

    private InputStream subscriber(int port, String request, int confirmations) throws IOException {
        Socket s = new Socket("127.0.0.1", port);
        s.setSoTimeout(20_000);
        sockets.add(s);
        s.getOutputStream().write(request.getBytes(StandardCharsets.US_ASCII));
        InputStream in = new BufferedInputStream(s.getInputStream());
        for (int i = 0; i < confirmations; i++) {
            assertThat(readArray(in).get(0)).endsWith("subscribe");
        }
        return in;
    }

    /**
     * Reads every message meant for one subscriber and checks each publisher's come in order, per subscription.
     *
     * @return how many were read
     */
    private static int readAll(InputStream in, int subscriptions) throws IOException {
        int[][] next = new int[2][PUBLISHERS];
        int read = 0;
        while (read < subscriptions * PUBLISHERS * MESSAGES) {
            List<String> push = readArray(in);
            int kind = push.get(0).equals("message") ? 0 : 1;
            String[] body = push.get(push.size() - 1).split(":");
            int publisher = Integer.parseInt(body[0]);
            assertThat(Integer.parseInt(body[1])).as("%s from publisher %d", push.get(0), publisher)
                    .isEqualTo(next[kind][publisher]++);
            read++;
        }
        return read;
    }

    private static List<String> readArray(InputStream in) throws IOException {
        int n = Integer.parseInt(line(in, '*'));
        List<String> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            int c = in.read();
            if (c == ':') {
                out.add(line(in, -1));
                continue;
            }
            int len = Integer.parseInt(line(in, -1));
            out.add(new String(in.readNBytes(len), StandardCharsets.UTF_8));
            in.readNBytes(2);
        }
        return out;
    }

    private static String line(InputStream in, int type) throws IOException {
        if (type >= 0) {
            assertThat(in.read()).isEqualTo(type);
        }
        StringBuilder sb = new StringBuilder();
        for (int c = in.read(); c != '\r'; c = in.read()) {
            if (c < 0) {
                throw new IOException("closed");
            }
            sb.append((char) c);
        }
        in.read();
        return sb.toString();
    }
}
