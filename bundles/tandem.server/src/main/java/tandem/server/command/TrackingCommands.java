package tandem.server.command;

import java.util.ArrayList;
import java.util.List;

import tandem.protocol.command.String2ll;
import tandem.server.pubsub.PubSubRegistry;
import tandem.server.pubsub.Tracking;
import tandem.server.resp.RespWriter;

/**
 * {@code CLIENT TRACKING}, {@code CLIENT CACHING}, {@code CLIENT GETREDIR} and {@code CLIENT TRACKINGINFO}: Redis
 * 7.0's checks and replies over the server's {@link Tracking}.
 */
final class TrackingCommands {

    private TrackingCommands() {
    }

    /** {@code CLIENT GETREDIR}: -1 without tracking, 0 without a redirection. */
    static void getredir(CommandContext c, byte[][] a) {
        c.reply().integer(tracking(c).redirect(c.session().id()));
    }

    private static boolean is(byte[] arg, String word) {
        return CommandTable.ascii(arg).equalsIgnoreCase(word);
    }

    private static Tracking tracking(CommandContext c) {
        PubSubRegistry registry = c.server().pubsub();
        return registry == null ? NO_TRACKING : registry.tracking();
    }

    /** A server without a registry (tests of the table alone): nobody tracks, and nobody can. */
    private static final Tracking NO_TRACKING = new Tracking(id -> null);

    /**
     * {@code CLIENT TRACKING ON|OFF [REDIRECT id] [PREFIX p ...] [BCAST] [OPTIN] [OPTOUT] [NOLOOP]}: the options are
     * parsed first, in Redis's order, then checked against each other and the connection's current mode.
     */
    static void tracking(CommandContext c, byte[][] a) {
        long redirect = 0;
        boolean bcast = false;
        boolean optin = false;
        boolean optout = false;
        boolean noloop = false;
        List<byte[]> prefixes = new ArrayList<>();
        for (int j = 3; j < a.length; j++) {
            boolean more = j < a.length - 1;
            if (is(a[j], "redirect") && more) {
                j++;
                if (redirect != 0) {
                    c.reply().error("ERR A client can only redirect to a single other client");
                    return;
                }
                try {
                    redirect = String2ll.parse(a[j]);
                } catch (NumberFormatException e) {
                    c.reply().error("ERR value is not an integer or out of range");
                    return;
                }
                long target = redirect;
                if (c.server().clients().stream().noneMatch(info -> info.id() == target)) {
                    c.reply().error("ERR The client ID you want redirect to does not exist");
                    return;
                }
            } else if (is(a[j], "bcast")) {
                bcast = true;
            } else if (is(a[j], "optin")) {
                optin = true;
            } else if (is(a[j], "optout")) {
                optout = true;
            } else if (is(a[j], "noloop")) {
                noloop = true;
            } else if (is(a[j], "prefix") && more) {
                prefixes.add(a[++j]);
            } else {
                c.reply().error("ERR syntax error");
                return;
            }
        }
        Tracking tracking = tracking(c);
        if (is(a[2], "on")) {
            String refused = tracking.on(c.session().id(), redirect, bcast, optin, optout, noloop, prefixes);
            if (refused != null) {
                c.reply().error(refused);
                return;
            }
        } else if (is(a[2], "off")) {
            tracking.off(c.session().id());
        } else {
            c.reply().error("ERR syntax error");
            return;
        }
        c.reply().ok();
    }

    /** {@code CLIENT CACHING YES|NO}: for the next command, in OPTIN or OPTOUT mode. */
    static void caching(CommandContext c, byte[][] a) {
        boolean yes = is(a[2], "yes");
        if (!yes && !is(a[2], "no")) {
            String refused = tracking(c).cachingRefusal(c.session().id()); // the mode is checked first, as Redis
            c.reply().error(refused != null ? refused : "ERR syntax error");
            return;
        }
        String refused = tracking(c).caching(c.session().id(), yes);
        if (refused != null) {
            c.reply().error(refused);
        } else {
            c.reply().ok();
        }
    }

    /** {@code CLIENT TRACKINGINFO}: a map of flags (a set), redirect and prefixes. */
    static void trackingInfo(CommandContext c, byte[][] a) {
        Tracking.Info info = tracking(c).info(c.session().id());
        RespWriter r = c.reply();
        r.map(3);
        r.bulk("flags").set(info.flags().size());
        info.flags().forEach(r::bulk);
        r.bulk("redirect").integer(info.redirect());
        r.bulk("prefixes").array(info.prefixes().size());
        info.prefixes().forEach(r::bulk);
    }
}
