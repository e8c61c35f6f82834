package tandem.server.pipeline;

import java.nio.charset.StandardCharsets;


import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import tandem.api.node.NodeClient;
import tandem.api.node.NodeSession;
import tandem.server.command.ClientSession;
import tandem.server.command.CommandContext;
import tandem.server.command.CommandTable;
import tandem.server.command.ServerContext;
import tandem.server.pubsub.Subscriber;
import tandem.server.pubsub.Subscriptions;
import tandem.server.resp.RespWriter;

/**
 * One client connection: its session, the buffer its replies collect in until they are due, and its side of the
 * node core ({@link NodeClient}).
 *
 * <p>Only the thread that executes the connection's commands touches the reply buffer (the node's logic thread, or
 * the event loop when commands run inline); {@link #flush()} hands the collected replies to the channel, which is
 * safe from any thread.
 */
public final class Connection implements CommandContext, NodeClient {

    private final Channel channel;
    private final ClientSession session;
    private final CommandTable table;
    private final ServerContext server;
    private final RespWriter writer = new RespWriter();
    private ByteBuf out;
    private boolean closeAfterReply;
    /** The connection as publishers see it, from its first subscription (or invalidation) on. */
    private Subscriber subscriber;
    /**
     * The connection's Pub/Sub commands handed to the node core and not yet run: while there are, whether a keyspace
     * command that follows them is refused in subscribed mode is not known yet ({@link NodeSink}).
     */
    final java.util.concurrent.atomic.AtomicInteger pubsubInFlight = new java.util.concurrent.atomic.AtomicInteger();
    /** Set while the connection's requests wait for its Pub/Sub commands to run; its event loop's. */
    java.util.ArrayDeque<Object> held;
    /** Mirrors {@code held != null} for the logic thread, which resumes the connection ({@link #released}). */
    volatile boolean holding;
    /** Runs on the event loop what {@link #held} holds, once nothing is in flight ({@link NodeSink#resume}). */
    Runnable resume;

    /** The bytes of this connection's requests received and not yet run ({@link InboundBudget}). */
    final java.util.concurrent.atomic.AtomicLong inbound = new java.util.concurrent.atomic.AtomicLong();
    /** The bytes of the current read's requests, counted against the budget at the read's end; its event loop's. */
    long readBytes;
    /** The bytes of requests that ran this round, released at the round's end; the logic thread's. */
    long ranBytes;
    /** Set while the inbound budget keeps this connection from being read. */
    volatile boolean budgetPaused;

    /** @return whether reading this connection is paused until the node catches up with what it sent */
    public boolean budgetPaused() {
        return budgetPaused;
    }

    /** @return whether reading this connection is paused until its Pub/Sub commands have run */
    public boolean holding() {
        return holding;
    }

    /** Set when QUIT or a protocol error has been seen by an inline sink: nothing after it is executed. */
    boolean ending;

    /** Set while a command finishes on another thread: what it leaves for that thread ({@link #later}). */
    private java.util.function.Supplier<String> later;

    /** The psync session this connection was handed to after {@code PSYNC}, or null for a client. */
    private volatile tandem.api.replication.PsyncSession psync;

    /** The node core's session of this connection, or null while it runs inline. */
    private NodeSession node;
    /** The front end that sends this connection's due replies, or null while it runs inline. */
    private NodeFrontend frontend;

    public Connection(Channel channel, ClientSession session, CommandTable table, ServerContext server) {
        this.channel = channel;
        this.session = session;
        this.table = table;
        this.server = server;
        tandem.server.command.CommandMonitor monitor = server == null ? null : server.monitor();
        if (monitor != null) {
            writer.errorSink(monitor::error);
        }
        session.trackingTarget(new tandem.server.pubsub.Tracking.Target() {
            @Override
            public boolean push(ByteBuf frame) {
                Subscriber s = subscriber();
                return s != null && s.push(frame);
            }

            @Override
            public int protocol() {
                return writer.protocol();
            }

            @Override
            public boolean subscribed() {
                return session.subscriptions().active();
            }
        });
    }

    /** The connection as publishers see it, made at its first use; null without a registry. Any thread. */
    private synchronized Subscriber subscriber() {
        if (subscriber == null && server != null && server.pubsub() != null) {
            subscriber = new Subscriber(channel, "id=" + session.id() + " addr=" + session.remoteAddress(),
                    server.pubsub(), writer::protocol);
        }
        return subscriber;
    }

    /** Connects this connection to the node core: its requests go to {@code session}. */
    void node(NodeSession session, NodeFrontend front) {
        this.node = session;
        this.frontend = front;
    }

    /** @return the node core's session of this connection, or null */
    NodeSession node() {
        return node;
    }

    @Override
    public long id() {
        return session.id();
    }

    /** @return how many error replies this connection has been written, for a command's failed calls */
    @Override
    public long errorReplies() {
        return writer.errors();
    }

    public Channel channel() {
        return channel;
    }

    @Override
    public ClientSession session() {
        return session;
    }

    /** @return 2 or 3: the protocol the connection speaks */
    public int protocol() {
        return writer.protocol();
    }

    /** The reply writer, aimed at this round's buffer (allocated on first use). */
    @Override
    public RespWriter reply() {
        if (out == null) {
            out = channel.alloc().buffer();
            writer.target(out);
        }
        return writer;
    }

    /** @return where the reply written next begins, for {@link #resetReply} */
    @Override
    public int replyMark() {
        writer.saveMark();
        return out == null ? 0 : out.writerIndex();
    }

    /** Takes back what was written after {@code mark}: a reply begun by a request that then failed. */
    @Override
    public void resetReply(int mark) {
        if (out != null) {
            out.writerIndex(mark);
        }
        writer.restoreMark();
    }

    @Override
    public ServerContext server() {
        return server;
    }

    @Override
    public CommandTable table() {
        return table;
    }

    @Override
    public void closeAfterReply() {
        closeAfterReply = true;
        ending = true;
    }

    @Override
    public java.util.function.Supplier<String> run(tandem.api.store.Command command) {
        table.dispatch(this, command);
        return takeLater();
    }

    @Override
    public String queueable(tandem.api.store.Command command) {
        return table.queueable(command);
    }

    @Override
    public void due() {
        frontend.due(this);
    }

    @Override
    public void released(tandem.api.store.Command command) {
        frontend.released(this, command.args());
        tandem.server.pubsub.Tracking tracking = server == null || server.pubsub() == null ? null
                : server.pubsub().tracking();
        if (tracking != null && tracking.active()) {
            // on the logic thread, right after the command ran: no write comes between the read and this
            tracking.ran(session.id(), readKeys(command), command.isFrontend() && command.name().equals("client")
                    && command.args().length > 1 && new String(command.args()[1], java.nio.charset.StandardCharsets.ISO_8859_1)
                            .equalsIgnoreCase("caching"));
        }
        if (NodeSink.changesSubscriptions(command) && pubsubInFlight.decrementAndGet() == 0 && holding) {
            eventLoop().execute(resume);
        }
    }

    /**
     * The keys a read command names, for client-side caching ({@code getKeysFromCommand}): by its key positions;
     * every argument of one whose keys move (a few names taken for keys cost an invalidation each, never a stale
     * cache); null for a write or a command without keys.
     */
    static java.util.List<byte[]> readKeys(tandem.api.store.Command command) {
        tandem.api.store.CommandDescriptor d = command.descriptor();
        if (d == null || d.write()) {
            return null;
        }
        byte[][] args = command.args();
        java.util.List<byte[]> keys = new java.util.ArrayList<>();
        if (d.flags().contains("movablekeys")) {
            for (int i = 1; i < args.length; i++) {
                keys.add(args[i]);
            }
        } else if (d.firstKey() > 0) {
            int last = d.lastKey() < 0 ? args.length + d.lastKey() : d.lastKey();
            for (int i = d.firstKey(); i <= last && i < args.length; i += Math.max(1, d.keyStep())) {
                keys.add(args[i]);
            }
        }
        return keys.isEmpty() ? null : keys;
    }

    @Override
    public Subscriptions subscriptions() {
        return session.subscriptions();
    }

    /** Sends the replies collected so far in one write, and closes the channel after them if asked to. */
    @Override
    public void flush() {
        send(takeReplies(), closeAfterReply, takeChanges());
    }

    /** @return the replies collected so far, for {@link #send}, leaving none; null when there are none */
    ByteBuf takeReplies() {
        ByteBuf buf = out;
        out = null;
        return buf;
    }

    /** @return the subscriptions that take effect once the replies taken now are written, or null */
    java.util.List<Subscriptions.Change> takeChanges() {
        return session.subscriptions().takeChanges();
    }

    /** @return whether the channel closes after the replies taken now (read on the logic thread, when taken) */
    boolean closesAfterReply() {
        return closeAfterReply;
    }

    io.netty.channel.EventLoop eventLoop() {
        return channel.eventLoop();
    }

    /**
     * Writes {@code buf} (taken by {@link #takeReplies}, may be null) in one write, and closes the channel after it
     * when {@code close} (as {@link #closesAfterReply} said when the replies were taken: a later round's QUIT must
     * not close the channel before its own reply). The subscriptions {@code changes} confirmed in them take effect
     * as they are written: a client that read a confirmation finds the subscription in effect for every publisher,
     * no message comes before the confirmation of its subscription, none after that of its unsubscription, and
     * every message queued for a subscription before it ends is written before its confirmation. On the channel's
     * event loop.
     */
    void send(ByteBuf buf, boolean close, java.util.List<Subscriptions.Change> changes) {
        if (buf == null) {
            if (close) {
                channel.close();
            }
            return;
        }
        if (!channel.isActive()) {
            buf.release();
            return;
        }
        if (changes != null && !close && server.pubsub() != null) {
            // before the confirmations are written, on this loop: nothing written to the channel comes between
            server.pubsub().apply(subscriber(), changes);
        }
        if (close) {
            channel.writeAndFlush(buf).addListener(ChannelFutureListener.CLOSE);
        } else if (buf.isReadable()) {
            channel.writeAndFlush(buf, channel.voidPromise());
        } else {
            buf.release();
        }
    }

    /**
     * Writes {@code line} (a simple or error reply, without its CRLF) at once, ahead of the node core: only for a
     * connection with nothing in flight there ({@link NodeSink}, while a script holds the logic thread). On its event
     * loop.
     */
    void answerNow(String line) {
        if (channel.isActive()) {
            channel.writeAndFlush(io.netty.buffer.Unpooled.copiedBuffer(line + "\r\n",
                    StandardCharsets.ISO_8859_1), channel.voidPromise());
        }
    }

    /** The channel closed: its subscriptions end. On its event loop. */
    public void closed() {
        Subscriber s;
        synchronized (this) {
            s = subscriber;
        }
        if (server != null && server.pubsub() != null) {
            server.pubsub().tracking().closed(session.id());
            if (s != null) {
                server.pubsub().closed(s);
            }
        }
    }

    @Override
    public tandem.api.replication.PsyncLink psyncLink() {
        flush(); // replies to what came before PSYNC leave before the psync stream starts
        return new NettyPsyncLink(channel);
    }

    @Override
    public void handOff(tandem.api.replication.PsyncSession session) {
        psync = session;
        session().replica(true);
    }

    @Override
    public void later(java.util.function.Supplier<String> work) {
        later = work;
    }

    /** @return the work {@link #later} left for another thread, clearing it; null when none */
    java.util.function.Supplier<String> takeLater() {
        java.util.function.Supplier<String> w = later;
        later = null;
        return w;
    }

    /** @return the psync session this connection belongs to, or null */
    @Override
    public tandem.api.replication.PsyncSession psync() {
        return psync;
    }

    /** Drops replies not yet sent (the channel is gone). */
    public void discard() {
        if (out != null) {
            out.release();
            out = null;
        }
    }
}
