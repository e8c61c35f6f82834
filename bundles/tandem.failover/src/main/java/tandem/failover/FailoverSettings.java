package tandem.failover;

import java.net.InetAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The failover configuration, validated: every error names the property. {@link #sameGroup} tells a tunable change
 * (applied live) from one that restarts the Raft peer.
 */
record FailoverSettings(String group, String nodeId, Map<String, String> peers, String raftBind, int raftPort,
        boolean witness, boolean automatic, long downAfterMs, long leaseMs, long reportIntervalMs,
        int electionMinMs, int electionMaxMs, boolean lossy, long updateGraceMs, Path storage, boolean join,
        boolean tls) {

    static final String PID = "tandem.failover";
    private static final Pattern ID = Pattern.compile("[A-Za-z0-9._-]{1,64}");
    private static final Pattern PEER = Pattern.compile("([A-Za-z0-9._-]{1,64})@(.+):(\\d{1,5})");

    static FailoverSettings of(FailoverConfig c, Path home) {
        if (!ID.matcher(c.group()).matches()) {
            throw invalid("group", c.group(), "letters, digits, '.', '_' or '-', 1 to 64 of them");
        }
        if (!ID.matcher(c.node_id()).matches()) {
            throw invalid("node.id", c.node_id(), "letters, digits, '.', '_' or '-', 1 to 64 of them");
        }
        Map<String, String> peers = new LinkedHashMap<>();
        for (String p : c.peers().split(",")) {
            String t = p.trim();
            if (t.isEmpty()) {
                continue;
            }
            Matcher m = PEER.matcher(t);
            if (!m.matches()) {
                throw invalid("peers", c.peers(), "id@IP:PORT entries, comma-separated; '" + t + "' is not one");
            }
            ipLiteral("peers", m.group(2));
            int port = Integer.parseInt(m.group(3));
            if (port < 1 || port > 65535) {
                throw invalid("peers", c.peers(), "ports between 1 and 65535");
            }
            if (peers.put(m.group(1), m.group(2) + ":" + port) != null) {
                throw invalid("peers", c.peers(), "each id once; '" + m.group(1) + "' repeats");
            }
        }
        if (!peers.containsKey(c.node_id())) {
            throw invalid("peers", c.peers(), "this node's id '" + c.node_id() + "' among them");
        }
        ipLiteral("raft.bind", c.raft_bind());
        int ownPort = Integer.parseInt(peers.get(c.node_id()).substring(peers.get(c.node_id()).lastIndexOf(':') + 1));
        int raftPort = c.raft_port() == 0 ? ownPort : c.raft_port();
        if (raftPort < 1 || raftPort > 65535) {
            throw invalid("raft.port", c.raft_port(), "between 0 and 65535");
        }
        long report = range("report.interval.ms", c.report_interval_ms(), 10, 10_000);
        long lease = range("lease.ms", c.lease_ms(), 50, 600_000);
        long down = range("down.after.ms", c.down_after_ms(), 200, 600_000);
        if (down < lease + 2 * report) {
            throw invalid("down.after.ms", c.down_after_ms(), "at least lease.ms + 2 × report.interval.ms = "
                    + (lease + 2 * report) + ": the old primary must have stopped writing before a successor starts");
        }
        if (lease < 2 * report) {
            throw invalid("lease.ms", c.lease_ms(), "at least 2 × report.interval.ms = " + (2 * report));
        }
        int min = (int) range("election.timeout.min.ms", c.election_timeout_min_ms(), 50, 60_000);
        if (c.election_timeout_max_ms() <= min || c.election_timeout_max_ms() > 120_000) {
            throw invalid("election.timeout.max.ms", c.election_timeout_max_ms(),
                    "above election.timeout.min.ms (" + min + ") and at most 120000");
        }
        long grace = range("update.grace.ms", c.update_grace_ms(), 0, 600_000);
        Path storage = c.storage_directory().isBlank() ? home.resolve("data").resolve("failover")
                : Path.of(c.storage_directory());
        return new FailoverSettings(c.group(), c.node_id(), Collections.unmodifiableMap(peers), c.raft_bind(),
                raftPort, c.witness(), c.automatic(), down, lease, report, min, c.election_timeout_max_ms(), c.lossy(),
                grace, storage, c.join(), c.tls());
    }

    /** @return these settings with the group's members as its Raft configuration holds them now */
    FailoverSettings withPeers(Map<String, String> members) {
        return new FailoverSettings(group, nodeId, Collections.unmodifiableMap(new LinkedHashMap<>(members)), raftBind,
                raftPort, witness, automatic, downAfterMs, leaseMs, reportIntervalMs, electionMinMs, electionMaxMs,
                lossy, updateGraceMs, storage, join, tls);
    }

    /**
     * Checks a member named at run time ({@code failover:add}) as {@code peers} checks its entries.
     *
     * @return {@code ip:port}
     */
    static String member(String id, String address) {
        if (id == null || !ID.matcher(id).matches()) {
            throw invalid("id", id, "letters, digits, '.', '_' or '-', 1 to 64 of them");
        }
        Matcher m = PEER.matcher(id + "@" + address);
        if (!m.matches()) {
            throw invalid("address", address, "IP:PORT");
        }
        ipLiteral("address", m.group(2));
        int port = Integer.parseInt(m.group(3));
        if (port < 1 || port > 65535) {
            throw invalid("address", address, "a port between 1 and 65535");
        }
        return m.group(2) + ":" + port;
    }

    /** @return the peers in their configured order */
    List<String> peerIds() {
        return new ArrayList<>(peers.keySet());
    }

    /**
     * @return whether {@code other} runs the same Raft peer (only tunables differ). {@code peers} is not compared: it
     *         forms the group when this node's Raft storage is new, and from then on the members are what the group's
     *         log says ({@code failover:add}, {@code failover:remove}).
     */
    boolean sameGroup(FailoverSettings other) {
        return group.equals(other.group) && nodeId.equals(other.nodeId) && raftBind.equals(other.raftBind)
                && raftPort == other.raftPort && witness == other.witness
                && electionMinMs == other.electionMinMs && electionMaxMs == other.electionMaxMs
                && storage.equals(other.storage) && tls == other.tls;
    }

    private static long range(String property, long value, long min, long max) {
        if (value < min || value > max) {
            throw invalid(property, value, "between " + min + " and " + max);
        }
        return value;
    }

    private static void ipLiteral(String property, String host) {
        if (!host.matches("[0-9.]+") && !host.contains(":")) {
            throw invalid(property, host, "an IP address literal (host names are refused)");
        }
        try {
            InetAddress.getByName(host); // a literal: no lookup
        } catch (java.net.UnknownHostException e) {
            throw invalid(property, host, "an IP address literal");
        }
    }

    private static IllegalArgumentException invalid(String property, Object value, String must) {
        return new IllegalArgumentException(PID + ": " + property + "=" + value + " is invalid: must be " + must);
    }
}
