package tandem.server.command;

import static tandem.server.command.CommandTable.ascii;
import static tandem.server.command.CommandTable.sub;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import tandem.api.failover.FailoverGroup;
import tandem.api.failover.FailoverStatus;
import tandem.api.failover.FailoverStatus.Member;
import tandem.server.resp.RespWriter;

/**
 * The Sentinel discovery subset, answered by every member of a failover group on its RESP port so that Jedis's
 * {@code JedisSentinelPool}, Lettuce's Sentinel {@code RedisURI} and redis-py's {@code Sentinel}, given the nodes'
 * addresses as sentinels, find the primary: {@code SENTINEL GET-MASTER-ADDR-BY-NAME}, {@code MASTERS}, {@code MASTER},
 * {@code REPLICAS}/{@code SLAVES}, {@code SENTINELS}, {@code MYID}. The fields and their order are Redis Sentinel
 * 7.0's (research/sentinel-clients.md §3); every value is a bulk string, numbers included. The group's members play
 * the sentinels; the group's name is the master's name.
 */
final class SentinelCommands {

    private static final List<String> FLAGS = List.of("admin", "loading", "stale");

    private SentinelCommands() {
    }

    static CommandTable.Builder register(CommandTable.Builder b) {
        Map<String, CommandSpec> sentinel = new LinkedHashMap<>();
        sentinel.put("get-master-addr-by-name", sub("sentinel", "get-master-addr-by-name", 3, FLAGS, "sentinel",
                "2.8.4", "Get port and address of a master with a given name", SentinelCommands::address));
        sentinel.put("masters", sub("sentinel", "masters", 2, FLAGS, "sentinel", "2.8.4",
                "Get information about the monitored masters", (c, a) -> {
                    FailoverStatus s = status(c);
                    if (s != null) {
                        c.reply().array(1);
                        master(c.reply(), s);
                    }
                }));
        sentinel.put("master", sub("sentinel", "master", 3, FLAGS, "sentinel", "2.8.4",
                "Get information about a monitored master", (c, a) -> answer(c, a, SentinelCommands::master)));
        sentinel.put("replicas", sub("sentinel", "replicas", 3, FLAGS, "sentinel", "5.0.0",
                "List the replicas of a monitored master", (c, a) -> answer(c, a, SentinelCommands::replicas)));
        sentinel.put("slaves", sub("sentinel", "slaves", 3, FLAGS, "sentinel", "2.8.0",
                "List the replicas of a monitored master", (c, a) -> answer(c, a, SentinelCommands::replicas)));
        sentinel.put("sentinels", sub("sentinel", "sentinels", 3, FLAGS, "sentinel", "2.8.4",
                "List the sentinels of a monitored master", (c, a) -> answer(c, a, SentinelCommands::sentinels)));
        sentinel.put("myid", sub("sentinel", "myid", 2, FLAGS, "sentinel", "6.2.0", "Get the sentinel's id",
                (c, a) -> {
                    FailoverStatus s = status(c);
                    if (s != null) {
                        c.reply().bulk(s.nodeId());
                    }
                }));
        return b.container("sentinel", -2, "sentinel", "2.8.4",
                "Sentinel discovery: the failover group's primary, replicas and members", null, sentinel);
    }

    /** @return the group's status, or null after answering the error of a node in no group */
    private static FailoverStatus status(CommandContext c) {
        FailoverGroup g = c.server().failoverGroup();
        if (g == null) {
            c.reply().error("ERR this node is in no failover group (tandem.failover is not configured): it "
                    + "answers no SENTINEL command");
            return null;
        }
        return g.status();
    }

    /** Answers a subcommand about the master named by its third argument, or Sentinel's error for another name. */
    private static void answer(CommandContext c, byte[][] a, java.util.function.BiConsumer<RespWriter,
            FailoverStatus> body) {
        FailoverStatus s = status(c);
        if (s == null) {
            return;
        }
        if (!s.group().equals(ascii(a[2]))) {
            c.reply().error("ERR No such master with that name");
            return;
        }
        body.accept(c.reply(), s);
    }

    private static void address(CommandContext c, byte[][] a) {
        FailoverStatus s = status(c);
        if (s == null) {
            return;
        }
        Member p = primary(s);
        if (!s.group().equals(ascii(a[2])) || p == null || p.resp().isEmpty()) {
            c.reply().nullArray();
            return;
        }
        c.reply().array(2).bulk(ip(p.resp())).bulk(port(p.resp()));
    }

    private static Member primary(FailoverStatus s) {
        for (Member m : s.members()) {
            if (m.id().equals(s.primary())) {
                return m;
            }
        }
        return null;
    }

    private static void master(RespWriter w, FailoverStatus s) {
        Member p = primary(s);
        String resp = p == null ? ":0" : p.resp();
        boolean down = p == null || !"primary".equals(p.role());
        int others = s.members().size() - 1;
        long replicas = s.members().stream().filter(m -> !m.witness() && !m.id().equals(s.primary())).count();
        long age = p == null ? 0 : Math.max(0, p.ageMillis());
        pairs(w, "name", s.group(), "ip", ip(resp), "port", port(resp), "runid", p == null ? "" : p.id(),
                "flags", down ? "s_down,o_down,master,disconnected" : "master", "link-pending-commands", "0",
                "link-refcount", "1", "last-ping-sent", "0", "last-ok-ping-reply", Long.toString(age),
                "last-ping-reply", Long.toString(age), "down-after-milliseconds", Long.toString(s.downAfterMs()),
                "info-refresh", Long.toString(age), "role-reported", "master", "role-reported-time",
                Long.toString(age), "config-epoch", Long.toString(s.epoch()), "num-slaves", Long.toString(replicas),
                "num-other-sentinels", Integer.toString(others), "quorum",
                Integer.toString(s.members().size() / 2 + 1), "failover-timeout", "180000", "parallel-syncs", "1");
    }

    private static void replicas(RespWriter w, FailoverStatus s) {
        Member p = primary(s);
        List<Member> list = new ArrayList<>();
        for (Member m : s.members()) {
            if (!m.witness() && !m.id().equals(s.primary()) && !m.resp().isEmpty()) {
                list.add(m);
            }
        }
        w.array(list.size());
        for (Member m : list) {
            boolean up = "replica".equals(m.role());
            String age = Long.toString(Math.max(0, m.ageMillis()));
            String primary = p == null ? "?:0" : p.resp();
            pairs(w, "name", m.resp(), "ip", ip(m.resp()), "port", port(m.resp()), "runid", m.id(), "flags",
                    up ? "slave" : "s_down,slave,disconnected", "link-pending-commands", "0", "link-refcount", "1",
                    "last-ping-sent", "0", "last-ok-ping-reply", age, "last-ping-reply", age,
                    "down-after-milliseconds", Long.toString(s.downAfterMs()), "info-refresh", age,
                    "role-reported", "slave", "role-reported-time", age, "master-link-down-time", "0",
                    "master-link-status", up ? "ok" : "err", "master-host", ip(primary), "master-port",
                    port(primary), "slave-priority", "100", "slave-repl-offset", Long.toString(Math.max(0, m.tip())),
                    "replica-announced", "1");
        }
    }

    private static void sentinels(RespWriter w, FailoverStatus s) {
        List<Member> list = new ArrayList<>();
        for (Member m : s.members()) {
            if (!m.id().equals(s.nodeId()) && !m.resp().isEmpty()) {
                list.add(m);
            }
        }
        w.array(list.size());
        for (Member m : list) {
            String age = Long.toString(Math.max(0, m.ageMillis()));
            pairs(w, "name", m.id(), "ip", ip(m.resp()), "port", port(m.resp()), "runid", m.id(), "flags",
                    "down".equals(m.role()) ? "s_down,sentinel,disconnected" : "sentinel", "link-pending-commands",
                    "0", "link-refcount", "1", "last-ping-sent", "0", "last-ok-ping-reply", age, "last-ping-reply",
                    age, "down-after-milliseconds", Long.toString(s.downAfterMs()), "last-hello-message", age,
                    "voted-leader", "?", "voted-leader-epoch", "0");
        }
    }

    /** Fields of an instance: a map in RESP3, a flat array in RESP2, as Sentinel writes them. */
    private static void pairs(RespWriter w, String... kv) {
        w.map(kv.length / 2);
        for (String v : kv) {
            w.bulk(v);
        }
    }

    private static String ip(String address) {
        int colon = address.lastIndexOf(':');
        return colon < 0 ? address : address.substring(0, colon);
    }

    private static String port(String address) {
        int colon = address.lastIndexOf(':');
        return colon < 0 ? "0" : address.substring(colon + 1);
    }
}
