package tandem.server;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.osgi.framework.BundleContext;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.FieldOption;
import org.osgi.service.component.annotations.Modified;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.osgi.service.component.annotations.ReferencePolicyOption;
import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.Designate;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.ssl.SslHandler;
import io.netty.util.CharsetUtil;
import tandem.api.journal.ArchiveStatus;
import tandem.api.journal.JournalStatus;
import tandem.api.metrics.MetricsSink;
import tandem.api.metrics.MetricsSource;
import tandem.api.node.Node;
import tandem.api.replication.AckPolicy;
import tandem.api.replication.PsyncService;
import tandem.api.replication.ReplicationControl;
import tandem.api.replication.ReplicationStatus;
import tandem.api.replication.ReplicationStatusSource;
import tandem.api.server.ClientInfo;
import tandem.api.server.PubSub;
import tandem.api.store.StoreStatus;
import tandem.api.server.ServerStatus;
import tandem.api.tls.TlsMaterial;
import tandem.protocol.config.ConfigChange;
import tandem.server.acl.Acl;
import tandem.server.acl.AclCatalog;
import tandem.server.acl.User;
import tandem.server.command.ClientSession;
import tandem.server.command.CommandMonitor;
import tandem.server.command.CommandTable;
import tandem.server.command.Commands;
import tandem.server.command.KeyspaceCommands;
import tandem.server.command.RedisConfig;
import tandem.server.command.ServerContext;
import tandem.server.pipeline.InboundBudget;
import tandem.server.pipeline.NodeFrontend;
import tandem.server.pipeline.NodeSink;
import tandem.server.pubsub.OutputLimit;
import tandem.server.pubsub.PubSubRegistry;
import tandem.server.resp.RespRequestDecoder;

/**
 * The RESP listener: accepts clients, frames their requests and answers them.
 *
 * <p>Requests are executed by the node core ({@link Node}); this component owns connections, RESP, the command
 * table and {@code CONFIG}. It references the node core and the replication protocols; none references it but
 * for status, so the services form no cycle.
 *
 * <p>Port and bind address change live through {@link #modified}: the new listener is bound before the old one is
 * closed, and connected clients stay connected. An invalid change is refused with a logged reason and the running
 * configuration stays.
 */
@Component(service = {ServerStatus.class, MetricsSource.class, PubSub.class}, immediate = true,
        configurationPid = ServerSettings.PID)
@Designate(ocd = RespServer.Config.class)
public final class RespServer implements ServerContext, MetricsSource, PubSub {

    private static final Logger LOG = System.getLogger("tandem.server");

    @ObjectClassDefinition(id = ServerSettings.PID, name = "Tandem RESP server",
            description = "The Redis-protocol listener of the node.")
    public @interface Config {

        @AttributeDefinition(description = "TCP port of the plain-text RESP listener (0..65535; 0 picks a free port; "
                + "-1: none, for a node that serves TLS only). A change rebinds the listener live; connected clients "
                + "stay connected.")
        int port() default 6379;

        @AttributeDefinition(description = "TCP port of the TLS RESP listener, beside the plain one (Redis' "
                + "tls-port): 1..65535, 0 picks a free port, -1 (default): none. Its certificate, CAs and whether "
                + "clients must present a certificate are etc/tandem.tls.cfg's. A change rebinds it live.")
        int tls_port() default -1;

        @AttributeDefinition(description = "IP address literal the listener binds to: 127.0.0.1 (default, loopback "
                + "only), 0.0.0.0 for every IPv4 interface, ::1 or :: for IPv6. Host names are refused. A change "
                + "rebinds the listener live.")
        String bind() default "127.0.0.1";

        @AttributeDefinition(description = "Maximum number of connected clients (1..1000000). A client beyond it "
                + "is answered '-ERR max number of clients reached' and closed. Applies live.")
        int max_clients() default 10000;

        @AttributeDefinition(description = "Largest request in bytes (1024..2147483631): the bound on one bulk "
                + "argument (Redis' proto-max-bulk-len) and on a whole request. Default 512 MB. Applies live to "
                + "requests that start after the change.")
        int max_request_size() default 512 * 1024 * 1024;

        @AttributeDefinition(description = "I/O transport: auto (epoll when the native library loads, NIO "
                + "otherwise), epoll or nio. Read when the component activates.")
        String transport() default "auto";

        @AttributeDefinition(description = "Number of I/O threads serving connections (1..64). Read when the "
                + "component activates.")
        int io_threads() default 2;

        @AttributeDefinition(description = "Password every connection must present with AUTH (or HELLO ... AUTH) "
                + "before any other command; empty: none. Applies live to commands that follow (Redis' "
                + "requirepass).", type = org.osgi.service.metatype.annotations.AttributeType.PASSWORD)
        String requirepass() default "";

        @AttributeDefinition(description = "ACL file (Redis' aclfile): one 'user <name> <rules...>' line per user, "
                + "loaded all or nothing when the component activates or this setting changes, and by ACL LOAD; "
                + "ACL SAVE writes it. Relative to the node's home. Empty (default): users live in memory only. A "
                + "file that does not load keeps the component from activating (as Redis refuses to start).")
        String aclfile() default "";

        @AttributeDefinition(description = "Writes are refused with -NOREPLICAS, before they are journaled, while "
                + "fewer replicas than this (0..2; 0: never) are good. Applies live (Redis' min-replicas-to-write).")
        int min_replicas_to_write() default 0;

        @AttributeDefinition(description = "A replica is good for min.replicas.to.write when it acknowledged within "
                + "this many milliseconds, or holds everything (0..86400000; 0: any connected replica). Applies "
                + "live.")
        long min_replicas_timeout_ms() default 5000;

        @AttributeDefinition(description = "Commands that hold the logic thread at least this many microseconds "
                + "are kept in the slow log (SLOWLOG GET); -1: none, 0: every command. Applies live (Redis' "
                + "slowlog-log-slower-than).")
        long slowlog_log_slower_than() default 10_000;

        @AttributeDefinition(description = "How many entries the slow log keeps, the newest first (0 or more). "
                + "Applies live (Redis' slowlog-max-len).")
        int slowlog_max_len() default 128;

        @AttributeDefinition(description = "Commands that take at least this many milliseconds are recorded as "
                + "latency events (LATENCY LATEST); 0: off. Applies live (Redis' latency-monitor-threshold).")
        long latency_monitor_threshold() default 0;

        @AttributeDefinition(description = "The stall watchdog logs a warning, naming the command, when one piece "
                + "of work holds the logic thread (which serves every client) this many milliseconds, while it still "
                + "runs, and its full length when it ends (0..3600000; 0: off). Applies live.")
        long stall_warn_ms() default 1000;
    }

    private final Node node;
    private final CommandMonitor monitor = new CommandMonitor();
    private final NodeFrontend frontend;
    private final NodeSink sink;
    private final CommandTable table;
    private final Acl acl = new Acl(AclCatalog.get());
    private final RedisConfig config = new RedisConfig(new RedisConfig.Owner() {
        @Override
        public String value(String name) {
            return configValue(name);
        }

        @Override
        public void apply(Map<String, String> changes) {
            applyConfig(changes);
        }

        @Override
        public String refusal(String name, String value) {
            if (name.startsWith("tls-") && !name.equals("tls-port") && tls == null) {
                return "the TLS component (tandem.tls) is not active";
            }
            return FENCE_PARAMS.contains(name) && quorumFence == null
                    ? "the quorum fence (tandem.fencing) is not active" : null;
        }

        @Override
        public Map.Entry<String, String> prepare(Map<String, String> changes) {
            return prepareTls(changes);
        }
    });
    private static final java.util.Set<String> FENCE_PARAMS = java.util.Set.of("self-fence-on-replica-loss",
            "freshness-window-ms");
    private final PubSubRegistry pubsub = new PubSubRegistry();
    private final Map<Long, Connection> connections = new ConcurrentHashMap<>();
    private final AtomicLong nextClientId = new AtomicLong(1);
    private final AtomicLong totalConnections = new AtomicLong();
    private final long startedAtMillis = System.currentTimeMillis();
    private final String runId = newRunId();
    private final String version;
    /** The framework, which {@link #shutdown} stops. */
    private final org.osgi.framework.Bundle systemBundle;
    private final String transport;
    private final EventLoopGroup bossGroup;
    private final EventLoopGroup workerGroup;
    private final Class<? extends ServerChannel> channelClass;

    private volatile ServerSettings settings;
    private volatile Channel listener;
    private volatile Channel tlsListener;
    /** The node's TLS material, which the TLS listener's connections take their handshakes from. */
    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    private volatile TlsMaterial tls;
    /** Every replication protocol's status, for {@code INFO replication}. */
    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC,
            fieldOption = FieldOption.UPDATE)
    private final List<ReplicationStatusSource> replicationSources = new CopyOnWriteArrayList<>();
    /** Every replication protocol's operator actions ({@code REPLICAOF}, {@code FAILOVER}). */
    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC,
            fieldOption = FieldOption.UPDATE)
    private final List<ReplicationControl> replicationControls = new CopyOnWriteArrayList<>();
    /** The psync protocol's primary side, which a {@code PSYNC} connection is handed to. */
    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    private volatile PsyncService psync;
    /** The quorum fence, for {@code INFO replication} and {@code CONFIG GET/SET self-fence-on-replica-loss}. */
    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    private volatile tandem.api.fencing.QuorumFenceControl quorumFence;
    /** The failover group, for {@code SENTINEL} and {@code INFO}. */
    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    private volatile tandem.api.failover.FailoverGroup failoverGroup;
    /** The node's checkpoints, for {@code SAVE} and {@code BGSAVE}. */
    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    private volatile tandem.api.checkpoint.Checkpoints checkpoints;
    /** The node's backups: what {@code SAVE} and {@code BGSAVE} write when they are active. */
    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    private volatile tandem.api.checkpoint.Backups backups;
    private final tandem.server.command.Saves saves = new tandem.server.command.Saves();
    /** The split-brain audit's counters, for {@code INFO replication}. */
    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    private volatile tandem.api.fencing.SplitBrainAudit splitBrainAudit;

    private record Connection(Channel channel, ClientSession session) {
    }

    @Activate
    public RespServer(Config config, BundleContext context, @Reference Node node) {
        ServerSettings s = ServerSettings.of(config);
        this.version = context.getBundle().getVersion().toString();
        this.systemBundle = context.getBundle(org.osgi.framework.Constants.SYSTEM_BUNDLE_LOCATION);
        this.node = node;
        this.table = Commands.table().with(() -> KeyspaceCommands.specs(node.commands()));
        this.frontend = new NodeFrontend(InboundBudget.ofHeap(), monitor, this, this);
        this.sink = new NodeSink(node::open, node::resolve, table, frontend, acl, new NodeSink.Scripts() {
            @Override
            public long runningMillis() {
                return node.scriptRunningMillis();
            }

            @Override
            public String kill(boolean function) {
                return node.killScript(function);
            }

            @Override
            public boolean functionRunning() {
                return node.functionRunning();
            }

            @Override
            public long busyMillis() {
                long ms = Long.parseLong(RespServer.this.config.value("busy-reply-threshold"));
                return ms == 0 ? Long.MAX_VALUE : ms;
            }
        });
        acl.onChange(this::userChanged);
        acl.requirePass(s.requirePass());
        if (s.aclFile() != null) {
            String errors = acl.load(s.aclFile());
            if (errors != null) {
                // as Redis aborts its start: a node must not serve with other permissions than its file grants
                throw new IllegalStateException("tandem.server: the ACL file " + s.aclFile() + " does not load, so the "
                        + "RESP server does not start: " + errors);
            }
            LOG.log(Level.INFO, "ACL users loaded from {0}", s.aclFile());
        }
        node.attach(frontend);
        boolean epoll = switch (s.transport()) {
            case "epoll" -> {
                Epoll.ensureAvailability();
                yield true;
            }
            case "nio" -> false;
            default -> Epoll.isAvailable();
        };
        this.transport = epoll ? "epoll" : "nio";
        IoHandlerFactory factory = epoll ? EpollIoHandler.newFactory() : NioIoHandler.newFactory();
        this.channelClass = epoll ? EpollServerSocketChannel.class : NioServerSocketChannel.class;
        this.config.onMonitoringChange(this::monitoring);
        pubsub.tracking(new tandem.server.pubsub.Tracking(id -> {
            Connection c = connections.get(id);
            return c == null ? null : c.session().trackingTarget();
        }));
        this.config.onCommit(this::fromConfig);
        fromConfig();
        monitor(config);
        monitoring(this.config.monitoring());
        this.bossGroup = new MultiThreadIoEventLoopGroup(1, factory);
        this.workerGroup = new MultiThreadIoEventLoopGroup(s.ioThreads(), factory);
        apply(s);
        if (s.port() >= 0) {
            try {
                this.listener = bind(s.bindAddress(), s.port(), false);
                LOG.log(Level.INFO, "RESP server listening on {0} ({1}, {2} I/O threads)", listener.localAddress(),
                        transport, s.ioThreads());
            } catch (RuntimeException e) {
                // Stay active so that a configuration change (another port) can still bring the listener up; the
                // configuration FileInstall delivers from etc/ may also simply arrive after this first activation.
                LOG.log(Level.ERROR, "RESP server cannot listen on {0}:{1}: {2}; waiting for a configuration change",
                        s.bind(), Integer.toString(s.port()), String.valueOf(e.getMessage()));
            }
        }
        String refused = tlsListen(s);
        if (refused != null) {
            LOG.log(Level.ERROR, "RESP server: {0}; waiting for a configuration change", refused);
        }
    }

    @Modified
    void modified(Config config) {
        monitor(config);
        ServerSettings next = ConfigChange.validated(LOG, () -> ServerSettings.of(config));
        if (next == null) {
            return;
        }
        ServerSettings previous = settings;
        if (!next.transport().equals(previous.transport()) || next.ioThreads() != previous.ioThreads()) {
            LOG.log(Level.WARNING, "{0}: transport and io.threads apply when the component next activates",
                    ServerSettings.PID);
        }
        if (next.port() < 0) {
            Channel old = listener;
            listener = null;
            if (old != null) {
                old.close();
                LOG.log(Level.INFO, "RESP server: the plain-text listener on {0} is closed (port -1)",
                        old.localAddress());
            }
        } else if (listener == null) {
            try {
                listener = bind(next.bindAddress(), next.port(), false);
                LOG.log(Level.INFO, "RESP server listening on {0}", listener.localAddress());
            } catch (RuntimeException e) {
                LOG.log(Level.ERROR, "RESP server cannot listen on {0}:{1}: {2}", next.bind(),
                        Integer.toString(next.port()), String.valueOf(e.getMessage()));
            }
        } else if (!next.bindAddress().equals(previous.bindAddress())
                || (next.port() != previous.port() && next.port() != port())) {
            try {
                rebind(next);
            } catch (RuntimeException e) {
                LOG.log(Level.ERROR, "configuration change refused, still listening on {0}: cannot bind {1}:{2}: {3}",
                        listener.localAddress(), next.bind(), Integer.toString(next.port()), e.getMessage());
                return;
            }
        }
        if (next.tlsPort() != previous.tlsPort() || !next.bindAddress().equals(previous.bindAddress())
                || tlsListener == null) {
            String refused = tlsListen(next);
            if (refused != null) {
                LOG.log(Level.ERROR, "RESP server: {0}", refused);
            }
        }
        apply(next);
    }

    /**
     * Brings the TLS listener to {@code s.tlsPort()}: the new one is bound before the old one closes, so that
     * connected clients stay and a port that cannot be bound leaves the old listener serving.
     *
     * @return null when it listens as configured, else why not
     */
    private synchronized String tlsListen(ServerSettings s) {
        Channel old = tlsListener;
        if (s.tlsPort() < 0) {
            tlsListener = null;
            if (old != null) {
                old.close();
                LOG.log(Level.INFO, "RESP server: the TLS listener on {0} is closed", old.localAddress());
            }
            return null;
        }
        if (old != null && s.tlsPort() == ((InetSocketAddress) old.localAddress()).getPort()
                && s.bindAddress().equals(((InetSocketAddress) old.localAddress()).getAddress())) {
            return null;
        }
        try {
            tlsListener = bind(s.bindAddress(), s.tlsPort(), true);
        } catch (RuntimeException e) {
            return "cannot listen for TLS on " + s.bind() + ":" + s.tlsPort() + ": " + e.getMessage();
        }
        if (old != null) {
            old.close();
        }
        LOG.log(Level.INFO, "RESP server listening for TLS on {0}", tlsListener.localAddress());
        return null;
    }

    /**
     * Gives the command monitor its settings from the configuration: the slow log and latency ones through
     * {@code CONFIG}'s parameters (which {@code CONFIG SET} changes until the next activation, and which tell the
     * monitor through {@link #monitoring}), the stall watchdog directly. An invalid one is refused with a logged
     * reason.
     */
    private void monitor(Config c) {
        try {
            MonitorSettings m = MonitorSettings.of(c);
            String refused = config.set(List.of("slowlog-log-slower-than", Long.toString(m.slowlogSlowerThanMicros()),
                    "slowlog-max-len", Integer.toString(m.slowlogMaxLen()),
                    "latency-monitor-threshold", Long.toString(m.latencyThresholdMillis())));
            if (refused != null) {
                throw new IllegalArgumentException(refused);
            }
            monitor.stallWarn(m.stallWarnMillis());
        } catch (IllegalArgumentException e) {
            LOG.log(Level.ERROR, "configuration change refused, the running monitor settings stay: {0}",
                    e.getMessage());
        }
    }

    /** The slow log and latency parameters, as {@code CONFIG} holds them, applied to the command monitor. */
    private void monitoring(RedisConfig.Monitoring m) {
        monitor.slowlog(m.slowlogLogSlowerThan(), (int) Math.min(Integer.MAX_VALUE, m.slowlogMaxLen()));
        monitor.latencyThreshold(m.latencyMonitorThreshold());
        monitor.latencyTracking(m.latencyTracking(),
                m.latencyTrackingInfoPercentiles().stream().mapToDouble(Double::doubleValue).toArray());
    }

    /** Gives the subscribers the output buffer limit and the keyspace notification classes {@code CONFIG} holds. */
    private void fromConfig() {
        pubsub.limit(OutputLimit.pubsub(config.value("client-output-buffer-limit")));
        pubsub.keyspaceEvents(config.keyspaceEvents());
    }

    /** Makes {@code next} the running configuration, with what the node core enforces of it. */
    private void apply(ServerSettings next) {
        ServerSettings previous = settings;
        settings = next;
        if (previous != null && !java.util.Objects.equals(previous.requirePass(), next.requirePass())) {
            acl.requirePass(next.requirePass());
        }
        if (previous != null && !java.util.Objects.equals(previous.aclFile(), next.aclFile()) && next.aclFile() != null) {
            String errors = acl.load(next.aclFile());
            LOG.log(errors == null ? Level.INFO : Level.ERROR, errors == null ? "ACL users loaded from {0}"
                    : "the ACL file {0} does not load, the users stay as they were: {1}", next.aclFile(), errors);
        }
        node.minReplicasToWrite(next.minReplicasToWrite(), next.minReplicasTimeoutMs());
    }

    private void rebind(ServerSettings next) {
        Channel old = listener;
        Channel fresh;
        try {
            fresh = bind(next.bindAddress(), next.port(), false);
        } catch (RuntimeException e) {
            if (next.port() != ((InetSocketAddress) old.localAddress()).getPort()) {
                throw e;
            }
            // same port on another address may collide with the old listener: release it, then retry
            old.close().syncUninterruptibly();
            try {
                fresh = bind(next.bindAddress(), next.port(), false);
            } catch (RuntimeException again) {
                listener = bind(settings.bindAddress(), settings.port(), false);
                throw again;
            }
        }
        listener = fresh;
        old.close();
        LOG.log(Level.INFO, "RESP server rebound from {0} to {1}", old.localAddress(), fresh.localAddress());
    }

    private Channel bind(java.net.InetAddress address, int port, boolean secure) {
        ServerBootstrap bootstrap = new ServerBootstrap()
                .group(bossGroup, workerGroup)
                .channel(channelClass)
                .option(ChannelOption.SO_REUSEADDR, true)
                .option(ChannelOption.SO_BACKLOG, 511)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childOption(ChannelOption.WRITE_BUFFER_WATER_MARK, new WriteBufferWaterMark(256 * 1024, 1024 * 1024))
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        accept(ch, secure);
                    }
                });
        ChannelFuture bound = bootstrap.bind(new InetSocketAddress(address, port)).awaitUninterruptibly();
        if (!bound.isSuccess()) {
            // Netty rethrows the checked bind failure undeclared; wrap it so that callers can handle it
            throw new IllegalStateException(String.valueOf(bound.cause().getMessage()), bound.cause());
        }
        return bound.channel();
    }

    private void accept(SocketChannel ch, boolean secure) {
        SslHandler ssl = null;
        if (secure) {
            TlsMaterial t = tls;
            try {
                if (t == null) {
                    throw new IllegalStateException("the TLS component (tandem.tls) is not active");
                }
                ssl = new SslHandler(t.serverEngine(t.clientAuth()));
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "TLS client {0} closed: {1}", ch.remoteAddress(), e.getMessage());
                ch.close();
                return;
            }
            InetSocketAddress peer = ch.remoteAddress();
            ssl.handshakeFuture().addListener(f -> {
                if (!f.isSuccess()) {
                    LOG.log(Level.INFO, "TLS handshake with {0} failed: {1}", peer, tandem.protocol.net.TlsFailures.reason(f.cause()));
                }
            });
            // first, so that even the refusal below reaches the client encrypted
            ch.pipeline().addLast("tls", ssl);
        }
        totalConnections.incrementAndGet();
        if (connectedClients() >= settings.maxClients()) {
            ch.writeAndFlush(Unpooled.copiedBuffer("-ERR max number of clients reached\r\n", CharsetUtil.US_ASCII))
                    .addListener(ChannelFutureListener.CLOSE);
            LOG.log(Level.WARNING, "refused client {0}: max.clients={1} reached", ch.remoteAddress(),
                    settings.maxClients());
            return;
        }
        InetSocketAddress remote = ch.remoteAddress();
        ClientSession session = new ClientSession(nextClientId.getAndIncrement(),
                remote.getAddress().getHostAddress() + ":" + remote.getPort());
        // as Redis's createClient: authenticated when the default user needs no password (and stays so after one is
        // set)
        session.authenticated(!acl.authRequired());
        InetSocketAddress local = ch.localAddress();
        session.localAddress(local.getAddress().getHostAddress() + ":" + local.getPort());
        connections.put(session.id(), new Connection(ch, session));
        ch.closeFuture().addListener(f -> connections.remove(session.id()));
        ch.pipeline()
                .addLast("resp-decoder", new RespRequestDecoder(() -> settings.maxRequestSize(),
                        () -> session.authenticated() || !acl.authRequired()))
                .addLast("resp-handler", new RespConnectionHandler(session, table, this, sink));
    }

    @Deactivate
    void deactivate() {
        for (Channel l : new Channel[] {listener, tlsListener}) {
            if (l != null) {
                l.close().syncUninterruptibly();
            }
        }
        connections.values().forEach(c -> c.channel().close());
        saves.close();
        shutdownGroups();
        node.detach(frontend);
        monitor.close();
        LOG.log(Level.INFO, "RESP server stopped");
    }

    private void shutdownGroups() {
        bossGroup.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
        workerGroup.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
    }

    @Override
    public String bindAddress() {
        return settings.bind();
    }

    @Override
    public int port() {
        Channel l = listener;
        return l == null ? tlsPort() : ((InetSocketAddress) l.localAddress()).getPort();
    }

    @Override
    public int tlsPort() {
        Channel l = tlsListener;
        return l == null ? -1 : ((InetSocketAddress) l.localAddress()).getPort();
    }

    @Override
    public String transport() {
        return transport;
    }

    @Override
    public int maxClients() {
        return settings.maxClients();
    }

    /** @return the connected clients, without the replicas among them (as Redis counts) */
    @Override
    public void collect(MetricsSink sink) {
        monitor.collect(sink);
        sink.gauge("tandem_connected_clients", "Clients connected now", connectedClients());
        sink.counter("tandem_connections_total", "Connections accepted since the server started",
                totalConnections());
    }

    @Override
    public int connectedClients() {
        int n = 0;
        for (Connection c : connections.values()) {
            if (!c.session().replica()) {
                n++;
            }
        }
        return n;
    }

    @Override
    public long totalConnections() {
        return totalConnections.get();
    }

    @Override
    public List<ClientInfo> clients() {
        List<ClientInfo> list = new ArrayList<>();
        for (Connection c : connections.values()) {
            if (!c.session().replica()) {
                list.add(c.session().info());
            }
        }
        list.sort(Comparator.comparingLong(ClientInfo::id));
        return list;
    }

    @Override
    public List<Peer> peers() {
        List<Peer> peers = new ArrayList<>();
        for (Connection c : connections.values()) {
            ClientSession s = c.session();
            String type = s.replica() ? "replica" : s.subscriptions() != null && s.subscriptions().active() ? "pubsub"
                    : "normal";
            String laddr = c.channel().localAddress() instanceof java.net.InetSocketAddress local
                    ? local.getAddress().getHostAddress() + ":" + local.getPort() : "";
            peers.add(new Peer(s.id(), s.remoteAddress(), laddr, type, s.user()));
        }
        peers.sort(Comparator.comparingLong(Peer::id));
        return peers;
    }

    @Override
    public boolean kill(long id) {
        Connection c = connections.get(id);
        if (c == null) {
            return false;
        }
        LOG.log(Level.INFO, "closing client id={0} addr={1}: killed (CLIENT KILL or server:kill)", id,
                c.session().remoteAddress());
        c.channel().close();
        return true;
    }

    @Override
    public tandem.api.failover.FailoverGroup failoverGroup() {
        return failoverGroup;
    }

    @Override
    public tandem.api.checkpoint.Checkpoints checkpoints() {
        return checkpoints;
    }

    @Override
    public tandem.api.checkpoint.Backups backups() {
        return backups;
    }

    @Override
    public tandem.server.command.Saves saves() {
        return saves;
    }

    @Override
    public tandem.api.fencing.QuorumFenceStatus quorumFence() {
        return quorumFence;
    }

    @Override
    public tandem.api.fencing.SplitBrainAudit splitBrainAudit() {
        return splitBrainAudit;
    }

    @Override
    public JournalStatus journalStatus() {
        return node.journalStatus();
    }

    @Override
    public ArchiveStatus archiveStatus() {
        return node.archiveStatus();
    }

    @Override
    public StoreStatus storeStatus() {
        return node.storeStatus();
    }

    @Override
    public String applyStopped() {
        return node.applyStopped();
    }

    @Override
    public int blockedClients() {
        return node.blockedClients();
    }

    @Override
    public boolean loading() {
        return node.loading();
    }

    @Override
    public String notReady() {
        return node.notReady();
    }

    @Override
    public tandem.server.pubsub.Subscriptions subscriptions(long id) {
        Connection c = connections.get(id);
        return c == null ? null : c.session().subscriptions();
    }

    @Override
    public PubSubRegistry pubsub() {
        return pubsub;
    }

    @Override
    public long publish(String channel, byte[] message) {
        return pubsub.publish(channel, message);
    }

    @Override
    public long publish(byte[] channel, byte[] message, boolean shard) {
        return pubsub.publish(channel, message, shard);
    }

    @Override
    public int keyspaceEventClasses() {
        return pubsub.keyspaceEventClasses();
    }

    @Override
    public void keyspaceEvent(int type, String event, int db, byte[] key, long writer) {
        pubsub.keyspaceEvent(type, event, db, key, writer);
    }

    @Override
    public CommandMonitor monitor() {
        return monitor;
    }

    @Override
    public void shutdown(String who) {
        LOG.log(Level.WARNING, "SHUTDOWN by {0}: stopping the node", who);
        // not on this thread: stopping the framework deactivates this component, which waits for its event loops
        Thread stopper = new Thread(() -> {
            try {
                systemBundle.stop();
            } catch (org.osgi.framework.BundleException | RuntimeException e) {
                LOG.log(Level.ERROR, "SHUTDOWN: the framework did not stop", e);
            }
        }, "tandem-shutdown");
        stopper.start();
    }

    @Override
    public String version() {
        return version;
    }

    @Override
    public String runId() {
        return runId;
    }

    private static String newRunId() {
        byte[] bytes = new byte[20];
        new SecureRandom().nextBytes(bytes);
        return HexFormat.of().formatHex(bytes);
    }

    @Override
    public long startedAtMillis() {
        return startedAtMillis;
    }

    @Override
    public long processId() {
        return ProcessHandle.current().pid();
    }

    @Override
    public RedisConfig config() {
        return config;
    }

    @Override
    public void resetStats() {
        totalConnections.set(0);
        monitor.resetStats();
    }

    /** The parameters of {@code CONFIG} this server owns, as Redis renders them. */
    private String configValue(String name) {
        ServerSettings s = settings;
        if (name.startsWith("tls-") && !name.equals("tls-port")) {
            TlsMaterial t = tls;
            String v = t == null ? null : t.parameters().get(name);
            return v == null ? "" : bytes(v);
        }
        return switch (name) {
            case "port" -> {
                Channel l = listener;
                yield Integer.toString(l == null ? Math.max(0, s.port()) : ((InetSocketAddress) l.localAddress())
                        .getPort());
            }
            case "tls-port" -> Integer.toString(Math.max(0, tlsPort()));
            case "bind" -> s.bind();
            case "io-threads" -> Integer.toString(s.ioThreads());
            case "dir" -> bytes(System.getProperty("user.dir"));
            case "replicaof" -> {
                String upstream = node.upstream();
                int colon = upstream == null ? -1 : upstream.lastIndexOf(':');
                yield colon < 0 ? "" : upstream.substring(0, colon) + " " + upstream.substring(colon + 1);
            }
            case "maxclients" -> Integer.toString(s.maxClients());
            case "proto-max-bulk-len" -> Integer.toString(s.maxRequestSize());
            case "requirepass" -> s.requirePass() == null ? "" : bytes(s.requirePass());
            case "aclfile" -> s.aclFile() == null ? "" : bytes(s.aclFile().toString());
            case "acllog-max-len" -> Integer.toString(acl.log().maxLen());
            case "acl-pubsub-default" -> acl.allChannelsByDefault() ? "allchannels" : "resetchannels";
            case "min-replicas-to-write" -> Integer.toString(s.minReplicasToWrite());
            // Redis' name counts seconds; rounded up so that a window in milliseconds never reads as 0 (off)
            case "min-replicas-max-lag" -> Long.toString((s.minReplicasTimeoutMs() + 999) / 1000);
            case "min-replicas-timeout-ms" -> Long.toString(s.minReplicasTimeoutMs());
            // without the fence, nothing fences: "no", and the fence's default window
            case "self-fence-on-replica-loss" -> quorumFence != null && quorumFence.status().selfFence() ? "yes" : "no";
            case "freshness-window-ms" -> quorumFence == null ? "5000"
                    : Long.toString(quorumFence.status().windowMillis());
            default -> throw new IllegalArgumentException("not a parameter of the server: " + name);
        };
    }

    /**
     * Applies {@code CONFIG SET}'s TLS changes, which can fail as they apply: the material first (it loads or nothing
     * changes), then the TLS port (bound before the old one closes); when the port cannot be bound the material
     * changed by the same request is set back.
     *
     * @return null when applied, else the parameter to name and Redis' reason
     */
    private Map.Entry<String, String> prepareTls(Map<String, String> changes) {
        Map<String, String> material = new java.util.LinkedHashMap<>(changes);
        material.keySet().removeIf(name -> !name.startsWith("tls-") || name.equals("tls-port"));
        TlsMaterial t = tls;
        Map<String, String> before = null;
        if (!material.isEmpty()) {
            before = t.parameters();
            Map<String, String> utf8 = new java.util.LinkedHashMap<>();
            material.forEach((k, v) -> utf8.put(k, new String(v.getBytes(StandardCharsets.ISO_8859_1),
                    StandardCharsets.UTF_8)));
            String refused = t.set(utf8);
            if (refused != null) {
                LOG.log(Level.ERROR, "CONFIG SET of TLS parameters refused: {0}", refused);
                return Map.entry(material.keySet().iterator().next(),
                        "Unable to update TLS configuration. Check server logs.");
            }
        }
        String port = changes.get("tls-port");
        if (port != null) {
            int p = Integer.parseInt(port);
            ServerSettings next = settings.withTlsPort(p == 0 ? -1 : p);
            String refused = tlsListen(next);
            if (refused != null) {
                LOG.log(Level.ERROR, "CONFIG SET tls-port refused: {0}", refused);
                if (before != null) {
                    Map<String, String> back = new java.util.LinkedHashMap<>();
                    for (String k : material.keySet()) {
                        back.put(k, before.get(k));
                    }
                    t.set(back);
                }
                return Map.entry("tls-port", "Unable to listen on this port. Check server logs.");
            }
            settings = next;
        }
        return null;
    }

    /** @return the UTF-8 bytes of {@code text} as ISO-8859-1 characters, the form in which CONFIG keeps values */
    private static String bytes(String text) {
        return new String(text.getBytes(StandardCharsets.UTF_8), StandardCharsets.ISO_8859_1);
    }

    /** Applies {@code CONFIG SET} to the running configuration; ConfigAdmin's stays as it is. */
    private void applyConfig(Map<String, String> changes) {
        ServerSettings next = settings;
        for (Map.Entry<String, String> e : changes.entrySet()) {
            String value = e.getValue();
            if (e.getKey().startsWith("tls-")) {
                continue; // applied by prepareTls
            }
            tandem.api.fencing.QuorumFenceControl fence = quorumFence;
            if (e.getKey().equals("self-fence-on-replica-loss") && fence != null) {
                fence.override(value.equalsIgnoreCase("yes"), null);
                continue;
            }
            if (e.getKey().equals("freshness-window-ms") && fence != null) {
                fence.override(null, Long.parseLong(value));
                continue;
            }
            next = switch (e.getKey()) {
                // AUTH compares the password's UTF-8 bytes, as for one from etc/tandem.server.cfg
                case "requirepass" -> next.withRequirePass(new String(value.getBytes(StandardCharsets.ISO_8859_1),
                        StandardCharsets.UTF_8));
                case "maxclients" -> next.withMaxClients(Integer.parseInt(value));
                case "acllog-max-len" -> {
                    acl.log().maxLen((int) Math.min(Integer.MAX_VALUE, Long.parseLong(value)));
                    yield next;
                }
                case "acl-pubsub-default" -> {
                    acl.allChannelsByDefault(value.equalsIgnoreCase("allchannels"));
                    yield next;
                }
                case "proto-max-bulk-len" -> next.withMaxRequestSize(Integer.parseInt(value));
                case "min-replicas-to-write" -> next.withMinReplicas(Integer.parseInt(value),
                        next.minReplicasTimeoutMs());
                case "min-replicas-max-lag" -> next.withMinReplicas(next.minReplicasToWrite(),
                        Long.parseLong(value) * 1000);
                case "min-replicas-timeout-ms" -> next.withMinReplicas(next.minReplicasToWrite(),
                        Long.parseLong(value));
                default -> throw new IllegalArgumentException("not a parameter the server applies: " + e.getKey());
            };
        }
        apply(next);
    }

    // ---- replication ------------------------------------------------------------------------------------------

    @Override
    public AckPolicy ackPolicy() {
        return node.ackPolicy();
    }

    @Override
    public String upstream() {
        return node.upstream();
    }

    @Override
    public boolean unblock(long clientId, boolean error) {
        return node.unblock(clientId, error);
    }

    @Override
    public void pause(long millis, boolean writesOnly) {
        node.pause(millis, writesOnly);
    }

    @Override
    public void unpause() {
        node.unpause();
    }

    @Override
    public String upstreamProtocol() {
        return node.upstreamProtocol();
    }

    @Override
    public tandem.server.command.InternalClient internalClient() {
        return new tandem.server.command.InternalClient(node::open, args -> table.resolve(args, node::resolve));
    }

    @Override
    public String requirePass() {
        return settings.requirePass();
    }

    @Override
    public Acl acl() {
        return acl;
    }

    @Override
    public java.nio.file.Path aclFile() {
        return settings.aclFile();
    }

    /**
     * A user was deleted ({@code user} null) or its channels narrowed: as Redis, its connections are closed (a
     * narrowed user's only those subscribed to what it may no longer use).
     */
    private void userChanged(String name, User user) {
        for (Connection c : connections.values()) {
            ClientSession s = c.session();
            if (!s.user().equals(name)) {
                continue;
            }
            if (user == null || !s.subscriptions().allowedBy(
                    (channel, pattern) -> acl.channelAllowed(user, channel, pattern))) {
                LOG.log(Level.INFO, "closing client id={0} addr={1}: its ACL user {2} was {3}", s.id(),
                        s.remoteAddress(), name, user == null ? "deleted" : "denied a channel it is subscribed to");
                c.channel().close();
            }
        }
    }

    @Override
    public PsyncService psyncService() {
        return psync;
    }

    @Override
    public ReplicationControl replicationControl(String protocol) {
        for (ReplicationControl c : replicationControls) {
            if (c.protocol().equals(protocol)) {
                return c;
            }
        }
        return null;
    }

    @Override
    public long backlogStart() {
        return node.backlogStart();
    }

    @Override
    public long offsetAfter(long sequence) {
        return node.offsetAfter(sequence);
    }

    @Override
    public java.util.Map<String, String> replicationTransports() {
        java.util.Map<String, String> out = new java.util.TreeMap<>();
        for (ReplicationStatusSource source : replicationSources) {
            try {
                String t = source.transportStatus();
                if (t != null) {
                    out.put(source.replicationStatus().protocol(), t);
                }
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "a replication status source failed: {0}", e.toString());
            }
        }
        return out;
    }

    @Override
    public List<ReplicationStatus> replicationStatuses() {
        List<ReplicationStatus> out = new ArrayList<>();
        for (ReplicationStatusSource source : replicationSources) {
            try {
                out.add(source.replicationStatus());
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "a replication status source failed: {0}", e.toString());
            }
        }
        return out;
    }
}
