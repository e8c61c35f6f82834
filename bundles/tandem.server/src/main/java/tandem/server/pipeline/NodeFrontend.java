package tandem.server.pipeline;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;

import tandem.api.node.Frontend;
import tandem.api.node.NodeClient;
import tandem.api.store.Command;
import tandem.server.command.CommandMonitor;
import tandem.server.command.CommandSpec;

/**
 * The RESP server as the node core's front end: sends each round's due replies (one task per event loop), keeps
 * the bound on received requests, and turns what the logic thread ran into Redis' command statistics, slow log and
 * stall reports.
 */
public final class NodeFrontend implements Frontend {

    private static final byte[][] EXEC = {{'e', 'x', 'e', 'c'}};
    /** EXEC as a monitor sees it: as the client sent it, which Tandem does not keep; clients send it upper case. */
    private static final byte[][] EXEC_UPPER = {{'E', 'X', 'E', 'C'}};

    /** The round's replies, one task per event loop. Logic thread only. */
    private final Outbound outbound = new Outbound();
    /** The connections whose requests ran this round, their bytes to release at its end. Logic thread only. */
    private final java.util.List<Connection> ran = new java.util.ArrayList<>();
    private final InboundBudget inbound;
    private final CommandMonitor monitor;
    private final tandem.api.server.ServerStatus status;
    private final tandem.api.server.PubSub subscribers;
    private volatile boolean logicThreadKnown;

    /**
     * @param status      the server's listener and clients
     * @param subscribers the server's subscribers, or null
     */
    public NodeFrontend(InboundBudget inbound, CommandMonitor monitor, tandem.api.server.ServerStatus status,
            tandem.api.server.PubSub subscribers) {
        this.status = status;
        this.subscribers = subscribers;
        this.inbound = inbound;
        this.monitor = monitor;
    }

    @Override
    public tandem.api.server.PubSub subscribers() {
        return subscribers;
    }

    /** {@code c}'s replies so far leave at the end of the round. */
    void due(Connection c) {
        outbound.add(c);
    }

    /** A request of {@code c} arrived: it counts against the bound, from the end of its read, until it ran. */
    void received(Connection c, byte[][] command) {
        c.readBytes += InboundBudget.cost(command);
    }

    /** {@code c}'s read ended: what it carried counts against the bound (one update of the shared count a read). */
    void readComplete(Connection c) {
        long bytes = c.readBytes;
        if (bytes != 0) {
            c.readBytes = 0;
            inbound.received(c, bytes);
        }
    }

    /** A request of {@code c} ran: released at the round's end (one update of the shared count a round). */
    void released(Connection c, byte[][] command) {
        if (c.ranBytes == 0) {
            ran.add(c);
        }
        c.ranBytes += InboundBudget.cost(command);
    }

    void closed(Connection c) {
        inbound.closed(c);
    }

    @Override
    public tandem.api.server.ServerStatus status() {
        return status;
    }

    @Override
    public void roundEnd() {
        for (Connection c : ran) {
            long bytes = c.ranBytes;
            c.ranBytes = 0;
            inbound.released(c, bytes);
        }
        ran.clear();
        outbound.send();
    }

    @Override
    public void busy(Object what) {
        if (!logicThreadKnown) {
            logicThreadKnown = true;
            monitor.logicThread(Thread.currentThread());
        }
        monitor.busy(what);
    }

    @Override
    public void idle() {
        monitor.idle();
    }

    @Override
    public void executed(NodeClient client, Command command, long durationNs, boolean failed) {
        String name = statName(command);
        // the server's own client (MIGRATE's reads and deletes) is part of the command that uses it: not counted
        if (name != null && client instanceof Connection connection) {
            monitor.executed(name, isFast(command), command.args(), connection.session(), durationNs, failed);
            feedMonitors(client, command);
        }
    }

    /** Sends the monitors the line of {@code command}, as Redis does after it ran: never an admin command's. */
    private void feedMonitors(NodeClient client, Command command) {
        tandem.server.pubsub.Monitors monitors = monitors();
        if (monitors == null || !monitors.any()) {
            return;
        }
        java.util.List<String> flags;
        if (command.isKeyspace()) {
            flags = command.descriptor().flags();
        } else if (command.implementation() instanceof CommandSpec spec) {
            byte[][] args = command.args();
            CommandSpec sub = spec.isContainer() && args.length > 1 ? spec.subcommands().get(name(args[1])) : null;
            flags = (sub != null ? sub : spec).flags();
        } else {
            return;
        }
        if (!flags.contains("admin") && !"quit".equals(command.name())) { // Redis runs QUIT before it feeds monitors
            monitors.feed(((Connection) client).session().remoteAddress(),
                    tandem.server.command.Redaction.redact(command.args()));
        }
    }

    /** @return the server's monitors, or null where it has no Pub/Sub */
    private tandem.server.pubsub.Monitors monitors() {
        tandem.server.pubsub.PubSubRegistry registry = subscribers instanceof tandem.server.command.ServerContext s
                ? s.pubsub() : subscribers instanceof tandem.server.pubsub.PubSubRegistry r ? r : null;
        return registry == null ? null : registry.monitors();
    }

    @Override
    public void rejected(NodeClient client, Command command) {
        String name = statName(command);
        if (name != null && client instanceof Connection) {
            monitor.rejected(name);
        }
    }

    @Override
    public void executedTransaction(NodeClient client, List<Command> commands, long durationNs, boolean failed) {
        if (!(client instanceof Connection)) {
            return; // the server's own client, as above
        }
        for (Command command : commands) {
            monitor.counted(command.name() != null ? command.name() : name(command.args()[0]));
            feedMonitors(client, command);
        }
        monitor.executed("exec", false, EXEC, ((Connection) client).session(), durationNs, failed);
        tandem.server.pubsub.Monitors monitors = monitors();
        if (monitors != null && monitors.any()) {
            monitors.feed(((Connection) client).session().remoteAddress(), EXEC_UPPER);
        }
    }

    /**
     * @return the name Redis keeps statistics under ({@code get}, {@code client|list}), or null for a command
     *         this node does not know
     */
    private static String statName(Command command) {
        if (command.isKeyspace()) {
            return command.name();
        }
        if (!(command.implementation() instanceof CommandSpec spec)) {
            return null;
        }
        byte[][] args = command.args();
        if (spec.isContainer() && args.length > 1) {
            String sub = name(args[1]);
            return spec.subcommands().containsKey(sub) ? spec.name() + "|" + sub : null;
        }
        return spec.name();
    }

    private static boolean isFast(Command command) {
        if (command.isKeyspace()) {
            return command.descriptor().flags().contains("fast");
        }
        if (!(command.implementation() instanceof CommandSpec spec)) {
            return false;
        }
        byte[][] args = command.args();
        if (spec.isContainer() && args.length > 1) {
            CommandSpec sub = spec.subcommands().get(name(args[1]));
            return sub != null && sub.flags().contains("fast");
        }
        return spec.flags().contains("fast");
    }

    private static String name(byte[] bytes) {
        return new String(bytes, StandardCharsets.ISO_8859_1).toLowerCase(Locale.ROOT);
    }
}
