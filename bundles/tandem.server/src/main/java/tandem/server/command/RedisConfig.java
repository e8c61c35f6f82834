package tandem.server.command;

import static tandem.server.command.ConfigTypes.ACTIVEDEFRAG;
import static tandem.server.command.ConfigTypes.BIND;
import static tandem.server.command.ConfigTypes.BOOL;
import static tandem.server.command.ConfigTypes.CLIENT_OUTPUT_BUFFER_LIMIT;
import static tandem.server.command.ConfigTypes.HOSTNAME;
import static tandem.server.command.ConfigTypes.INT_MAX;
import static tandem.server.command.ConfigTypes.INT_MIN;
import static tandem.server.command.ConfigTypes.KEYSPACE_EVENTS;
import static tandem.server.command.ConfigTypes.LONG_MAX;
import static tandem.server.command.ConfigTypes.MEMORY;
import static tandem.server.command.ConfigTypes.OOM_SCORE_ADJ_VALUES;
import static tandem.server.command.ConfigTypes.PERCENT;
import static tandem.server.command.ConfigTypes.PERCENTILES;
import static tandem.server.command.ConfigTypes.PROC_TITLE_TEMPLATE;
import static tandem.server.command.ConfigTypes.SAVE;
import static tandem.server.command.ConfigTypes.SDS;
import static tandem.server.command.ConfigTypes.SHUTDOWN_FLAGS;
import static tandem.server.command.ConfigTypes.STRING;
import static tandem.server.command.ConfigTypes.UINT_MAX;
import static tandem.server.command.ConfigTypes.ULLONG_MAX;
import static tandem.server.command.ConfigTypes.UNSIGNED;
import static tandem.server.command.ConfigTypes.cString;
import static tandem.server.command.ConfigTypes.choices;
import static tandem.server.command.ConfigTypes.integer;
import static tandem.server.command.ConfigTypes.lower;
import static tandem.server.command.ConfigTypes.number;
import static tandem.server.command.ConfigTypes.oneOf;
import static tandem.server.command.ConfigTypes.split;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;

import tandem.api.replication.ReplicationHub;
import tandem.protocol.command.Glob;
import tandem.server.command.ConfigTypes.Refused;
import tandem.server.command.ConfigTypes.Type;

/**
 * The parameters of {@code CONFIG GET} and {@code CONFIG SET}: every parameter of Redis 7.0.15 (as Debian builds
 * it, with TLS), under its name and its alias, with Redis' default, value rules, error texts and all-or-nothing
 * {@code CONFIG SET}, plus Tandem's {@code min-replicas-timeout-ms}.
 *
 * <p>A parameter is one of three kinds. Most are <em>kept</em> here: accepted and reported as Redis does, so that
 * tools which tune Redis work, though the value changes nothing in Tandem unless a component reads it (the
 * SLOWLOG and LATENCY parameters, through {@link #monitoring()}). Some are <em>owned</em> by the server
 * ({@code maxclients}, {@code requirepass}, {@code port}…): read from it and applied to it. A few are
 * <em>fixed</em> at what Tandem does ({@code save ""}, {@code appendonly no}…): Redis' syntax is checked, then
 * only that value is taken. A value Redis accepts but Tandem cannot honour is refused after every value passed
 * Redis' checks, where Redis refuses what its apply step cannot do, in Redis' error shape.
 *
 * <p>Values set here last until the server component restarts, like Redis without {@code CONFIG REWRITE}.
 */
public final class RedisConfig {

    private static final Logger LOG = System.getLogger("tandem.server");

    /** The server's side of the parameters it owns. */
    public interface Owner {

        /**
         * @return the value of an owned parameter (by its primary name), as {@code CONFIG GET} renders it: its bytes
         *         as ISO-8859-1 characters, as values set by {@code CONFIG SET} are
         */
        String value(String name);

        /**
         * Applies new values of owned parameters; they passed every check, and are given in the order of the
         * request (a later one wins where two set the same thing).
         */
        void apply(Map<String, String> changes);

        /** @return why an owned parameter cannot take {@code value} now (its owner is away), or null */
        default String refusal(String name, String value) {
            return null;
        }

        /**
         * Applies the owned changes that can still fail as they apply (TLS material that does not load, a port that
         * cannot be bound), all or nothing, before anything else of the request is applied.
         *
         * @return null when applied (or none of them is such a change), else the parameter and why: then nothing
         *         of the request applies
         */
        default Map.Entry<String, String> prepare(Map<String, String> changes) {
            return null;
        }
    }

    /**
     * What SLOWLOG and LATENCY act on, as {@code CONFIG SET} left it.
     *
     * @param slowlogLogSlowerThan           microseconds; a command that runs longer is logged, -1 logs none
     * @param slowlogMaxLen                  entries the slow log keeps
     * @param latencyMonitorThreshold        milliseconds; events that take longer are sampled, 0 disables it
     * @param latencyTracking                whether per-command latency histograms are kept
     * @param latencyTrackingInfoPercentiles the percentiles {@code INFO latencystats} shows
     */
    public record Monitoring(long slowlogLogSlowerThan, long slowlogMaxLen, long latencyMonitorThreshold,
            boolean latencyTracking, List<Double> latencyTrackingInfoPercentiles) {
    }

    private static final List<String> MONITORING = List.of("slowlog-log-slower-than", "slowlog-max-len",
            "latency-monitor-threshold", "latency-tracking", "latency-tracking-info-percentiles");

    private static final int IMMUTABLE = 1;
    private static final int PROTECTED = 2;
    /** Reported only when asked for by its exact name. */
    private static final int HIDDEN = 4;
    /** Kept out of the log. */
    private static final int SENSITIVE = 8;
    private static final int OWNED = 16;
    /** Takes only Tandem's value, so a {@code CONFIG SET} that passes changes nothing. */
    private static final int FIXED = 32;

    /**
     * What Redis' apply step makes of a value it took ({@code updateHZ} brings {@code hz} within 1..500).
     *
     * @param applied the value of another parameter as Redis' apply steps see it: the new one once its own apply
     *                step ran in this request, the old one before
     */
    @FunctionalInterface
    private interface Adjustment {
        String adjust(String value, UnaryOperator<String> applied);
    }

    /** Tandem's answer to a value that passed Redis' checks: null to take it, else the reason. */
    @FunctionalInterface
    private interface Refusal {
        String refusal(String value, String current);
    }

    /**
     * @param type     how Redis reads the value; null where {@code CONFIG SET} is refused whatever the value
     * @param dflt     Redis 7.0.15's default as {@code CONFIG GET} renders it (Tandem's, for its own parameter);
     *                 null where it depends on the process ({@code dir})
     * @param constant Tandem's value where it is fixed, else null
     * @param refusal  what Tandem cannot honour of a value Redis accepts, or null
     */
    private record Param(String name, String alias, Type type, String dflt, int flags, String constant,
            Adjustment adjustment, Refusal refusal) {

        Param with(int flag) {
            return new Param(name, alias, type, dflt, flags | flag, constant, adjustment, refusal);
        }

        Param adjusted(Adjustment how) {
            return new Param(name, alias, type, dflt, flags, constant, how, refusal);
        }

        /** Owned by the server, within Tandem's bounds where they are narrower than Redis'. */
        Param owned(long min, long max) {
            return new Param(name, alias, type, dflt, flags | OWNED, constant, adjustment, (value, current) -> {
                long v = Long.parseLong(value);
                return v >= min && v <= max ? null : "argument must be between " + min + " and " + max + " inclusive";
            });
        }

        /** Tandem does {@code value} (the server's, when null) and takes no other. */
        Param fixed(String value, String reason) {
            return new Param(name, alias, type, dflt, flags | FIXED | (value == null ? OWNED : 0), value, adjustment,
                    (v, current) -> v.equals(current) ? null : reason);
        }
    }

    private static Param p(String name, Type type, String dflt) {
        return new Param(name, null, type, dflt, 0, null, null, null);
    }

    private static Param p(String name, String alias, Type type, String dflt) {
        return new Param(name, alias, type, dflt, 0, null, null, null);
    }

    private static Param immutable(String name, String dflt) {
        return new Param(name, null, null, dflt, IMMUTABLE, null, null, null);
    }

    /** Brought within {@code min..max}, as Redis' apply step does. */
    private static Adjustment clamped(long min, long max) {
        return (value, applied) -> Long.toString(Math.max(min, Math.min(max, Long.parseLong(value))));
    }

    private static final String NO_RDB_NOR_AOF = "Tandem journals every write; it writes no RDB snapshot and no "
            + "AOF";
    private static final String NO_TLS = "Tandem has no cluster bus";
    private static final String LISTENER = "Tandem's listener is configured in etc/tandem.server.cfg, which "
            + "rebinds it live";

    /** Redis' {@code static_configs}, in its order, then Tandem's own. */
    private static final List<Param> PARAMS = List.of(
            immutable("rdbchecksum", "yes"),
            immutable("daemonize", "no"),
            immutable("io-threads-do-reads", "no"),
            immutable("always-show-logo", "no"),
            p("protected-mode", BOOL, "yes"),
            p("rdbcompression", BOOL, "yes"),
            p("rdb-del-sync-files", BOOL, "no"),
            p("activerehashing", BOOL, "yes"),
            p("stop-writes-on-bgsave-error", BOOL, "yes"),
            immutable("set-proc-title", "yes"),
            p("dynamic-hz", BOOL, "yes"),
            p("lazyfree-lazy-eviction", BOOL, "no"),
            p("lazyfree-lazy-expire", BOOL, "no"),
            p("lazyfree-lazy-server-del", BOOL, "no"),
            p("lazyfree-lazy-user-del", BOOL, "no"),
            p("lazyfree-lazy-user-flush", BOOL, "no"),
            p("repl-disable-tcp-nodelay", BOOL, "no"),
            p("repl-diskless-sync", BOOL, "yes"),
            p("aof-rewrite-incremental-fsync", BOOL, "yes"),
            p("no-appendfsync-on-rewrite", BOOL, "no"),
            p("cluster-require-full-coverage", BOOL, "yes"),
            p("rdb-save-incremental-fsync", BOOL, "yes"),
            p("aof-load-truncated", BOOL, "yes"),
            p("aof-use-rdb-preamble", BOOL, "yes"),
            p("aof-timestamp-enabled", BOOL, "no"),
            p("cluster-replica-no-failover", "cluster-slave-no-failover", BOOL, "no"),
            p("replica-lazy-flush", "slave-lazy-flush", BOOL, "no"),
            p("replica-serve-stale-data", "slave-serve-stale-data", BOOL, "yes"),
            p("replica-read-only", "slave-read-only", BOOL, "yes")
                    .fixed("yes", "Tandem's replicas are always read-only"),
            p("replica-ignore-maxmemory", "slave-ignore-maxmemory", BOOL, "yes"),
            p("jemalloc-bg-thread", BOOL, "yes"),
            p("activedefrag", ACTIVEDEFRAG, "no"),
            immutable("syslog-enabled", "no"),
            immutable("cluster-enabled", "no"),
            p("appendonly", BOOL, "no").fixed("no", NO_RDB_NOR_AOF),
            p("cluster-allow-reads-when-down", BOOL, "no"),
            p("cluster-allow-pubsubshard-when-down", BOOL, "yes"),
            p("crash-log-enabled", BOOL, "yes"),
            p("crash-memcheck-enabled", BOOL, "yes"),
            p("use-exit-on-panic", BOOL, "no").with(HIDDEN),
            immutable("disable-thp", "yes"),
            p("cluster-allow-replica-migration", BOOL, "yes"),
            p("replica-announced", BOOL, "yes"),
            p("latency-tracking", BOOL, "yes"),
            p("aof-disable-auto-gc", BOOL, "no"),
            p("replica-ignore-disk-write-errors", BOOL, "no"),

            immutable("aclfile", "").with(OWNED),
            immutable("unixsocket", ""),
            immutable("pidfile", ""),
            p("replica-announce-ip", "slave-announce-ip", STRING, ""),
            p("masteruser", STRING, "").with(SENSITIVE),
            p("cluster-announce-ip", STRING, ""),
            immutable("cluster-config-file", "nodes.conf"),
            p("cluster-announce-hostname", HOSTNAME, ""),
            immutable("syslog-ident", "redis"),
            p("dbfilename", null, "dump.rdb").with(PROTECTED),
            immutable("appendfilename", "appendonly.aof"),
            immutable("appenddirname", "appendonlydir"),
            immutable("server_cpulist", ""),
            immutable("bio_cpulist", ""),
            immutable("aof_rewrite_cpulist", ""),
            immutable("bgsave_cpulist", ""),
            p("ignore-warnings", STRING, ""),
            p("proc-title-template", PROC_TITLE_TEMPLATE, "{title} {listen-addr} {server-mode}"),
            p("bind-source-addr", STRING, ""),
            immutable("logfile", ""),
            p("masterauth", SDS, "").with(SENSITIVE),
            p("requirepass", SDS, "").with(SENSITIVE | OWNED),

            immutable("supervised", "no"),
            immutable("syslog-facility", "local0"),
            p("repl-diskless-load", oneOf("disabled", "on-empty-db", "swapdb"), "disabled"),
            p("loglevel", oneOf("debug", "verbose", "notice", "warning"), "notice"),
            p("maxmemory-policy", oneOf("volatile-lru", "volatile-lfu", "volatile-random", "volatile-ttl",
                    "allkeys-lru", "allkeys-lfu", "allkeys-random", "noeviction"), "noeviction"),
            p("appendfsync", oneOf("everysec", "always", "no"), "everysec"),
            p("oom-score-adj", choices(new String[] {"no", "yes", "relative", "absolute"}, new int[] {0, 1, 1, 2},
                    false), "no"),
            p("acl-pubsub-default", oneOf("allchannels", "resetchannels"), "resetchannels").with(OWNED),
            p("sanitize-dump-payload", oneOf("no", "yes", "clients"), "no"),
            immutable("enable-protected-configs", "no"),
            immutable("enable-debug-command", "no"),
            immutable("enable-module-command", "no"),
            p("cluster-preferred-endpoint-type", oneOf("ip", "hostname", "unknown-endpoint"), "ip"),
            p("propagation-error-behavior", oneOf("ignore", "panic", "panic-on-replicas"), "ignore"),
            p("shutdown-on-sigint", SHUTDOWN_FLAGS, "default"),
            p("shutdown-on-sigterm", SHUTDOWN_FLAGS, "default"),

            new Param("databases", null, null, "16", IMMUTABLE, Integer.toString(
                    tandem.api.store.Keyspace.DATABASES), null, null),
            p("port", integer(0, 65535), "6379").fixed(null, LISTENER),
            immutable("io-threads", "1").with(OWNED),
            p("auto-aof-rewrite-percentage", integer(0, INT_MAX), "100"),
            p("cluster-replica-validity-factor", "cluster-slave-validity-factor", integer(0, INT_MAX), "10"),
            p("list-max-listpack-size", "list-max-ziplist-size", integer(INT_MIN, INT_MAX), "-2"),
            p("tcp-keepalive", integer(0, INT_MAX), "300"),
            p("cluster-migration-barrier", integer(0, INT_MAX), "1"),
            p("active-defrag-cycle-min", integer(1, 99), "1"),
            p("active-defrag-cycle-max", integer(1, 99), "25"),
            p("active-defrag-threshold-lower", integer(0, 1000), "10"),
            p("active-defrag-threshold-upper", integer(0, 1000), "100"),
            p("lfu-log-factor", integer(0, INT_MAX), "10"),
            p("lfu-decay-time", integer(0, INT_MAX), "1"),
            p("replica-priority", "slave-priority", integer(0, INT_MAX), "100"),
            p("repl-diskless-sync-delay", integer(0, INT_MAX), "5"),
            p("maxmemory-samples", integer(1, INT_MAX), "5"),
            p("maxmemory-eviction-tenacity", integer(0, 100), "10"),
            p("timeout", integer(0, INT_MAX), "0"),
            p("replica-announce-port", "slave-announce-port", integer(0, 65535), "0"),
            immutable("tcp-backlog", "511"),
            immutable("cluster-port", "0"),
            p("cluster-announce-bus-port", integer(0, 65535), "0"),
            p("cluster-announce-port", integer(0, 65535), "0"),
            p("cluster-announce-tls-port", integer(0, 65535), "0"),
            p("repl-timeout", integer(1, INT_MAX), "60"),
            p("repl-ping-replica-period", "repl-ping-slave-period", integer(1, INT_MAX), "10"),
            p("list-compress-depth", integer(0, INT_MAX), "0"),
            p("rdb-key-save-delay", integer(INT_MIN, INT_MAX), "0").with(HIDDEN),
            p("key-load-delay", integer(INT_MIN, INT_MAX), "0").with(HIDDEN),
            p("active-expire-effort", integer(1, 10), "1"),
            p("hz", integer(0, INT_MAX), "10").adjusted(clamped(1, 500)),
            p("min-replicas-to-write", "min-slaves-to-write", integer(0, INT_MAX), "0")
                    .owned(0, ReplicationHub.MAX_REPLICAS),
            // Tandem keeps the window in milliseconds (min-replicas-timeout-ms); bounded as ServerSettings is
            p("min-replicas-max-lag", "min-slaves-max-lag", integer(0, INT_MAX), "10").owned(0, 86_400),
            // applyWatchdogPeriod: a period shorter than two ticks of the hz that is applied is lengthened
            p("watchdog-period", integer(0, INT_MAX), "0").with(HIDDEN).adjusted((value, applied) -> {
                long period = Long.parseLong(value);
                long ticks = 1000 / Long.parseLong(applied.apply("hz")) * 2;
                return Long.toString(period == 0 ? 0 : Math.max(period, ticks));
            }),
            p("shutdown-timeout", integer(0, INT_MAX), "10"),
            p("repl-diskless-sync-max-replicas", integer(0, INT_MAX), "0"),

            // the bounds of max.clients and max.request.size in ServerSettings
            p("maxclients", number(1, UINT_MAX, UNSIGNED), "10000").owned(1, 1_000_000),
            immutable("unixsocketperm", "0"),
            immutable("socket-mark-id", "0"),

            p("active-defrag-max-scan-fields", integer(1, LONG_MAX), "1000"),
            p("slowlog-max-len", integer(0, LONG_MAX), "128"),
            p("acllog-max-len", integer(0, LONG_MAX), "128").with(OWNED),

            p("busy-reply-threshold", "lua-time-limit", integer(0, LONG_MAX), "5000"),
            p("cluster-node-timeout", integer(0, LONG_MAX), "15000"),
            p("slowlog-log-slower-than", integer(-1, LONG_MAX), "10000"),
            p("latency-monitor-threshold", integer(0, LONG_MAX), "0"),
            p("proto-max-bulk-len", number(1024 * 1024, LONG_MAX, MEMORY), "536870912")
                    .owned(1024 * 1024, Integer.MAX_VALUE - 16),
            p("stream-node-max-entries", integer(0, LONG_MAX), "100"),
            // resizeReplicationBacklog keeps at least 16 kB
            p("repl-backlog-size", number(1, LONG_MAX, MEMORY), "1048576").adjusted(clamped(16 * 1024, LONG_MAX)),

            p("maxmemory", number(0, ULLONG_MAX, MEMORY | UNSIGNED), "0"),
            p("cluster-link-sendbuf-limit", number(0, ULLONG_MAX, MEMORY | UNSIGNED), "0"),

            p("hash-max-listpack-entries", "hash-max-ziplist-entries", number(0, LONG_MAX, UNSIGNED), "512"),
            p("set-max-intset-entries", number(0, LONG_MAX, UNSIGNED), "512"),
            p("zset-max-listpack-entries", "zset-max-ziplist-entries", number(0, LONG_MAX, UNSIGNED), "128"),
            p("active-defrag-ignore-bytes", number(1, LONG_MAX, MEMORY | UNSIGNED), "104857600"),
            p("hash-max-listpack-value", "hash-max-ziplist-value", number(0, LONG_MAX, MEMORY | UNSIGNED), "64"),
            p("stream-node-max-bytes", number(0, LONG_MAX, MEMORY | UNSIGNED), "4096"),
            p("zset-max-listpack-value", "zset-max-ziplist-value", number(0, LONG_MAX, MEMORY | UNSIGNED), "64"),
            p("hll-sparse-max-bytes", number(0, LONG_MAX, MEMORY | UNSIGNED), "3000"),
            p("tracking-table-max-keys", number(0, LONG_MAX, UNSIGNED), "1000000"),
            p("client-query-buffer-limit", number(1024 * 1024, LONG_MAX, MEMORY | UNSIGNED), "1073741824"),
            p("maxmemory-clients", number(-100, LONG_MAX, MEMORY | PERCENT), "0"),

            p("repl-backlog-ttl", integer(0, LONG_MAX), "3600"),
            p("auto-aof-rewrite-min-size", number(0, LONG_MAX, MEMORY), "67108864"),
            p("loading-process-events-interval-bytes", integer(1024, INT_MAX), "2097152").with(HIDDEN),

            p("tls-port", integer(0, 65535), "0").with(OWNED),
            p("tls-session-cache-size", integer(0, INT_MAX), "20480"),
            p("tls-session-cache-timeout", integer(0, INT_MAX), "300"),
            p("tls-cluster", BOOL, "no").fixed("no", NO_TLS),
            p("tls-replication", BOOL, "no").with(OWNED),
            p("tls-auth-clients", oneOf("no", "yes", "optional"), "yes").with(OWNED),
            p("tls-prefer-server-ciphers", BOOL, "no"),
            p("tls-session-caching", BOOL, "yes"),
            p("tls-cert-file", STRING, "").with(OWNED),
            p("tls-key-file", STRING, "").with(OWNED),
            p("tls-key-file-pass", STRING, "").with(OWNED | SENSITIVE),
            p("tls-client-cert-file", STRING, "").with(OWNED),
            p("tls-client-key-file", STRING, "").with(OWNED),
            p("tls-client-key-file-pass", STRING, "").with(OWNED | SENSITIVE),
            p("tls-dh-params-file", STRING, ""),
            p("tls-ca-cert-file", STRING, "").with(OWNED),
            p("tls-ca-cert-dir", STRING, "").with(OWNED),
            p("tls-protocols", STRING, "").with(OWNED),
            p("tls-ciphers", STRING, "").with(OWNED),
            p("tls-ciphersuites", STRING, "").with(OWNED),

            p("dir", null, null).with(PROTECTED | OWNED),
            p("save", SAVE, "3600 1 300 100 60 10000").fixed("", NO_RDB_NOR_AOF),
            p("client-output-buffer-limit", CLIENT_OUTPUT_BUFFER_LIMIT,
                    "normal 0 0 0 slave 268435456 67108864 60 pubsub 33554432 8388608 60"),
            p("oom-score-adj-values", OOM_SCORE_ADJ_VALUES, "0 200 800"),
            p("notify-keyspace-events", KEYSPACE_EVENTS, ""),
            p("bind", BIND, "* -::*").fixed(null, LISTENER),
            new Param("replicaof", "slaveof", null, "", IMMUTABLE | OWNED, null, null, null),
            p("latency-tracking-info-percentiles", PERCENTILES, "50 99 99.9"),

            p("min-replicas-timeout-ms", integer(0, 86_400_000), "5000").with(OWNED),
            // the quorum fence's (tandem.fencing), for the running fence: FrogDB's name, and Tandem's window
            p("self-fence-on-replica-loss", BOOL, "yes").with(OWNED),
            p("freshness-window-ms", integer(100, 600_000), "5000").with(OWNED));

    /** A name {@code CONFIG} knows: a primary name or an alias, each a parameter of its own for Redis. */
    private record Entry(String name, Param param) {
    }

    /** Every entry, a parameter's alias right after it. */
    private static final List<Entry> ENTRIES;
    private static final Map<String, Entry> BY_NAME = new HashMap<>();

    static {
        List<Entry> entries = new ArrayList<>();
        for (Param param : PARAMS) {
            entries.add(new Entry(param.name(), param));
            if (param.alias() != null) {
                entries.add(new Entry(param.alias(), param));
            }
        }
        ENTRIES = List.copyOf(entries);
        ENTRIES.forEach(e -> BY_NAME.put(e.name(), e));
    }

    private final Owner owner;
    /** The values kept here, by primary name; replaced whole by each {@code CONFIG SET}. */
    private volatile Map<String, String> kept;
    private final List<Consumer<Monitoring>> monitoringListeners = new CopyOnWriteArrayList<>();
    private final List<Runnable> commitListeners = new CopyOnWriteArrayList<>();

    /** The classes of the last {@code notify-keyspace-events} set, which its shown value may not tell ("A" hides n). */
    private volatile int keyspaceEvents;

    /** The parameters at their defaults; the owned ones read from and applied to {@code owner}. */
    public RedisConfig(Owner owner) {
        this.owner = owner;
        Map<String, String> values = new HashMap<>();
        for (Param param : PARAMS) {
            if ((param.flags() & OWNED) == 0 && param.constant() == null) {
                values.put(param.name(), param.dflt());
            }
        }
        this.kept = Map.copyOf(values);
    }

    /** @return Redis 7.0.15's default of a parameter, by its name or alias, as {@code CONFIG GET} renders it */
    static String redisDefault(String name) {
        return BY_NAME.get(name).param().dflt();
    }

    /** @return the value of a parameter, by its name or alias in any case, as {@code CONFIG GET} renders it */
    public String value(String name) {
        Entry entry = BY_NAME.get(lower(name));
        if (entry == null) {
            throw new IllegalArgumentException("no configuration parameter " + name);
        }
        return value(entry.param());
    }

    private String value(Param param) {
        if ((param.flags() & OWNED) != 0) {
            return owner.value(param.name());
        }
        return param.constant() != null ? param.constant() : kept.get(param.name());
    }

    /**
     * {@code CONFIG GET}: a pattern without {@code [*?} names one parameter (hidden ones too) and is reported as
     * given; a glob pattern matches the visible names and aliases, without case. A parameter already reported under
     * a name is not reported again under it.
     *
     * @return name → value, in the order found
     */
    public Map<String, String> get(List<String> patterns) {
        Map<String, String> found = new LinkedHashMap<>();
        Set<String> reported = new HashSet<>();
        for (String pattern : patterns) {
            String glob = cString(pattern);
            if (glob.chars().noneMatch(c -> c == '[' || c == '*' || c == '?')) {
                Entry entry = BY_NAME.get(lower(pattern));
                if (entry != null && reported.add(lower(pattern))) {
                    found.put(pattern, value(entry.param()));
                }
                continue;
            }
            for (Entry entry : ENTRIES) {
                if ((entry.param().flags() & HIDDEN) == 0 && !reported.contains(entry.name())
                        && Glob.matches(glob, entry.name(), true)) {
                    reported.add(entry.name());
                    found.put(entry.name(), value(entry.param()));
                }
            }
        }
        return found;
    }

    /**
     * {@code CONFIG SET} with Redis' order of checks: every name first (the first unknown, immutable, protected or
     * repeated one is the error), then every value by Redis' rules in turn, then what Tandem cannot honour; all
     * values are applied, or none.
     *
     * @param pairs name, value, name, value…
     * @return null when applied, else the error reply without its leading {@code -}
     */
    public synchronized String set(List<String> pairs) {
        List<Entry> entries = new ArrayList<>();
        for (int i = 0; i < pairs.size(); i += 2) {
            String name = pairs.get(i);
            Entry entry = BY_NAME.get(lower(name));
            if (entry == null) {
                return "ERR Unknown option or number of arguments for CONFIG SET - '" + cString(name) + "'";
            }
            int flags = entry.param().flags();
            String refused = (flags & IMMUTABLE) != 0 ? "can't set immutable config"
                    : (flags & PROTECTED) != 0 ? "can't set protected config"
                    : entries.contains(entry) ? "duplicate parameter" : null;
            if (refused != null) {
                // Redis reports an unknown name that follows only when nothing before it failed
                return failed(cString(name), refused);
            }
            entries.add(entry);
        }
        Map<Param, String> values = new LinkedHashMap<>();
        for (int i = 0; i < entries.size(); i++) {
            Entry entry = entries.get(i);
            String current = values.containsKey(entry.param()) ? values.get(entry.param()) : value(entry.param());
            try {
                values.put(entry.param(), entry.param().type().set(pairs.get(2 * i + 1), current));
            } catch (Refused e) {
                return failed(entry.name(), e.getMessage());
            }
        }
        Map<String, String> applied = new HashMap<>();
        for (Map.Entry<Param, String> e : values.entrySet()) {
            Param param = e.getKey();
            if (param.adjustment() != null) {
                e.setValue(param.adjustment().adjust(e.getValue(),
                        name -> applied.containsKey(name) ? applied.get(name) : value(BY_NAME.get(name).param())));
                applied.put(param.name(), e.getValue());
            }
        }
        for (Entry entry : entries) {
            Refusal refusal = entry.param().refusal();
            String refused = refusal == null ? null : refusal.refusal(values.get(entry.param()), value(entry.param()));
            if (refused == null && (entry.param().flags() & OWNED) != 0) {
                refused = owner.refusal(entry.param().name(), values.get(entry.param()));
            }
            if (refused != null) {
                return failed(entry.name(), refused);
            }
        }
        Map<String, String> owned = new LinkedHashMap<>();
        for (Entry entry : entries) {
            if ((entry.param().flags() & (OWNED | FIXED)) == OWNED) {
                owned.remove(entry.param().name());
                owned.put(entry.param().name(), values.get(entry.param()));
            }
        }
        Map.Entry<String, String> unprepared = owned.isEmpty() ? null : owner.prepare(owned);
        if (unprepared != null) {
            return failed(unprepared.getKey(), unprepared.getValue());
        }
        for (int i = 0; i < entries.size(); i++) {
            if (entries.get(i).param().name().equals("notify-keyspace-events")) {
                // the classes as given: Redis shows "A" without "n", but keeps n's bit
                keyspaceEvents = ConfigTypes.keyspaceEventFlags(pairs.get(2 * i + 1));
            }
        }
        commit(entries, values);
        return null;
    }

    private void commit(List<Entry> entries, Map<Param, String> values) {
        Map<String, String> before = kept;
        Map<String, String> next = new HashMap<>(before);
        Map<String, String> owned = new LinkedHashMap<>();
        Map<String, String> logged = new LinkedHashMap<>();
        for (Entry entry : entries) {
            Param param = entry.param();
            String value = values.get(param);
            if ((param.flags() & FIXED) != 0) {
                continue; // it took Tandem's own value: nothing changes
            }
            if ((param.flags() & OWNED) != 0) {
                owned.remove(param.name()); // in the order of the last mention
                owned.put(param.name(), value);
            } else {
                next.put(param.name(), value);
            }
            logged.put(entry.name(), (param.flags() & SENSITIVE) != 0 ? "(hidden)" : value);
        }
        kept = Map.copyOf(next);
        if (!owned.isEmpty()) {
            owner.apply(Collections.unmodifiableMap(owned));
        }
        if (!logged.isEmpty()) {
            LOG.log(Level.INFO, "CONFIG SET applied until the server component restarts: {0}", logged);
        }
        commitListeners.forEach(Runnable::run);
        if (MONITORING.stream().anyMatch(name -> !before.get(name).equals(next.get(name)))) {
            Monitoring now = monitoring();
            monitoringListeners.forEach(listener -> listener.accept(now));
        }
    }

    private static String failed(String name, String reason) {
        return "ERR CONFIG SET failed (possibly related to argument '" + name + "') - " + reason;
    }

    /** @return the keyspace notification classes {@code notify-keyspace-events} holds, as {@code NOTIFY_*} bits */
    public int keyspaceEvents() {
        return keyspaceEvents;
    }

    /** @return the SLOWLOG and LATENCY parameters as they are now */
    public Monitoring monitoring() {
        Map<String, String> values = kept;
        return new Monitoring(Long.parseLong(values.get("slowlog-log-slower-than")),
                Long.parseLong(values.get("slowlog-max-len")),
                Long.parseLong(values.get("latency-monitor-threshold")),
                values.get("latency-tracking").equals("yes"),
                split(values.get("latency-tracking-info-percentiles")).stream().map(Double::valueOf).toList());
    }

    /**
     * Tells {@code listener} of each {@code CONFIG SET} that changes a SLOWLOG or LATENCY parameter, with their new
     * values. It runs on the thread of the command, before the command is answered, one change after the other: it
     * must not block.
     *
     * @return what stops the notifications
     */
    public Runnable onMonitoringChange(Consumer<Monitoring> listener) {
        monitoringListeners.add(listener);
        return () -> monitoringListeners.remove(listener);
    }

    /**
     * Runs {@code listener} after each {@code CONFIG SET} that succeeded, on the thread of the command, before it is
     * answered: it reads the values it follows ({@link #value}) and must not block.
     *
     * @return what stops the notifications
     */
    public Runnable onCommit(Runnable listener) {
        commitListeners.add(listener);
        return () -> commitListeners.remove(listener);
    }
}
