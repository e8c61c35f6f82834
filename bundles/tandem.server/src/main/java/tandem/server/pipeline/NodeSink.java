package tandem.server.pipeline;

import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Set;
import java.util.function.Function;

import tandem.api.node.NodeClient;
import tandem.api.node.NodeSession;
import tandem.api.store.Command;
import tandem.server.acl.Acl;
import tandem.server.acl.AclCatalog;
import tandem.server.acl.Denial;
import tandem.server.acl.User;
import tandem.server.command.AclCommands;
import tandem.server.command.Auth;
import tandem.server.command.CommandTable;
import tandem.server.resp.RespProtocolError;
import tandem.server.resp.RespRequest;

/**
 * Hands each connection's decoded requests to the node core, in arrival order, on the connection's event loop. The
 * authentication gate is here: while the {@code default} user has a password, a client that has not authenticated
 * gets {@code -NOAUTH} for everything but {@code AUTH}, {@code HELLO} and {@code QUIT}, answered in order with its
 * other replies by the node core. So is the ACL check, as Redis makes it in {@code processCommand}: a command, key or
 * channel the connection's user may not use is refused with {@code -NOPERM} before anything of it is journaled (in a
 * transaction, at queueing, so that {@code EXEC} aborts), and logged in {@code ACL LOG}.
 *
 * <p>So is subscribed mode's gate for keyspace commands, which the node core runs without the front end (the front
 * end's own commands are checked as they run, {@link CommandTable#dispatch}). Whether a connection is subscribed
 * when a command's turn comes is decided by its own earlier commands alone; once they have run, it is known here. A
 * keyspace command that arrives while a Pub/Sub command of its connection is still in flight waits, with everything
 * the connection sends after it and with reading paused, until that has run ({@link #resume}): clients subscribe and
 * then read, so this costs a round trip only to one that pipelines a keyspace command behind a subscription.
 *
 * @param node        opens a connection's session with the node core
 * @param keyspace    resolves a keyspace command ({@link tandem.api.node.Node#resolve}), or null
 * @param table       the server's own commands, resolved first
 * @param frontend    sends the replies and keeps the statistics
 * @param acl         the node's ACL users
 */
public record NodeSink(Function<NodeClient, NodeSession> node, Function<byte[][], Command> keyspace,
        CommandTable table, NodeFrontend frontend, Acl acl, Scripts scripts) implements RequestSink {

    /** The script the logic thread runs, as the front end sees it: how long it has run, how to stop it. */
    public interface Scripts {
        Scripts NONE = new Scripts() {
            @Override
            public long runningMillis() {
                return -1;
            }

            @Override
            public String kill(boolean function) {
                return "NOTBUSY No scripts in execution right now.";
            }

            @Override
            public boolean functionRunning() {
                return false;
            }

            @Override
            public long busyMillis() {
                return Long.MAX_VALUE;
            }
        };

        /** @return milliseconds the running script has run, -1 when none runs */
        long runningMillis();

        /**
         * @param function true for {@code FUNCTION KILL}, false for {@code SCRIPT KILL}
         * @return null when the running script was asked to stop, else the error to answer
         */
        String kill(boolean function);

        /** @return whether what runs is a function: its {@code BUSY} names {@code FUNCTION KILL} */
        boolean functionRunning();

        /** @return {@code busy-reply-threshold}: past it, other clients are answered {@code BUSY} */
        long busyMillis();
    }

    static final String BUSY = "BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN "
            + "NOSAVE.";
    static final String BUSY_FUNCTION = "BUSY Redis is busy running a script. You can only call FUNCTION KILL or "
            + "SHUTDOWN NOSAVE.";

    private static final Set<String> AUTH_EXEMPT = Set.of("auth", "hello", "quit", "reset");
    /** The commands that change what a connection is subscribed to. */
    private static final Set<String> SUBSCRIPTION_CHANGES = Set.of("subscribe", "unsubscribe", "psubscribe",
            "punsubscribe", "ssubscribe", "sunsubscribe", "reset");
    /** The front end's commands that the node core runs itself, never through the table. */
    private static final Set<String> NODE_RUN = Set.of("multi", "exec", "discard", "watch", "unwatch", "wait",
            "replicaof", "slaveof");
    static final String NOAUTH = "NOAUTH Authentication required.";

    @Override
    public void opened(Connection c) {
        c.node(node.apply(c), frontend);
        c.resume = () -> resume(c);
    }

    @Override
    public void submit(Connection c, Object message) {
        if (message instanceof RespRequest request) {
            frontend.received(c, request.args());
        }
        if (c.held != null) {
            c.held.add(message);
        } else {
            handle(c, message);
        }
    }

    /** @return whether {@code command} may change its connection's subscriptions (its in-flight count) */
    static boolean changesSubscriptions(Command command) {
        return command.isFrontend() && SUBSCRIPTION_CHANGES.contains(command.name());
    }

    private void handle(Connection c, Object message) {
        if (message instanceof RespProtocolError error) {
            Protocol.log(c, error);
            c.node().fail(error.reply() == null ? null : "ERR " + error.reply());
            return;
        }
        byte[][] args = ((RespRequest) message).args();
        Command command = table.resolve(args, keyspace);
        String name = command.name() != null ? command.name()
                : new String(args[0], StandardCharsets.ISO_8859_1).toLowerCase(Locale.ROOT);
        // CLIENT LIST's cmd= and idle=: every command counts, those the node core runs (GET, BLPOP…) too; a
        // container's known subcommand is named with it, as Redis names it (client|info)
        c.session().commandReceived(command.implementation() instanceof tandem.server.command.CommandSpec spec
                ? CommandTable.receivedName(spec, args) : name);
        if (!c.session().authenticated() && acl.authRequired()) {
            if (name.equals("auth") || name.equals("hello")) {
                // decided now, in arrival order: a client may pipeline its first command right behind AUTH
                byte[][] credentials = Auth.credentials(args);
                String user = credentials == null ? null
                        : Auth.check(acl, credentials[0], credentials[1], new String[1]);
                if (user != null) {
                    c.session().user(user);
                }
            }
            if (!c.session().authenticated() && !AUTH_EXEMPT.contains(name)) {
                c.node().refuse(command, NOAUTH);
                return;
            }
        }
        String refused = permission(c, args);
        if (refused != null) {
            c.node().refuse(command, refused);
            return;
        }
        if (answeredWhileBusy(c, name, args)) {
            return;
        }
        switch (name) {
            case "multi" -> c.session().multi(true);
            case "exec", "discard", "reset" -> c.session().multi(false);
            default -> { }
        }
        if (c.subscriptions().monitoring() && (command.isKeyspace() || (name.equals("publish") || name.equals("spublish")))) {
            c.node().refuse(command, "ERR Replica can't interact with the keyspace"); // a monitor is a replica to Redis
            return;
        }
        if (command.isKeyspace() ? command.arityHolds() : NODE_RUN.contains(name)
                && ((tandem.server.command.CommandSpec) command.implementation()).acceptsArgc(args.length)) {
            if (c.pubsubInFlight.get() > 0) {
                hold(c, message);
                return;
            }
            if (c.subscriptions().active() && c.protocol() == 2) {
                c.node().refuse(command, CommandTable.subscribedModeError(command.name()));
                return;
            }
        }
        if (changesSubscriptions(command)) {
            c.pubsubInFlight.incrementAndGet();
        }
        c.node().request(command);
    }

    /**
     * The ACL check of {@code args} for the connection's user, after Redis's own order: an unknown command or a wrong
     * number of arguments is not refused here (the command answers its own error, as Redis answers it first).
     *
     * @return null when allowed, else the {@code -NOPERM} reply (the refusal is in {@code ACL LOG})
     */
    private String permission(Connection c, byte[][] args) {
        User user = acl.user(c.session().user());
        if (user == null) {
            // deleted: its connections are being closed; nothing more of theirs runs
            return "NOPERM this user has no permissions to run the '" + new String(args[0],
                    StandardCharsets.ISO_8859_1).toLowerCase(Locale.ROOT) + "' command";
        }
        if (acl.unrestricted(user)) {
            return null;
        }
        AclCatalog.Cmd cmd = acl.catalog().resolve(args);
        if (cmd == null || !AclCatalog.arityHolds(cmd, args.length)) {
            return null;
        }
        Denial d = acl.check(user, cmd, args);
        if (d != null) {
            AclCommands.logDenial(c, d, cmd, args);
            return Acl.error(d, cmd);
        }
        return (cmd.fullName().equals("sort") || cmd.fullName().equals("sort_ro"))
                ? SortPatterns.refusal(acl, user, cmd, args) : null;
    }

    /**
     * While the logic thread runs a script: {@code SCRIPT KILL} asks it to stop, answered at once; past
     * {@code busy-reply-threshold}, a request of a connection with nothing else in flight is answered {@code BUSY}
     * at once, as Redis answers it. A connection with requests in flight waits behind them (its replies keep their
     * order); so does {@code SHUTDOWN}, which runs once the script ends or is killed.
     *
     * @return true when answered here
     */
    private boolean answeredWhileBusy(Connection c, String name, byte[][] args) {
        long running = scripts.runningMillis();
        if (running < 0) {
            return false;
        }
        long cost = InboundBudget.cost(args);
        boolean alone = c.inbound.get() == 0 && c.readBytes == cost && c.held == null;
        if ((name.equals("script") || name.equals("function")) && args.length == 2
                && new String(args[1], StandardCharsets.ISO_8859_1).equalsIgnoreCase("kill") && alone) {
            String refused = scripts.kill(name.equals("function"));
            c.readBytes -= cost; // answered here: the node never runs it
            c.answerNow(refused == null ? "+OK" : "-" + refused);
            return true;
        }
        if (running < scripts.busyMillis() || !alone || name.equals("shutdown")) {
            return false;
        }
        c.readBytes -= cost;
        c.answerNow("-" + (scripts.functionRunning() ? BUSY_FUNCTION : BUSY));
        return true;
    }

    /** {@code message} and what follows it wait until the connection's Pub/Sub commands in flight have run. */
    private static void hold(Connection c, Object message) {
        c.held = new java.util.ArrayDeque<>();
        c.held.add(message);
        c.holding = true;
        c.channel().config().setAutoRead(false);
        if (c.pubsubInFlight.get() == 0) {
            c.eventLoop().execute(c.resume); // ran meanwhile, before it could see the holding flag
        }
    }

    /** The connection's Pub/Sub commands ran: what waited goes to the node core, in order. On its event loop. */
    private void resume(Connection c) {
        java.util.ArrayDeque<Object> waiting = c.held;
        if (waiting == null || c.pubsubInFlight.get() > 0) {
            return;
        }
        c.held = null;
        c.holding = false;
        while (!waiting.isEmpty()) {
            if (c.held != null) {
                c.held.addAll(waiting); // held again behind a Pub/Sub command among them
                break;
            }
            handle(c, waiting.poll());
        }
        c.node().flush();
        if (c.held == null) {
            io.netty.channel.Channel ch = c.channel();
            ch.config().setAutoRead(ch.isWritable() && !c.budgetPaused);
        }
    }

    @Override
    public void readComplete(Connection c) {
        frontend.readComplete(c);
        c.node().flush(); // the read's requests reach the node core together; its replies leave at its round's end
    }

    @Override
    public void closed(Connection c) {
        c.held = null;
        frontend.closed(c);
        c.node().closed();
    }
}
