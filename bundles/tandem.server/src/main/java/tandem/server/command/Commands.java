package tandem.server.command;

import static tandem.server.command.CommandTable.ascii;
import static tandem.server.command.CommandTable.sub;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

import tandem.api.server.ClientInfo;
import tandem.server.resp.RespWriter;
import tandem.protocol.command.String2ll;

/** The connection and server commands of the foundation, with Redis 7's replies and errors. */
public final class Commands {

    private static final List<String> CONN = List.of("noscript", "loading", "stale", "fast");
    private static final List<String> CONN_SLOW = List.of("noscript", "loading", "stale");
    private static final List<String> ADMIN = List.of("admin", "noscript", "loading", "stale");
    private static final List<String> CONN_FRESH = List.of("noscript", "loading");
    private static final List<String> CONFIG_HELP = List.of(
            "GET <pattern>",
            "    Return parameters matching the glob-like <pattern> and their values.",
            "SET <directive> <value>",
            "    Set the configuration <directive> to <value>.",
            "RESETSTAT",
            "    Reset statistics reported by the INFO command.",
            "REWRITE",
            "    Rewrite the configuration file.");

    private Commands() {
    }

    /** @return the table of every command this server answers */
    public static CommandTable table() {
        Map<String, CommandSpec> client = new LinkedHashMap<>();
        client.put("id", sub("client", "id", 2, CONN_SLOW, "connection", "5.0.0",
                "Returns the unique client ID of the connection.", (c, a) -> c.reply().integer(c.session().id())));
        client.put("setname", sub("client", "setname", 3, CONN_SLOW, "connection", "2.6.9",
                "Sets the connection name.", Commands::clientSetname));
        client.put("getname", sub("client", "getname", 2, CONN_SLOW, "connection", "2.6.9",
                "Returns the name of the connection.", Commands::clientGetname));
        client.put("list", sub("client", "list", -2, ADMIN, "connection", "2.4.0",
                "Lists open connections.", Commands::clientList));
        client.put("info", sub("client", "info", 2, CONN_SLOW, "connection", "6.2.0",
                "Returns information about the connection.", Commands::clientInfo));
        client.put("kill", sub("client", "kill", -3, ADMIN, "connection", "2.4.0",
                "Terminates open connections.", Commands::clientKill));
        client.put("no-evict", sub("client", "no-evict", 3, ADMIN, "connection", "7.0.0",
                "Sets the client eviction mode of the connection.", Commands::clientNoEvict));
        client.put("reply", sub("client", "reply", 3, CONN_SLOW, "connection", "3.2.0",
                "Instructs the server whether to reply to commands.", Commands::clientReply));
        client.put("pause", sub("client", "pause", -3, ADMIN, "connection", "3.0.0",
                "Suspends commands processing.", Commands::clientPause));
        client.put("unpause", sub("client", "unpause", 2, ADMIN, "connection", "6.2.0",
                "Resumes processing commands from paused clients.", (c, a) -> {
                    c.server().unpause();
                    c.reply().ok();
                }));
        client.put("unblock", sub("client", "unblock", -3, ADMIN, "connection", "5.0.0",
                "Unblocks a client blocked by a blocking command from a different connection.",
                Commands::clientUnblock));
        client.put("tracking", sub("client", "tracking", -3, CONN_FRESH, "connection", "6.0.0",
                "Enable or disable server assisted client side caching support", TrackingCommands::tracking));
        client.put("caching", sub("client", "caching", 3, CONN_FRESH, "connection", "6.0.0",
                "Instruct the server about tracking or not keys in the next request", TrackingCommands::caching));
        client.put("getredir", sub("client", "getredir", 2, CONN_FRESH, "connection", "6.0.0",
                "Get tracking notifications redirection client ID if any",
                TrackingCommands::getredir));
        client.put("trackinginfo", sub("client", "trackinginfo", 2, CONN_FRESH, "connection", "6.2.0",
                "Return information about server assisted client side caching for the current connection",
                TrackingCommands::trackingInfo));
        client.put("help", sub("client", "help", 2, CONN_SLOW, "connection", "5.0.0",
                "Returns helpful text about the different subcommands.", (c, a) -> help(c, "CLIENT", client)));

        Map<String, CommandSpec> config = new LinkedHashMap<>();
        config.put("get", sub("config", "get", -3, ADMIN, "server", "2.0.0",
                "Returns the effective values of configuration parameters.", Commands::configGet));
        config.put("set", sub("config", "set", -4, ADMIN, "server", "2.0.0",
                "Sets configuration parameters in-flight.", Commands::configSet));
        config.put("resetstat", sub("config", "resetstat", 2, ADMIN, "server", "2.0.0",
                "Resets the server's statistics.", Commands::configResetstat));
        config.put("rewrite", sub("config", "rewrite", 2, ADMIN, "server", "2.8.0",
                "Persists the effective configuration to file.",
                // Tandem's configuration lives in etc/*.cfg, through ConfigAdmin: there is no Redis file to rewrite
                (c, a) -> c.reply().error("ERR The server is running without a config file")));
        config.put("help", sub("config", "help", 2, CONN_SLOW, "server", "5.0.0",
                "Returns helpful text about the different subcommands.", (c, a) -> help(c, "CONFIG", CONFIG_HELP)));

        Map<String, CommandSpec> command = new LinkedHashMap<>();
        command.put("count", sub("command", "count", 2, CONN_SLOW, "server", "2.8.13",
                "Returns a count of commands.", (c, a) -> c.reply().integer(c.table().commands().size())));
        command.put("docs", sub("command", "docs", -2, CONN_SLOW, "server", "7.0.0",
                "Returns documentary information about one, multiple or all commands.", CommandCommands::docs));
        command.put("info", sub("command", "info", -2, CONN_SLOW, "server", "2.8.13",
                "Returns information about one, multiple or all commands.", CommandCommands::info));
        command.put("list", sub("command", "list", -2, CONN_SLOW, "server", "7.0.0",
                "Returns a list of command names.", CommandCommands::list));
        command.put("getkeys", sub("command", "getkeys", -4, CONN_SLOW, "server", "2.8.13",
                "Extract keys given a full Redis command", (c, a) -> CommandCommands.getkeys(c, a, false)));
        command.put("getkeysandflags", sub("command", "getkeysandflags", -4, CONN_SLOW, "server", "7.0.0",
                "Extract keys and access flags given a full Redis command", (c, a) -> CommandCommands.getkeys(c, a, true)));
        command.put("help", sub("command", "help", 2, CONN_SLOW, "server", "5.0.0",
                "Returns helpful text about the different subcommands.", (c, a) -> help(c, "COMMAND", command)));

        CommandTable.Builder builder = new CommandTable.Builder()
                .add("ping", -1, CONN, List.of("fast", "connection"), "connection", "1.0.0",
                        "Returns the server's liveliness response.", Commands::ping)
                .add("echo", 2, CONN, List.of("fast", "connection"), "connection", "1.0.0",
                        "Returns the given string.", (c, a) -> c.reply().bulk(a[1]))
                .add("monitor", 1, List.of("admin", "noscript", "loading", "stale"),
                        List.of("admin", "slow", "dangerous"), "server", "1.0.0",
                        "Listens for all requests received by the server in real-time.", Commands::monitor)
                .add("quit", -1, List.of("allow_busy", "noscript", "loading", "stale", "fast", "no_auth"),
                        List.of("fast", "connection"), "connection", "1.0.0", "Closes the connection.",
                        Commands::quit)
                .add("select", 2, List.of("loading", "stale", "fast"), List.of("keyspace", "fast"), "connection",
                        "1.0.0", "Changes the selected database.", Commands::select)
                .add("hello", -1, List.of("noscript", "loading", "stale", "fast", "no_auth"),
                        List.of("fast", "connection"), "connection", "6.0.0", "Handshakes with the server.",
                        Commands::hello)
                // run by the pipeline's sequencer; listed here for COMMAND, answered here only without a pipeline
                .add("multi", 1, List.of("noscript", "loading", "stale", "fast", "allow_busy"),
                        List.of("fast", "transaction"), "transactions", "1.2.0",
                        "Starts a transaction.", Commands::sequencerOnly)
                .add("exec", 1, List.of("noscript", "loading", "stale", "skip_slowlog"),
                        List.of("slow", "transaction"), "transactions", "1.2.0",
                        "Executes all commands in a transaction.", Commands::sequencerOnly)
                .add("discard", 1, List.of("noscript", "loading", "stale", "fast", "allow_busy"),
                        List.of("fast", "transaction"), "transactions", "2.0.0",
                        "Discards a transaction.", Commands::sequencerOnly)
                .add("watch", -2, List.of("noscript", "loading", "stale", "fast", "allow_busy"),
                        List.of("fast", "transaction"), "transactions", "2.2.0",
                        "Monitors changes to keys to determine the execution of a transaction.",
                        Commands::sequencerOnly)
                .add("unwatch", 1, List.of("noscript", "loading", "stale", "fast", "allow_busy"),
                        List.of("fast", "transaction"), "transactions", "2.2.0",
                        "Forgets about watched keys of a transaction.", Commands::sequencerOnly)
                .add("auth", -2, List.of("noscript", "loading", "stale", "fast", "no_auth", "allow_busy"),
                        List.of("fast", "connection"), "connection", "1.0.0",
                        "Authenticates the connection.", Commands::auth)
                .add("wait", 3, List.of("noscript"), List.of("slow", "connection"), "generic", "3.0.0",
                        "Blocks until the asynchronous replication of all preceding write commands sent by the "
                        + "connection is completed.", Commands::sequencerOnly)
                // the cluster's connection commands, answered as a Redis with cluster support disabled answers them
                .add("readonly", 1, List.of("loading", "stale", "fast"), List.of("fast", "connection"), "cluster",
                        "3.0.0", "Enables read queries for a connection to a Redis Cluster replica node.",
                        Commands::noCluster)
                .add("readwrite", 1, List.of("loading", "stale", "fast"), List.of("fast", "connection"), "cluster",
                        "3.0.0", "Enables read-write queries for a connection to a Redis Cluster replica node.",
                        Commands::noCluster)
                .add("asking", 1, List.of("fast"), List.of("fast", "connection"), "cluster", "3.0.0",
                        "Sent by cluster clients after an -ASK redirect.", Commands::noCluster)
                .add("shutdown", -1, List.of("admin", "noscript", "loading", "stale", "no_multi", "allow_busy"),
                        List.of("admin", "slow", "dangerous"), "server", "1.0.0",
                        "Synchronously saves the database(s) to disk and shuts down the Redis server.",
                        Commands::shutdown)
                .add("time", 1, List.of("loading", "stale", "fast"), List.of("fast"), "server", "2.6.0",
                        "Returns the server time.", Commands::time)
                .add("save", 1, List.of("admin", "noscript", "no_async_loading", "no_multi"),
                        List.of("admin", "slow", "dangerous"), "server", "1.0.0",
                        "Synchronously saves the database(s) to disk.", Commands::save)
                .add("bgsave", -1, List.of("admin", "noscript", "no_async_loading"),
                        List.of("admin", "slow", "dangerous"), "server", "1.0.0",
                        "Asynchronously saves the database(s) to disk.", Commands::bgsave)
                .add("bgrewriteaof", 1, List.of("admin", "noscript", "no_async_loading"),
                        List.of("admin", "slow", "dangerous"), "server", "1.0.0",
                        "Asynchronously rewrite the append-only file", Commands::bgrewriteaof)
                .add("sync", 1, List.of("admin", "noscript", "no_async_loading", "no_multi"),
                        List.of("admin", "slow", "dangerous"), "server", "1.0.0",
                        "Internal command used for replication", (c, a) -> c.reply().error("ERR SYNC is not "
                                + "supported by Tandem: a replica syncs with PSYNC (docs/psync-protocol.md)"))
                .add("lastsave", 1, List.of("loading", "stale", "fast"), List.of("fast", "dangerous"),
                        "server", "1.0.0", "Returns the Unix timestamp of the last successful save to disk.",
                        (c, a) -> c.reply().integer(c.server().saves() == null ? 0 : c.server().saves().lastSave()))
                .add("lolwut", -1, List.of("readonly", "fast"), List.of("read", "fast"), "server", "5.0.0",
                        "Displays computer art and the Redis version", Commands::lolwut)
                .add("info", -1, List.of("loading", "stale"), List.of("slow", "dangerous"), "server", "1.0.0",
                        "Returns information and statistics about the server.", Commands::info)
                .container("client", -2, "connection", "2.4.0", "A container for client connection commands.", null,
                        client)
                .container("config", -2, "server", "2.0.0", "A container for server configuration commands.", null,
                        config)
                .container("command", -1, "server", "2.8.13", "Returns detailed information about all commands.",
                        CommandCommands::info, command);
        Migrate.register(builder);
        AclCommands.register(builder);
        return SentinelCommands.register(PubSubCommands.register(MonitorCommands.register(
                ReplicationCommands.register(builder)))).build();
    }

    private static void ping(CommandContext c, byte[][] a) {
        tandem.server.pubsub.Subscriptions subscriptions = c.subscriptions();
        if (a.length <= 2 && subscriptions != null && subscriptions.active() && c.reply().protocol() == 2) {
            // RESP2's subscribed mode answers with a push-shaped array, which its subscribers can read
            c.reply().array(2).bulk("pong").bulk(a.length == 2 ? a[1] : new byte[0]);
        } else if (a.length == 1) {
            c.reply().simple("PONG");
        } else if (a.length == 2) {
            c.reply().bulk(a[1]);
        } else {
            c.reply().error("ERR wrong number of arguments for 'ping' command");
        }
    }

    private static void sequencerOnly(CommandContext c, byte[][] a) {
        c.reply().error("ERR transactions need the ordered pipeline, which this connection does not use");
    }

    private static void auth(CommandContext c, byte[][] a) {
        if (a.length > 3) {
            c.reply().error("ERR syntax error");
            return;
        }
        byte[][] credentials = Auth.credentials(a);
        String[] refused = new String[1];
        String user = Auth.check(c.server().acl(), credentials[0], credentials[1], refused);
        if (user == null) {
            if (Auth.WRONGPASS.equals(refused[0])) {
                AclCommands.logAuth(c, a[0], credentials[0]);
            }
            c.reply().error(refused[0]);
            return;
        }
        c.session().user(user);
        c.reply().ok();
    }

    private static void time(CommandContext c, byte[][] a) {
        java.time.Instant now = java.time.Instant.now();
        c.reply().array(2).bulk(Long.toString(now.getEpochSecond())).bulk(Long.toString(now.getNano() / 1000));
    }

    /**
     * SHUTDOWN [NOSAVE|SAVE] [NOW] [FORCE] | ABORT, checked as Redis 7.0 checks it. Every acknowledged write is in the
     * journal, so SAVE and NOSAVE stop alike; no shutdown ever waits for lagging replicas, so ABORT finds none in
     * progress. As in Redis, a shutdown sends no reply: the connection closes with the node.
     */
    private static void shutdown(CommandContext c, byte[][] a) {
        boolean save = false;
        boolean nosave = false;
        boolean other = false;
        boolean abort = false;
        for (int i = 1; i < a.length; i++) {
            if (is(a[i], "nosave")) {
                nosave = true;
            } else if (is(a[i], "save")) {
                save = true;
            } else if (is(a[i], "now") || is(a[i], "force")) {
                other = true;
            } else if (is(a[i], "abort")) {
                abort = true;
            } else {
                c.reply().error("ERR syntax error");
                return;
            }
        }
        if (abort && (save || nosave || other) || save && nosave) {
            c.reply().error("ERR syntax error");
            return;
        }
        if (abort) {
            c.reply().error("ERR No shutdown in progress.");
            return;
        }
        ClientSession s = c.session();
        c.server().shutdown("client id=" + s.id() + " addr=" + s.remoteAddress());
        c.closeAfterReply();
    }

    private static void noCluster(CommandContext c, byte[][] a) {
        c.reply().error("ERR This instance has cluster support disabled");
    }

    private static boolean is(byte[] arg, String word) {
        return ascii(arg).equalsIgnoreCase(word);
    }

    private static void quit(CommandContext c, byte[][] a) {
        c.reply().ok();
        c.closeAfterReply();
    }

    private static void select(CommandContext c, byte[][] a) {
        long index;
        try {
            index = String2ll.parse(a[1]);
        } catch (NumberFormatException e) {
            c.reply().error("ERR value is not an integer or out of range");
            return;
        }
        // the node core dispatches the connection's next commands in this database (its Client.selected agrees)
        if (index > Integer.MAX_VALUE || index < Integer.MIN_VALUE) {
            c.reply().error("ERR value is out of range, value must between -2147483648 and 2147483647");
        } else if (index < 0 || index >= tandem.api.store.Keyspace.DATABASES) {
            c.reply().error("ERR DB index is out of range");
        } else {
            c.session().db((int) index);
            c.reply().ok();
        }
    }

    /** {@code MONITOR}: from its {@code +OK} on, the connection is sent a line for every command the node runs. */
    private static void monitor(CommandContext c, byte[][] a) {
        tandem.server.pubsub.Subscriptions s = c.subscriptions();
        if (s == null || c.server().pubsub() == null) {
            c.reply().error("ERR MONITOR isn't allowed on this connection");
            return;
        }
        s.monitor(true);
        c.reply().ok();
    }

    /**
     * @return what {@code SAVE} and {@code BGSAVE} make: the node's backup when the journal's backups are active,
     *         else a checkpoint of the store; null when neither is
     */
    private static java.util.function.Supplier<tandem.api.checkpoint.Checkpoints.Saved> saver(CommandContext c) {
        tandem.api.checkpoint.Backups backups = c.server().backups();
        if (backups != null) {
            return () -> {
                try {
                    tandem.api.checkpoint.Backups.Backup b = backups.save();
                    return new tandem.api.checkpoint.Checkpoints.Saved(b.directory(), b.appliedSequence(),
                            b.createdAt().getEpochSecond());
                } catch (java.io.IOException e) {
                    throw new java.io.UncheckedIOException(e.getMessage(), e);
                }
            };
        }
        tandem.api.checkpoint.Checkpoints checkpoints = c.server().checkpoints();
        return checkpoints == null ? null : checkpoints::save;
    }

    /** {@code SAVE}: the copy is made off the logic thread while this client waits (Redis blocks every client). */
    private static void save(CommandContext c, byte[][] a) {
        java.util.function.Supplier<tandem.api.checkpoint.Checkpoints.Saved> saver = saver(c);
        Saves saves = c.server().saves();
        if (saver == null || saves == null) {
            c.reply().error(NO_CHECKPOINTS);
            return;
        }
        c.later(() -> saves.save(saver));
    }

    /** {@code BGSAVE [SCHEDULE]}. */
    private static void bgsave(CommandContext c, byte[][] a) {
        boolean schedule = a.length == 2 && is(a[1], "schedule");
        if (a.length > 2 || a.length == 2 && !schedule) {
            c.reply().error("ERR syntax error");
            return;
        }
        java.util.function.Supplier<tandem.api.checkpoint.Checkpoints.Saved> saver = saver(c);
        Saves saves = c.server().saves();
        if (saver == null || saves == null) {
            c.reply().error(NO_CHECKPOINTS);
            return;
        }
        CommandContext.replyLine(c.reply(), saves.bgsave(saver, schedule));
    }

    /** {@code BGREWRITEAOF}: a checkpoint, as {@code BGSAVE} cuts (see {@link Saves#bgrewriteaof}). */
    private static void bgrewriteaof(CommandContext c, byte[][] a) {
        java.util.function.Supplier<tandem.api.checkpoint.Checkpoints.Saved> saver = saver(c);
        Saves saves = c.server().saves();
        if (saver == null || saves == null) {
            c.reply().error(NO_CHECKPOINTS);
            return;
        }
        CommandContext.replyLine(c.reply(), saves.bgrewriteaof(saver));
    }

    private static final String NO_CHECKPOINTS = "ERR the checkpoint bundle (tandem.checkpoint) is not active: "
            + "nothing can be saved";

    /**
     * {@code LOLWUT [VERSION v] ...}: the version line Redis 7.0 ends its art with, and prints alone for any version
     * it has no art for. Tandem draws no art (departures.md).
     */
    private static void lolwut(CommandContext c, byte[][] a) {
        if (a.length >= 3 && ascii(a[1]).equalsIgnoreCase("version")) {
            try {
                String2ll.parse(a[2]);
            } catch (NumberFormatException e) {
                c.reply().error("ERR value is not an integer or out of range");
                return;
            }
        }
        c.reply().verbatim("Redis ver. " + ServerInfo.REDIS_VERSION + "\n");
    }

    private static void hello(CommandContext c, byte[][] a) {
        long version = 0;
        if (a.length >= 2) {
            try {
                version = String2ll.parse(a[1]);
            } catch (NumberFormatException e) {
                c.reply().error("ERR Protocol version is not an integer or out of range");
                return;
            }
            if (version < 2 || version > 3) {
                c.reply().error("NOPROTO unsupported protocol version");
                return;
            }
        }
        // options apply in order, as in Redis: a SETNAME or AUTH before a failing option stays done
        for (int i = 2; i < a.length; i++) {
            String option = ascii(a[i]).toLowerCase(Locale.ROOT);
            if (option.equals("auth") && a.length - i - 1 >= 2) {
                String[] refused = new String[1];
                String user = Auth.check(c.server().acl(), a[i + 1], a[i + 2], refused);
                if (user == null) {
                    AclCommands.logAuth(c, a[0], a[i + 1]);
                    c.reply().error(refused[0]);
                    return;
                }
                c.session().user(user);
                i += 2;
            } else if (option.equals("setname") && a.length - i - 1 >= 1) {
                byte[] newName = a[++i];
                if (!validName(newName)) {
                    c.reply().error("ERR Client names cannot contain spaces, newlines or special characters.");
                    return;
                }
                c.session().name(newName);
            } else {
                c.reply().error("ERR Syntax error in HELLO option '" + ascii(a[i]) + "'");
                return;
            }
        }
        if (c.server().acl().authRequired() && !c.session().authenticated()) {
            c.reply().error("NOAUTH HELLO must be called with the client already authenticated, otherwise the HELLO "
                    + "AUTH <user> <pass> option can be used to authenticate the client and select the RESP protocol "
                    + "version at the same time");
            return;
        }
        boolean replica = c.server().upstream() != null;
        RespWriter r = c.reply();
        if (version != 0) {
            r.protocol((int) version); // this reply is the first in the new protocol
            c.session().resp((int) version);
        }
        r.map(7);
        r.bulk("server").bulk("redis");
        r.bulk("version").bulk(ServerInfo.REDIS_VERSION);
        r.bulk("proto").integer(r.protocol());
        r.bulk("id").integer(c.session().id());
        r.bulk("mode").bulk("standalone");
        r.bulk("role").bulk(replica ? "replica" : "master");
        r.bulk("modules").array(0);
    }

    private static boolean validName(byte[] name) {
        for (byte b : name) {
            if (b < '!' || b > '~') {
                return false;
            }
        }
        return true;
    }

    private static void clientSetname(CommandContext c, byte[][] a) {
        if (!validName(a[2])) {
            c.reply().error("ERR Client names cannot contain spaces, newlines or special characters.");
            return;
        }
        c.session().name(a[2]);
        c.reply().ok();
    }

    private static void clientGetname(CommandContext c, byte[][] a) {
        byte[] name = c.session().name();
        if (name == null) {
            c.reply().nullBulk();
        } else {
            c.reply().bulk(name);
        }
    }

    /**
     * CLIENT KILL addr, or CLIENT KILL [ID id] [TYPE type] [ADDR addr] [LADDR addr] [USER name] [SKIPME yes|no]...,
     * as Redis 7.0 parses and applies it: the old form answers OK or "No such client" and may close this very
     * connection, the new one counts what it closed.
     */
    private static void clientKill(CommandContext c, byte[][] a) {
        String addr = null;
        String laddr = null;
        String type = null;
        String user = null;
        long id = 0;
        boolean skipme = true;
        boolean old = a.length == 3;
        if (old) {
            addr = ascii(a[2]);
            skipme = false; // the old form may kill its own connection
        } else {
            for (int i = 2; i < a.length; i += 2) {
                boolean more = a.length > i + 1;
                if (is(a[i], "id") && more) {
                    long v;
                    try {
                        v = String2ll.parse(a[i + 1]);
                    } catch (NumberFormatException e) {
                        v = 0;
                    }
                    if (v < 1) {
                        c.reply().error("ERR client-id should be greater than 0");
                        return;
                    }
                    id = v;
                } else if (is(a[i], "type") && more) {
                    String t = ascii(a[i + 1]).toLowerCase(Locale.ROOT);
                    if (!Set.of("normal", "master", "replica", "slave", "pubsub").contains(t)) {
                        c.reply().error("ERR Unknown client type '" + ascii(a[i + 1]) + "'");
                        return;
                    }
                    type = t.equals("slave") ? "replica" : t;
                } else if (is(a[i], "addr") && more) {
                    addr = ascii(a[i + 1]);
                } else if (is(a[i], "laddr") && more) {
                    laddr = ascii(a[i + 1]);
                } else if (is(a[i], "user") && more) {
                    user = new String(a[i + 1], java.nio.charset.StandardCharsets.ISO_8859_1);
                    if (c.server().acl().user(user) == null) {
                        c.reply().error("ERR No such user '" + ascii(a[i + 1]) + "'");
                        return;
                    }
                } else if (is(a[i], "skipme") && more && (is(a[i + 1], "yes") || is(a[i + 1], "no"))) {
                    skipme = is(a[i + 1], "yes");
                } else {
                    c.reply().error("ERR syntax error");
                    return;
                }
            }
        }
        long self = c.session().id();
        boolean closeSelf = false;
        long killed = 0;
        for (ServerContext.Peer p : c.server().peers()) {
            if (addr != null && !addr.equals(p.addr()) || laddr != null && !laddr.equals(p.laddr())
                    || type != null && !type.equals(p.type()) || id != 0 && p.id() != id
                    || user != null && !user.equals(p.user())) {
                continue;
            }
            if (p.id() == self) {
                if (skipme) {
                    continue;
                }
                closeSelf = true; // after the reply, as Redis flags CLOSE_AFTER_REPLY
            } else if (!c.server().kill(p.id())) {
                continue; // gone meanwhile
            }
            killed++;
        }
        if (!old) {
            c.reply().integer(killed);
        } else if (killed == 0) {
            c.reply().error("ERR No such client");
        } else {
            c.reply().ok();
        }
        if (closeSelf) {
            c.closeAfterReply();
        }
    }

    /** CLIENT NO-EVICT ON|OFF: Tandem evicts no client, so the mode is checked and has no effect. */
    /**
     * Redis' {@code addReplySubcommandSyntaxError}: a subcommand given more arguments than it takes.
     *
     * @param container the command's name as {@code HELP} is asked for ({@code CLIENT})
     */
    static String subcommandSyntax(byte[][] a, String container) {
        return "ERR unknown subcommand or wrong number of arguments for '" + ascii(a[1]) + "'. Try " + container
                + " HELP.";
    }

    /** {@code CLIENT REPLY ON|OFF|SKIP}: the connection's writer drops the replies it says, this one's included. */
    private static void clientReply(CommandContext c, byte[][] a) {
        String mode = ascii(a[2]).toLowerCase(Locale.ROOT);
        if (!mode.equals("on") && !mode.equals("off") && !mode.equals("skip")) {
            c.reply().error("ERR syntax error");
            return;
        }
        c.reply().replies(mode).ok();
    }

    /** {@code CLIENT PAUSE timeout [WRITE|ALL]}, checked in Redis 7.0's order; the node core holds the clients. */
    private static void clientPause(CommandContext c, byte[][] a) {
        if (a.length > 4) {
            c.reply().error(subcommandSyntax(a, "CLIENT"));
            return;
        }
        long timeout;
        try {
            timeout = String2ll.parse(a[2]);
        } catch (NumberFormatException e) {
            c.reply().error("ERR timeout is not an integer or out of range");
            return;
        }
        if (timeout < 0) {
            c.reply().error("ERR timeout is negative");
            return;
        }
        boolean writesOnly = false;
        if (a.length == 4) {
            if (is(a[3], "write")) {
                writesOnly = true;
            } else if (!is(a[3], "all")) {
                c.reply().error("ERR CLIENT PAUSE mode must be WRITE or ALL");
                return;
            }
        }
        c.server().pause(timeout, writesOnly);
        c.reply().ok();
    }

    /** {@code CLIENT UNBLOCK id [TIMEOUT|ERROR]}, checked in Redis 7.0's order; the node core answers the client. */
    private static void clientUnblock(CommandContext c, byte[][] a) {
        if (a.length > 4) {
            c.reply().error(subcommandSyntax(a, "CLIENT"));
            return;
        }
        long id;
        try {
            id = String2ll.parse(a[2]);
        } catch (NumberFormatException e) {
            c.reply().error("ERR value is not an integer or out of range");
            return;
        }
        boolean error = false;
        if (a.length == 4) {
            if (is(a[3], "error")) {
                error = true;
            } else if (!is(a[3], "timeout")) {
                c.reply().error("ERR CLIENT UNBLOCK reason should be TIMEOUT or ERROR");
                return;
            }
        }
        c.reply().integer(c.server().unblock(id, error) ? 1 : 0);
    }

    private static void clientNoEvict(CommandContext c, byte[][] a) {
        if (is(a[2], "on") || is(a[2], "off")) {
            c.reply().ok();
        } else {
            c.reply().error("ERR syntax error");
        }
    }

    /**
     * {@code CLIENT LIST [TYPE normal|master|replica|pubsub] [ID id ...]}, in Redis 7.0's order of checks. The
     * clients listed are the normal ones: psync replicas are connections of the replication protocol, not clients.
     */
    private static void clientList(CommandContext c, byte[][] a) {
        List<ClientInfo> clients = c.server().clients();
        java.util.function.Predicate<ClientInfo> shown = info -> true;
        if (a.length == 4 && ascii(a[2]).equalsIgnoreCase("type")) {
            String type = ascii(a[3]).toLowerCase(Locale.ROOT);
            if (!Set.of("normal", "master", "replica", "slave", "pubsub").contains(type)) {
                c.reply().error("ERR Unknown client type '" + ascii(a[3]) + "'");
                return;
            }
            boolean normal = type.equals("normal");
            boolean pubsub = type.equals("pubsub");
            // Redis' classes: a subscribed client is of class pubsub, not normal
            shown = info -> {
                tandem.server.pubsub.Subscriptions s = c.server().subscriptions(info.id());
                boolean subscribed = s != null && s.active();
                return normal && !subscribed || pubsub && subscribed;
            };
        } else if (a.length > 3 && ascii(a[2]).equalsIgnoreCase("id")) {
            List<Long> ids = new ArrayList<>();
            for (int i = 3; i < a.length; i++) {
                try {
                    ids.add(String2ll.parse(a[i]));
                } catch (NumberFormatException e) {
                    c.reply().error("ERR Invalid client ID");
                    return;
                }
            }
            StringBuilder sb = new StringBuilder();
            for (long id : ids) { // in the order asked for, as Redis looks each one up
                for (ClientInfo info : clients) {
                    if (info.id() == id) {
                        sb.append(ServerInfo.clientLine(info, c.server().subscriptions(info.id()), redirect(c, info.id())))
                                .append('\n');
                    }
                }
            }
            c.reply().verbatim(sb.toString());
            return;
        } else if (a.length != 2) {
            c.reply().error("ERR syntax error");
            return;
        }
        StringBuilder sb = new StringBuilder();
        for (ClientInfo info : clients) {
            if (shown.test(info)) {
                sb.append(ServerInfo.clientLine(info, c.server().subscriptions(info.id()), redirect(c, info.id())))
                        .append('\n');
            }
        }
        c.reply().verbatim(sb.toString());
    }

    private static void clientInfo(CommandContext c, byte[][] a) {
        c.reply().verbatim(ServerInfo.clientLine(c.session().info(), c.session().subscriptions(),
                redirect(c, c.session().id())) + "\n");
    }

    /** {@code redir=}: -1 without client tracking, 0 tracking without a redirection, else the target's id. */
    /** @return the connection's {@code CLIENT INFO} line, as {@code ACL LOG} records it */
    static String clientInfoLine(CommandContext c) {
        return ServerInfo.clientLine(c.session().info(), c.session().subscriptions(), redirect(c, c.session().id()));
    }

    private static long redirect(CommandContext c, long id) {
        return c.server().pubsub() == null ? -1 : c.server().pubsub().tracking().redirect(id);
    }

    private static void configGet(CommandContext c, byte[][] a) {
        List<String> patterns = new ArrayList<>();
        for (int i = 2; i < a.length; i++) {
            patterns.add(ascii(a[i]));
        }
        Map<String, String> found = c.server().config().get(patterns);
        c.reply().map(found.size());
        // names as given and values as set are the request's bytes, kept as ISO-8859-1 characters
        found.forEach((name, value) -> c.reply().bulk(name.getBytes(StandardCharsets.ISO_8859_1))
                .bulk(value.getBytes(StandardCharsets.ISO_8859_1)));
    }

    private static void configSet(CommandContext c, byte[][] a) {
        if (a.length % 2 != 0) {
            c.reply().error("ERR syntax error");
            return;
        }
        List<String> pairs = new ArrayList<>();
        for (int i = 2; i < a.length; i++) {
            pairs.add(ascii(a[i]));
        }
        String error = c.server().config().set(pairs);
        if (error == null) {
            c.reply().ok();
        } else {
            c.reply().error(error);
        }
    }

    private static void configResetstat(CommandContext c, byte[][] a) {
        c.server().resetStats();
        c.reply().ok();
    }

    private static void info(CommandContext c, byte[][] a) {
        List<String> sections = new ArrayList<>();
        for (int i = 1; i < a.length; i++) {
            sections.add(ascii(a[i]).toLowerCase(Locale.ROOT));
        }
        c.reply().verbatim(ServerInfo.render(c.server(), sections));
    }

    private static void help(CommandContext c, String container, Map<String, CommandSpec> subs) {
        List<String> lines = new ArrayList<>();
        lines.add(container + " <subcommand> [<arg> [value] [opt] ...]. Subcommands are:");
        for (CommandSpec sub : subs.values()) {
            lines.add(sub.name().toUpperCase(Locale.ROOT));
            lines.add("    " + sub.summary());
        }
        c.reply().array(lines.size());
        lines.forEach(c.reply()::simple);
    }

    /** Redis' text, as {@code addReplyHelp} frames it. */
    static void help(CommandContext c, String container, List<String> text) {
        c.reply().array(text.size() + 3);
        c.reply().simple(container + " <subcommand> [<arg> [value] [opt] ...]. Subcommands are:");
        text.forEach(c.reply()::simple);
        c.reply().simple("HELP").simple("    Prints this help.");
    }
}
