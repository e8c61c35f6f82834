package tandem.server.command;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;
import java.util.function.Supplier;

import tandem.protocol.command.NameTable;

/**
 * The commands a server answers, and the dispatch rules of Redis 7: lookup by case-insensitive name, then
 * subcommand, then arity, each failure with Redis' exact error text.
 */
public final class CommandTable {

    private final Map<String, CommandSpec> commands;
    private final NameTable<CommandSpec> names;
    private final Supplier<Collection<CommandSpec>> others;

    private CommandTable(Map<String, CommandSpec> commands, NameTable<CommandSpec> names,
            Supplier<Collection<CommandSpec>> others) {
        this.commands = Collections.unmodifiableMap(commands);
        this.names = names;
        this.others = others;
    }

    /**
     * @return a table that also lists, for {@code COMMAND}, the commands that {@code others} describes (the
     *         keyspace's); they are executed elsewhere, so {@link #dispatch} does not run them
     */
    public CommandTable with(Supplier<Collection<CommandSpec>> others) {
        return new CommandTable(commands, names, others);
    }

    /**
     * Resolves a request once, as it is decoded: what {@code others} resolves (the keyspace's), else a command of
     * this table, else an unknown command. The two tables share no name; the keyspace's is asked first because it
     * serves nearly every request.
     */
    public tandem.api.store.Command resolve(byte[][] args,
            Function<byte[][], tandem.api.store.Command> others) {
        tandem.api.store.Command other = others.apply(args);
        if (other != null) {
            return other;
        }
        CommandSpec spec = names.get(args[0]);
        return spec != null ? tandem.api.store.Command.frontend(args, spec.name(), spec)
                : tandem.api.store.Command.unknown(args);
    }

    /** @return every command the server answers: its own in registration order, then the others */
    public Collection<CommandSpec> commands() {
        Collection<CommandSpec> extra = others.get();
        if (extra.isEmpty()) {
            return commands.values();
        }
        List<CommandSpec> all = new ArrayList<>(commands.values());
        all.addAll(extra);
        return all;
    }

    /** @return any command (own or other) or subcommand named {@code name}, for COMMAND INFO and DOCS */
    public CommandSpec lookup(String name) {
        CommandSpec own = find(name);
        if (own != null) {
            return own;
        }
        String lower = name.toLowerCase(Locale.ROOT);
        int bar = lower.indexOf('|');
        String top = bar < 0 ? lower : lower.substring(0, bar);
        for (CommandSpec spec : others.get()) {
            if (spec.name().equals(top)) {
                return bar < 0 ? spec : spec.subcommands().get(lower.substring(bar + 1));
            }
        }
        return null;
    }

    /** @return the server's own command or subcommand named {@code name} ({@code ping}, {@code client|getname}) */
    public CommandSpec find(String name) {
        String lower = name.toLowerCase(Locale.ROOT);
        int bar = lower.indexOf('|');
        if (bar < 0) {
            return commands.get(lower);
        }
        CommandSpec container = commands.get(lower.substring(0, bar));
        return container == null ? null : container.subcommands().get(lower.substring(bar + 1));
    }

    /** Runs one request that arrived now: lookup, subcommand, arity, then the handler. */
    public void dispatch(CommandContext ctx, byte[][] args) {
        tandem.api.store.Command command = resolve(args, a -> null);
        ctx.session().commandReceived(command.implementation() instanceof CommandSpec spec
                ? receivedName(spec, args) : ascii(args[0]).toLowerCase(Locale.ROOT));
        dispatch(ctx, command);
    }

    /**
     * @return the name {@code CLIENT LIST}'s {@code cmd=} shows for a request of {@code spec}: a container's known
     *         subcommand with it, as Redis names it ({@code client|info})
     */
    public static String receivedName(CommandSpec spec, byte[][] args) {
        if (spec.isContainer() && args.length > 1) {
            String sub = ascii(args[1]).toLowerCase(Locale.ROOT);
            if (spec.subcommands().containsKey(sub)) {
                return spec.name() + "|" + sub;
            }
        }
        return spec.name();
    }

    /** Redis' commands flagged {@code no-multi} that Tandem has. */
    private static final java.util.Set<String> NO_MULTI = java.util.Set.of("shutdown", "psync", "save", "sync");
    /**
     * The commands Tandem does not queue inside {@code MULTI} although Redis does: they change the connection's
     * subscriptions, or wait for replication, whose work the node core does not run at {@code EXEC}.
     */
    private static final java.util.Set<String> NOT_IN_MULTI = java.util.Set.of("subscribe", "unsubscribe",
            "psubscribe", "punsubscribe", "ssubscribe", "sunsubscribe", "replicaof", "slaveof", "failover",
            "migrate");

    /**
     * Checks a request sent inside {@code MULTI}, as Redis checks it before it queues it.
     *
     * @return the error that refuses it, or null when it may be queued
     */
    public String queueable(tandem.api.store.Command command) {
        byte[][] args = command.args();
        CommandSpec spec = command.implementation() instanceof CommandSpec own ? own : null;
        if (spec == null) {
            return unknownCommand(args);
        }
        String top = spec.name();
        if (spec.isContainer() && args.length >= 2) {
            CommandSpec sub = spec.subcommands().get(ascii(args[1]).toLowerCase(Locale.ROOT));
            if (sub == null) {
                return "ERR unknown subcommand '" + truncate(cString(args[1]), 128) + "'. Try "
                        + spec.name().toUpperCase(Locale.ROOT) + " HELP.";
            }
            spec = sub;
        }
        if (!spec.acceptsArgc(args.length) || spec.handler() == null) {
            return "ERR wrong number of arguments for '" + spec.fullName() + "' command";
        }
        if (NO_MULTI.contains(top)) {
            return "ERR Command not allowed inside a transaction";
        }
        if (NOT_IN_MULTI.contains(top)) {
            return "ERR '" + top + "' is not supported inside a transaction by Tandem";
        }
        return null;
    }

    /** Runs a request resolved when it arrived: subcommand, arity, then the handler. */
    public void dispatch(CommandContext ctx, tandem.api.store.Command command) {
        byte[][] args = command.args();
        CommandSpec spec = command.implementation() instanceof CommandSpec own ? own : null;
        if (spec == null) {
            ctx.reply().error(unknownCommand(args));
            return;
        }
        String name = spec.name();
        if (spec.isContainer() && args.length >= 2) {
            CommandSpec sub = spec.subcommands().get(ascii(args[1]).toLowerCase(Locale.ROOT));
            if (sub == null) {
                ctx.reply().error("ERR unknown subcommand '" + truncate(cString(args[1]), 128) + "'. Try "
                        + spec.name().toUpperCase(Locale.ROOT) + " HELP.");
                return;
            }
            spec = sub;
        }
        if (!spec.acceptsArgc(args.length) || spec.handler() == null) {
            ctx.reply().error("ERR wrong number of arguments for '" + spec.fullName() + "' command");
            return;
        }
        tandem.server.pubsub.Subscriptions subscriptions = ctx.subscriptions();
        if (subscriptions != null && subscriptions.active() && !SUBSCRIBED_MODE.contains(name)
                && ctx.reply().protocol() == 2) { // RESP3 tells pushes from replies: any command may be sent
            ctx.reply().error(subscribedModeError(spec.fullName()));
            return;
        }
        spec.handler().execute(ctx, args);
    }

    /** The commands a connection in subscribed mode may send (RESP2). */
    private static final java.util.Set<String> SUBSCRIBED_MODE = java.util.Set.of("subscribe", "unsubscribe",
            "psubscribe", "punsubscribe", "ssubscribe", "sunsubscribe", "ping", "quit", "reset");

    /** @return Redis' error for {@code fullName} ({@code get}, {@code client|list}) sent in subscribed mode */
    public static String subscribedModeError(String fullName) {
        return "ERR Can't execute '" + fullName + "': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET "
                + "are allowed in this context";
    }

    /** Redis' {@code unknown command} error, with up to 128 characters of the arguments quoted. */
    static String unknownCommand(byte[][] args) {
        StringBuilder quoted = new StringBuilder();
        for (int i = 1; i < args.length && quoted.length() < 128; i++) {
            int room = 128 - quoted.length(); // Redis' %.*s precision, taken before the opening quote is added
            quoted.append('\'').append(truncate(cString(args[i]), room)).append("' ");
        }
        return "ERR unknown command '" + truncate(cString(args[0]), 128) + "', with args beginning with: " + quoted;
    }

    /** The bytes as C's {@code %s} prints them: up to the first NUL. */
    private static String cString(byte[] bytes) {
        int end = 0;
        while (end < bytes.length && bytes[end] != 0) {
            end++;
        }
        return new String(bytes, 0, end, StandardCharsets.ISO_8859_1);
    }

    private static String truncate(String s, int max) {
        return s.length() <= max ? s : s.substring(0, Math.max(0, max));
    }

    static String ascii(byte[] bytes) {
        return new String(bytes, StandardCharsets.ISO_8859_1);
    }

    /** Builds a table; commands keep the order in which they are added. */
    public static final class Builder {

        private final Map<String, CommandSpec> commands = new LinkedHashMap<>();

        /** Adds a plain command. */
        public Builder add(String name, int arity, List<String> flags, List<String> acl, String group, String since,
                String summary, Command handler) {
            commands.put(name, new CommandSpec(name, name, arity, flags, acl, group, summary, since, "O(1)", handler,
                    Map.of()));
            return this;
        }

        /**
         * Adds a container ({@code CLIENT}, {@code CONFIG}, {@code COMMAND}); {@code handler} serves the bare
         * command where Redis allows one ({@code COMMAND}), null otherwise.
         */
        public Builder container(String name, int arity, String group, String since, String summary,
                Command handler, Map<String, CommandSpec> subcommands) {
            commands.put(name, new CommandSpec(name, name, arity, List.of(), List.of("slow"), group, summary, since,
                    "Depends on subcommand.", handler, Collections.unmodifiableMap(new LinkedHashMap<>(subcommands))));
            return this;
        }

        public CommandTable build() {
            return new CommandTable(new LinkedHashMap<>(commands), new NameTable<>(commands), List::of);
        }
    }

    /** A subcommand of {@code container}, for {@link Builder#container}. */
    public static CommandSpec sub(String container, String name, int arity, List<String> flags, String group,
            String since, String summary, Command handler) {
        return new CommandSpec(name, container + "|" + name, arity, flags, List.of("slow", group), group, summary,
                since, "O(1)", handler, Map.of());
    }
}
