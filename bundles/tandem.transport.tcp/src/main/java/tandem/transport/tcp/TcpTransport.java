package tandem.transport.tcp;

import java.io.IOException;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Modified;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.osgi.service.component.annotations.ReferencePolicyOption;
import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.Designate;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.ssl.SslHandler;
import tandem.api.transport.FrameLink;
import tandem.api.transport.FrameListener;
import tandem.api.transport.FrameSession;
import tandem.api.transport.FrameTransport;
import tandem.api.tls.TlsMaterial;
import tandem.protocol.config.ConfigChange;
import tandem.protocol.net.TlsFailures;
import tandem.protocol.replication.Frames;

/**
 * The journal protocol's frame transport over TCP: one Netty event loop group (epoll when the native library
 * loads, NIO otherwise) carries every listener and link of the node's replication.
 *
 * <p>The component owns the group, so stopping or updating this bundle ends every link it carries: deactivation
 * closes listeners and links with the reason {@value #STOPPED} and shuts the group down without a quiet period,
 * bounded to a few seconds, because a replication bundle waiting on a hot swap must not wait for idle sockets.
 * Sessions see {@code closed} and reconnect through the transport that replaces this one.
 *
 * <p>The write-buffer water marks and {@code tcp.nodelay} change live through {@link #modified}, for new and open
 * links; {@code io.threads} applies when the component next activates. An invalid change is refused with a logged
 * reason and the running configuration stays.
 */
@Component(service = FrameTransport.class, immediate = true, configurationPid = TcpSettings.PID,
        property = "transport=tcp")
@Designate(ocd = TcpTransport.Config.class)
public final class TcpTransport implements FrameTransport {

    private static final Logger LOG = System.getLogger("tandem.transport.tcp");

    static final String STOPPED = "transport stopped";

    @ObjectClassDefinition(id = TcpSettings.PID, name = "Tandem TCP transport",
            description = "Carries the journal replication protocol's length-prefixed frames over TCP.")
    public @interface Config {

        @AttributeDefinition(description = "Number of I/O threads carrying every replication listener and link "
                + "(1..64, default 1: a primary serves at most two replicas). Read when the component activates.")
        int io_threads() default 1;

        @AttributeDefinition(description = "High-water mark of a link's outbound buffer, in bytes (1024..2^30, "
                + "default 4 MiB): above it the link reports itself not writable and the replication protocol "
                + "stops queueing frames. Applies live to new and open links.")
        int write_buffer_high_bytes() default 4 * 1024 * 1024;

        @AttributeDefinition(description = "Low-water mark of a link's outbound buffer, in bytes (0..2^30, "
                + "default 1 MiB, less than write.buffer.high.bytes): once a link that was not writable drains "
                + "below it, the protocol is told it may send again. Applies live to new and open links.")
        int write_buffer_low_bytes() default 1024 * 1024;

        @AttributeDefinition(description = "Disables Nagle's algorithm on every link (default true), so that an "
                + "acknowledgement or a small batch leaves at once instead of waiting for more bytes; the "
                + "protocol batches frames itself. Applies live to new and open links.")
        boolean tcp_nodelay() default true;

        @AttributeDefinition(description = "Carries the frames over mutual TLS (default false): a listener requires "
                + "a certificate issued by a CA of etc/tandem.tls.cfg, and a link presents this node's client "
                + "certificate, so both ends must set it. The Ed25519 authentication runs inside as before. Applies "
                + "live to connections that open after the change.")
        boolean tls() default false;
    }

    private final String transport;
    private final int ioThreads;
    private final EventLoopGroup group;
    private final Class<? extends ServerChannel> serverChannelClass;
    private final Class<? extends Channel> channelClass;
    private final Set<NettyFrameListener> listeners = ConcurrentHashMap.newKeySet();
    private final Set<NettyFrameLink> links = ConcurrentHashMap.newKeySet();

    private volatile TcpSettings settings;
    /** The node's TLS material, for {@code tls=true}. */
    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    private volatile TlsMaterial tlsMaterial;
    private volatile boolean stopped;

    @Activate
    public TcpTransport(Config config) {
        this(config, true);
    }

    /** @param allowEpoll false forces NIO, so that tests cover both I/O handlers on a machine with epoll */
    TcpTransport(Config config, boolean allowEpoll) {
        TcpSettings s = TcpSettings.of(config);
        boolean epoll = allowEpoll && Epoll.isAvailable();
        IoHandlerFactory factory = epoll ? EpollIoHandler.newFactory() : NioIoHandler.newFactory();
        this.transport = epoll ? "epoll" : "nio";
        this.serverChannelClass = epoll ? EpollServerSocketChannel.class : NioServerSocketChannel.class;
        this.channelClass = epoll ? EpollSocketChannel.class : NioSocketChannel.class;
        this.ioThreads = s.ioThreads();
        this.group = new MultiThreadIoEventLoopGroup(ioThreads, factory);
        this.settings = s;
        LOG.log(Level.INFO, "TCP frame transport ready ({0}, {1} I/O threads)", transport, s.ioThreads());
    }

    @Modified
    void modified(Config config) {
        TcpSettings next = ConfigChange.validated(LOG, () -> TcpSettings.of(config));
        if (next == null) {
            return;
        }
        if (next.ioThreads() != ioThreads && next.ioThreads() != settings.ioThreads()) {
            LOG.log(Level.WARNING, "{0}: io.threads={1} applies when the component next activates; {2} threads "
                    + "stay", TcpSettings.PID, next.ioThreads(), ioThreads);
        }
        settings = next;
        for (NettyFrameLink link : links) {
            configure(link.channel(), next);
        }
    }

    private static void configure(Channel channel, TcpSettings s) {
        channel.config().setWriteBufferWaterMark(waterMark(s));
        channel.config().setOption(ChannelOption.TCP_NODELAY, s.tcpNoDelay());
    }

    private static WriteBufferWaterMark waterMark(TcpSettings s) {
        return new WriteBufferWaterMark(s.writeBufferLowBytes(), s.writeBufferHighBytes());
    }

    @Deactivate
    void deactivate() {
        stopped = true;
        for (NettyFrameListener listener : listeners) {
            listener.close(STOPPED);
        }
        for (NettyFrameLink link : links) {
            link.close(STOPPED);
        }
        // No quiet period: the closes above are already queued and run before the loops end; waiting for silence
        // would only hold up the bundle that replaces this one.
        if (!group.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly(3, TimeUnit.SECONDS)) {
            LOG.log(Level.WARNING, "TCP frame transport: I/O threads still running 3 s after shutdown");
        }
        LOG.log(Level.INFO, "TCP frame transport stopped");
    }

    @Override
    public String name() {
        return "tcp";
    }

    /** @return {@code epoll} or {@code nio} */
    String ioTransport() {
        return transport;
    }

    int openLinks() {
        return links.size();
    }

    @Override
    public FrameListener listen(String bindAddress, int port, int maxFrame, Supplier<FrameSession> sessions)
            throws IOException {
        Frames.checkMaxFrame(maxFrame);
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("port=" + port + " must be between 0 and 65535");
        }
        InetAddress address = IpLiteral.parse("bind address", bindAddress);
        String where = address.getHostAddress() + ":" + port;
        if (stopped) {
            throw new IOException("cannot listen on " + where + ": " + STOPPED);
        }
        NettyFrameListener listener = new NettyFrameListener(listeners::remove);
        TcpSettings s = settings;
        ServerBootstrap bootstrap = new ServerBootstrap()
                .group(group)
                .channel(serverChannelClass)
                .option(ChannelOption.SO_REUSEADDR, true)
                .childOption(ChannelOption.TCP_NODELAY, s.tcpNoDelay())
                .childOption(ChannelOption.WRITE_BUFFER_WATER_MARK, waterMark(s))
                .childHandler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        accept(ch, maxFrame, sessions, listener);
                    }
                });
        ChannelFuture bound;
        try {
            bound = bootstrap.bind(new InetSocketAddress(address, port)).awaitUninterruptibly();
        } catch (RejectedExecutionException e) {
            throw new IOException("cannot listen on " + where + ": " + STOPPED, e);
        }
        if (!bound.isSuccess()) {
            Throwable cause = bound.cause();
            throw new IOException("cannot listen on " + where + ": " + cause.getMessage(), cause);
        }
        listener.bound(bound.channel());
        listeners.add(listener);
        if (stopped) {
            listener.close(STOPPED);
        }
        LOG.log(Level.INFO, "replication transport listening on {0} ({1})", listener, transport);
        return listener;
    }

    private void accept(Channel ch, int maxFrame, Supplier<FrameSession> sessions, NettyFrameListener listener) {
        String remote = NettyFrameLink.format(ch.remoteAddress());
        FrameSession session;
        try {
            session = sessions.get();
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "refused link from " + remote + ": no session: " + e.getMessage(), e);
            ch.close();
            return;
        }
        if (session == null) {
            LOG.log(Level.WARNING, "refused link from {0}: no session", remote);
            ch.close();
            return;
        }
        configure(ch, settings); // the bootstrap's child options are those of listen time; a change since applies
        NettyFrameLink link = new NettyFrameLink(ch, remote);
        if (settings.tls()) {
            try {
                secure(ch, link, tls().serverEngine(TlsMaterial.ClientAuth.YES));
            } catch (IllegalStateException e) {
                LOG.log(Level.WARNING, "refused link from {0}: tls=true but {1}", remote, e.getMessage());
                ch.close();
                return;
            }
        }
        // tracked before the pipeline exists: an accepted channel is already active, so installing the adapter
        // opens the session at once, and a session must never hold a link that deactivation would miss
        track(link);
        listener.accepted(link);
        install(ch.pipeline(), maxFrame, session, link);
    }

    private void track(NettyFrameLink link) {
        links.add(link);
        link.channel().closeFuture().addListener(f -> links.remove(link));
        if (stopped) {
            link.close(STOPPED);
        }
    }

    @Override
    public void connect(String host, int port, int maxFrame, int connectMillis, FrameSession session) {
        Frames.checkMaxFrame(maxFrame);
        String target = host + ":" + port;
        InetAddress address;
        try {
            address = IpLiteral.parse("host", host);
        } catch (UnknownHostException e) {
            failLater(session, "connect to " + target + " failed: " + e.getMessage());
            return;
        }
        target = address.getHostAddress() + ":" + port;
        if (port < 1 || port > 65535) {
            failLater(session, "connect to " + target + " failed: port must be between 1 and 65535");
            return;
        }
        if (stopped) {
            failLater(session, "connect to " + target + " failed: " + STOPPED);
            return;
        }
        String remote = target;
        TcpSettings s = settings;
        Outbound outbound = new Outbound(remote, maxFrame, session);
        Bootstrap bootstrap = new Bootstrap()
                .group(group)
                .channel(channelClass)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, Math.max(1, connectMillis))
                .option(ChannelOption.TCP_NODELAY, s.tcpNoDelay())
                .option(ChannelOption.WRITE_BUFFER_WATER_MARK, waterMark(s))
                .handler(outbound);
        ChannelFuture connecting;
        try {
            connecting = bootstrap.connect(new InetSocketAddress(address, port));
        } catch (RejectedExecutionException e) {
            failLater(session, "connect to " + remote + " failed: " + STOPPED);
            return;
        }
        connecting.addListener((ChannelFuture f) -> {
            if (f.isSuccess()) {
                return;
            }
            FrameSessionAdapter adapter = outbound.adapter;
            String recorded = outbound.link == null ? null : outbound.link.closeReason();
            String why = recorded != null ? recorded : reason(f.cause());
            String reason = "connect to " + remote + " failed: " + why;
            LOG.log(Level.DEBUG, reason);
            if (adapter != null && f.channel().eventLoop().inEventLoop()) {
                adapter.notifyClosed(reason);
            } else if (adapter != null) {
                failOn(f.channel(), adapter, reason);
            } else {
                // the channel never registered (the group is shutting down): nothing else will report it
                failLater(session, reason);
            }
        });
    }

    private static void failOn(Channel ch, FrameSessionAdapter adapter, String reason) {
        try {
            ch.eventLoop().execute(() -> adapter.notifyClosed(reason));
        } catch (RejectedExecutionException e) {
            adapter.notifyClosed(reason);
        }
    }

    /** Reports a connect that never started on a transport thread, as the contract promises, when one is left. */
    private void failLater(FrameSession session, String reason) {
        LOG.log(Level.DEBUG, reason);
        try {
            group.next().execute(() -> session.closed(reason));
        } catch (RejectedExecutionException e) {
            session.closed(reason);
        }
    }

    private static String reason(Throwable t) {
        if (t == null) {
            return "cancelled";
        }
        String m = t.getMessage();
        return m == null || m.isBlank() ? t.getClass().getName() : m;
    }

    /** Builds an outbound channel's pipeline and keeps its adapter, the one place a failed connect is reported. */
    private final class Outbound extends ChannelInitializer<Channel> {

        private final String remote;
        private final int maxFrame;
        private final FrameSession session;
        private final boolean secure;
        volatile NettyFrameLink link;
        volatile FrameSessionAdapter adapter;

        Outbound(String remote, int maxFrame, FrameSession session) {
            this.remote = remote;
            this.maxFrame = maxFrame;
            this.session = session;
            this.secure = settings.tls();
        }

        @Override
        protected void initChannel(Channel ch) {
            NettyFrameLink l = new NettyFrameLink(ch, remote);
            link = l;
            track(l);
            if (secure) {
                try {
                    int colon = remote.lastIndexOf(':');
                    secure(ch, l, tls().clientEngine(remote.substring(0, colon),
                            Integer.parseInt(remote.substring(colon + 1))));
                } catch (IllegalStateException e) {
                    l.close("tls=true but " + e.getMessage());
                }
            }
            adapter = install(ch.pipeline(), maxFrame, session, l);
        }
    }

    /**
     * Installs the exact pipeline of every link of this transport: the frame decoder, then the adapter that drives
     * {@code session}. The session is opened when the channel becomes active, or at once when it already is (an
     * {@code EmbeddedChannel}). Public so that the tests of a protocol bundle can run its session over an
     * {@code EmbeddedChannel} through the same code as production; the package is not exported to OSGi.
     *
     * @param maxFrame the largest payload accepted, in bytes (1..2^31-5)
     * @return the link handed to {@code session}
     */
    public static FrameLink initPipeline(ChannelPipeline pipeline, int maxFrame, FrameSession session) {
        NettyFrameLink link = new NettyFrameLink(pipeline.channel());
        install(pipeline, maxFrame, session, link);
        return link;
    }

    /** @return the TLS material, or an {@link IllegalStateException} saying why there is none */
    private TlsMaterial tls() {
        TlsMaterial t = tlsMaterial;
        if (t == null) {
            throw new IllegalStateException("the TLS component (tandem.tls) is not active");
        }
        return t;
    }

    /**
     * Puts TLS first in the pipeline. Frames the session writes before the handshake ends wait in the TLS handler;
     * a failed handshake closes the link with its reason, which the session is told.
     */
    private static void secure(Channel ch, NettyFrameLink link, javax.net.ssl.SSLEngine engine) {
        SslHandler ssl = new SslHandler(engine);
        ssl.handshakeFuture().addListener(f -> {
            if (!f.isSuccess()) {
                String reason = "TLS handshake failed: " + TlsFailures.reason(f.cause());
                LOG.log(Level.WARNING, "replication link {0}: {1}", link.remoteAddress(), reason);
                link.close(reason);
            }
        });
        ch.pipeline().addFirst("tls", ssl);
    }

    private static FrameSessionAdapter install(ChannelPipeline pipeline, int maxFrame, FrameSession session,
            NettyFrameLink link) {
        FrameSessionAdapter adapter = new FrameSessionAdapter(session, link);
        pipeline.addLast("frame-decoder", new FrameLengthDecoder(maxFrame));
        pipeline.addLast("frame-session", adapter);
        return adapter;
    }
}
