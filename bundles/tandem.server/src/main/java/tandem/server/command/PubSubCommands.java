package tandem.server.command;

import static tandem.server.command.CommandTable.sub;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import tandem.server.pubsub.Kind;
import tandem.server.pubsub.PubSubRegistry;
import tandem.server.pubsub.Subscriptions;
import tandem.server.resp.RespWriter;

/**
 * Pub/Sub as Redis 7.0 has it for RESP2: {@code (P|S)SUBSCRIBE}, {@code (P|S)UNSUBSCRIBE}, {@code (S)PUBLISH},
 * {@code PUBSUB} and {@code RESET}, over the connection's {@link Subscriptions} and the node's
 * {@link PubSubRegistry}. Shard channels behave as in a Redis that is not a cluster: channels of their own
 * namespace.
 */
final class PubSubCommands {

    private static final List<String> SUBSCRIBE = List.of("pubsub", "noscript", "loading", "stale");
    private static final List<String> PUBLISH = List.of("pubsub", "loading", "stale", "fast");
    private static final List<String> INTROSPECT = List.of("pubsub", "loading", "stale");
    private static final List<String> HELP = List.of(
            "CHANNELS [<pattern>]",
            "    Return the currently active channels matching a <pattern> (default: '*').",
            "NUMPAT",
            "    Return number of subscriptions to patterns.",
            "NUMSUB [<channel> ...]",
            "    Return the number of subscribers for the specified channels, excluding",
            "    pattern subscriptions(default: no channels).",
            "SHARDCHANNELS [<pattern>]",
            "    Return the currently active shard level channels matching a <pattern> (default: '*').",
            "SHARDNUMSUB [<shardchannel> ...]",
            "    Return the number of subscribers for the specified shard level channel(s)");

    private PubSubCommands() {
    }

    static CommandTable.Builder register(CommandTable.Builder b) {
        List<String> acl = List.of("pubsub", "slow");
        Map<String, CommandSpec> pubsub = new LinkedHashMap<>();
        pubsub.put("channels", sub("pubsub", "channels", -2, INTROSPECT, "pubsub", "2.8.0", "List active channels",
                (c, a) -> channels(c, a, Kind.CHANNEL)));
        pubsub.put("numpat", sub("pubsub", "numpat", 2, INTROSPECT, "pubsub", "2.8.0",
                "Get the count of unique patterns pattern subscriptions",
                (c, a) -> c.reply().integer(registry(c).size(Kind.PATTERN))));
        pubsub.put("numsub", sub("pubsub", "numsub", -2, INTROSPECT, "pubsub", "2.8.0",
                "Get the count of subscribers for channels", (c, a) -> numsub(c, a, Kind.CHANNEL)));
        pubsub.put("shardchannels", sub("pubsub", "shardchannels", -2, INTROSPECT, "pubsub", "7.0.0",
                "List active shard channels", (c, a) -> channels(c, a, Kind.SHARD)));
        pubsub.put("shardnumsub", sub("pubsub", "shardnumsub", -2, INTROSPECT, "pubsub", "7.0.0",
                "Get the count of subscribers for shard channels", (c, a) -> numsub(c, a, Kind.SHARD)));
        pubsub.put("help", sub("pubsub", "help", 2, List.of("loading", "stale"), "pubsub", "6.2.0",
                "Show helpful text about the different subcommands", (c, a) -> Commands.help(c, "PUBSUB", HELP)));
        return b.add("subscribe", -2, SUBSCRIBE, acl, "pubsub", "2.0.0",
                        "Listen for messages published to the given channels", (c, a) -> subscribe(c, a, Kind.CHANNEL))
                .add("unsubscribe", -1, SUBSCRIBE, acl, "pubsub", "2.0.0",
                        "Stop listening for messages posted to the given channels",
                        (c, a) -> unsubscribe(c, a, Kind.CHANNEL))
                .add("psubscribe", -2, SUBSCRIBE, acl, "pubsub", "2.0.0",
                        "Listen for messages published to channels matching the given patterns",
                        (c, a) -> subscribe(c, a, Kind.PATTERN))
                .add("punsubscribe", -1, SUBSCRIBE, acl, "pubsub", "2.0.0",
                        "Stop listening for messages posted to channels matching the given patterns",
                        (c, a) -> unsubscribe(c, a, Kind.PATTERN))
                .add("ssubscribe", -2, SUBSCRIBE, acl, "pubsub", "7.0.0",
                        "Listen for messages published to the given shard channels",
                        (c, a) -> subscribe(c, a, Kind.SHARD))
                .add("sunsubscribe", -1, SUBSCRIBE, acl, "pubsub", "7.0.0",
                        "Stop listening for messages posted to the given shard channels",
                        (c, a) -> unsubscribe(c, a, Kind.SHARD))
                .add("publish", 3, PUBLISH, List.of("pubsub", "fast"), "pubsub", "2.0.0",
                        "Post a message to a channel",
                        (c, a) -> c.reply().integer(registry(c).publish(Kind.CHANNEL, a[1], a[2])))
                .add("spublish", 3, PUBLISH, List.of("pubsub", "fast"), "pubsub", "7.0.0",
                        "Post a message to a shard channel",
                        (c, a) -> c.reply().integer(registry(c).publish(Kind.SHARD, a[1], a[2])))
                .container("pubsub", -2, "pubsub", "2.8.0", "A container for Pub/Sub commands", null, pubsub)
                .add("reset", 1, List.of("noscript", "loading", "stale", "fast", "no_auth", "allow_busy"),
                        List.of("fast", "connection"), "connection", "6.2.0", "Reset the connection",
                        PubSubCommands::reset);
    }

    private static PubSubRegistry registry(CommandContext c) {
        PubSubRegistry registry = c.server().pubsub();
        if (registry == null) {
            throw new IllegalStateException("this server has no Pub/Sub registry");
        }
        return registry;
    }

    private static Subscriptions subscriptions(CommandContext c) {
        Subscriptions s = c.subscriptions();
        if (s == null) {
            throw new IllegalStateException("this connection cannot subscribe");
        }
        return s;
    }

    private static void subscribe(CommandContext c, byte[][] a, Kind kind) {
        Subscriptions s = subscriptions(c);
        RespWriter r = c.reply();
        for (int i = 1; i < a.length; i++) {
            s.subscribe(kind, a[i]);
            r.push(3).bulk(kind.subscribe()).bulk(a[i]).integer(s.count(kind));
        }
    }

    /** Without names: every subscription of the kind, or one confirmation naming nil when there is none. */
    private static void unsubscribe(CommandContext c, byte[][] a, Kind kind) {
        Subscriptions s = subscriptions(c);
        RespWriter r = c.reply();
        List<byte[]> names = a.length > 1 ? List.of(a).subList(1, a.length) : s.names(kind);
        if (names.isEmpty()) {
            r.push(3).bulk(kind.unsubscribe()).nullBulk().integer(s.count(kind));
            return;
        }
        for (byte[] name : names) {
            s.unsubscribe(kind, name);
            r.push(3).bulk(kind.unsubscribe()).bulk(name).integer(s.count(kind));
        }
    }

    private static void channels(CommandContext c, byte[][] a, Kind kind) {
        if (a.length > 3) {
            c.reply().error(Commands.subcommandSyntax(a, "PUBSUB"));
            return;
        }
        List<byte[]> channels = registry(c).channels(kind, a.length == 3 ? a[2] : null);
        c.reply().array(channels.size());
        channels.forEach(c.reply()::bulk);
    }

    private static void numsub(CommandContext c, byte[][] a, Kind kind) {
        PubSubRegistry registry = registry(c);
        RespWriter r = c.reply();
        r.array((a.length - 2) * 2); // a flat array in RESP3 too, as Redis 7.0 sends it
        for (int i = 2; i < a.length; i++) {
            r.bulk(a[i]).integer(registry.subscribers(kind, a[i]));
        }
    }

    /**
     * {@code RESET}: the connection as it was when it connected, as far as the front end keeps it: no subscription,
     * no name, no tracking, database 0, RESP2, and authenticated only when no password is required. (What the node core keeps, a
     * transaction and watched keys, the node core discards before this runs.)
     */
    private static void reset(CommandContext c, byte[][] a) {
        subscriptions(c).clear();
        if (c.server().pubsub() != null) {
            c.server().pubsub().tracking().off(c.session().id()); // RESET ends client-side caching too
        }
        c.session().name(null);
        c.session().db(0);
        c.session().resetUser(!c.server().acl().authRequired());
        c.reply().protocol(2);
        c.session().resp(2);
        c.reply().simple("RESET");
    }
}
