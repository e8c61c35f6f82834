package tandem.server.command;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The parameter table against Debian's redis-server 7.0.15: its defaults ({@code redis-7.0.15-defaults.tsv}) and
 * its replies to {@code CONFIG SET} ({@link #REDIS_CASES}, recorded from that server: the error reply, and for an
 * accepted request the values {@code CONFIG GET} showed after it), then what Tandem does differently on purpose.
 */
@Timeout(10)
class RedisConfigTest {

    /** The server's side, with the values of the Redis that answered the recorded cases. */
    private static final class Server implements RedisConfig.Owner {

        final Map<String, String> values = new HashMap<>(Map.ofEntries(Map.entry("port", "7399"),
                Map.entry("bind", "127.0.0.1"), Map.entry("io-threads", "1"), Map.entry("dir", "/tmp/rcfg"),
                Map.entry("replicaof", ""), Map.entry("maxclients", "10000"),
                Map.entry("proto-max-bulk-len", "536870912"), Map.entry("requirepass", ""),
                Map.entry("min-replicas-to-write", "0"), Map.entry("min-replicas-max-lag", "10"),
                Map.entry("min-replicas-timeout-ms", "10000"), Map.entry("self-fence-on-replica-loss", "yes"),
                Map.entry("freshness-window-ms", "5000"), Map.entry("tls-port", "0"), Map.entry("tls-replication", "no"),
                Map.entry("tls-auth-clients", "yes"), Map.entry("tls-cert-file", ""), Map.entry("tls-key-file", ""),
                Map.entry("tls-key-file-pass", ""), Map.entry("tls-client-cert-file", ""),
                Map.entry("tls-client-key-file", ""), Map.entry("tls-client-key-file-pass", ""),
                Map.entry("tls-ca-cert-file", ""), Map.entry("tls-ca-cert-dir", ""), Map.entry("tls-protocols", ""),
                Map.entry("tls-ciphers", ""), Map.entry("tls-ciphersuites", ""), Map.entry("aclfile", ""),
                Map.entry("acl-pubsub-default", "resetchannels"), Map.entry("acllog-max-len", "128")));
        final List<Map<String, String>> applied = new ArrayList<>();
        String refusal;

        @Override
        public String refusal(String name, String value) {
            return refusal;
        }

        @Override
        public String value(String name) {
            assertThat(values).as("the server owns %s", name).containsKey(name);
            return values.get(name);
        }

        @Override
        public void apply(Map<String, String> changes) {
            applied.add(new LinkedHashMap<>(changes));
            values.putAll(changes);
        }
    }

    private final Server server = new Server();
    private final RedisConfig config = new RedisConfig(server);

    private record Case(List<String> args, String error, Map<String, String> after) {
    }

    private static Case c(List<String> args, String error, String... after) {
        Map<String, String> values = new LinkedHashMap<>();
        for (int i = 0; i < after.length; i += 2) {
            values.put(after[i], after[i + 1]);
        }
        return new Case(args, error, values);
    }

    /** CONFIG SET's arguments, Redis' error reply (null: +OK), then what CONFIG GET showed after a +OK. */
    private static final List<Case> REDIS_CASES = List.of(
                c(List.of("activerehashing", "no"), null, "activerehashing", "no"),
                c(List.of("activerehashing", "YES"), null, "activerehashing", "yes"),
                c(List.of("activerehashing", "maybe"),
                        "ERR CONFIG SET failed (possibly related to argument 'activerehashing') - argument "
                                + "must be 'yes' or 'no'"),
                c(List.of("activerehashing", ""),
                        "ERR CONFIG SET failed (possibly related to argument 'activerehashing') - argument "
                                + "must be 'yes' or 'no'"),
                c(List.of("activerehashing", "1"),
                        "ERR CONFIG SET failed (possibly related to argument 'activerehashing') - argument "
                                + "must be 'yes' or 'no'"),
                c(List.of("activerehashing", "yes\u0000junk"), null, "activerehashing", "yes"),
                c(List.of("use-exit-on-panic", "yes"), null, "use-exit-on-panic", "yes"),
                c(List.of("activedefrag", "yes"),
                        "ERR CONFIG SET failed (possibly related to argument 'activedefrag') - Active "
                                + "defragmentation cannot be enabled: it requires a Redis server compiled with a "
                                + "modified Jemalloc like the one shipped by default with the Redis source "
                                + "distribution"),
                c(List.of("activedefrag", "no"), null, "activedefrag", "no"),
                c(List.of("appendonly", "maybe"),
                        "ERR CONFIG SET failed (possibly related to argument 'appendonly') - argument must "
                                + "be 'yes' or 'no'"),
                c(List.of("appendonly", "no"), null, "appendonly", "no"),
                c(List.of("slave-read-only", "maybe"),
                        "ERR CONFIG SET failed (possibly related to argument 'slave-read-only') - argument "
                                + "must be 'yes' or 'no'"),
                c(List.of("replica-read-only", "yes"), null, "replica-read-only", "yes"),
                c(List.of("tls-replication", "1"),
                        "ERR CONFIG SET failed (possibly related to argument 'tls-replication') - argument "
                                + "must be 'yes' or 'no'"),
                c(List.of("tls-cluster", "no"), null, "tls-cluster", "no"),
                c(List.of("lazyfree-lazy-user-flush", "yes"), null, "lazyfree-lazy-user-flush", "yes"),
                c(List.of("slave-serve-stale-data", "no"), null, "slave-serve-stale-data", "no"),
                c(List.of("replica-announce-ip", "10.0.0.1"), null, "replica-announce-ip", "10.0.0.1"),
                c(List.of("slave-announce-ip", "10.0.0.2"), null, "slave-announce-ip", "10.0.0.2"),
                c(List.of("ignore-warnings", "ARM64-COW-BUG"), null, "ignore-warnings", "ARM64-COW-BUG"),
                c(List.of("bind-source-addr", "127.0.0.1"), null, "bind-source-addr", "127.0.0.1"),
                c(List.of("tls-ciphers", "DEFAULT:!MEDIUM"), null, "tls-ciphers", "DEFAULT:!MEDIUM"),
                c(List.of("masteruser", "alice"), null, "masteruser", "alice"),
                c(List.of("cluster-announce-ip", "ab\u0000cd"), null, "cluster-announce-ip", "ab"),
                c(List.of("cluster-announce-hostname", "a_b"),
                        "ERR CONFIG SET failed (possibly related to argument 'cluster-announce-hostname') "
                                + "- Hostnames may only contain alphanumeric characters, hyphens or dots"),
                c(List.of("cluster-announce-hostname", "a-b.c"), null, "cluster-announce-hostname", "a-b.c"),
                c(List.of("cluster-announce-hostname",
                        "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
                                + "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
                                + "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
                                + "xxxxxxxxxx"),
                        "ERR CONFIG SET failed (possibly related to argument 'cluster-announce-hostname') "
                                + "- Hostnames must be less than 256 characters"),
                c(List.of("cluster-announce-hostname",
                        "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
                                + "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
                                + "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
                                + "xxxxxxxxx"), null, "cluster-announce-hostname",
                        "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
                                + "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
                                + "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
                                + "xxxxxxxxx"),
                c(List.of("cluster-announce-hostname", ""), null, "cluster-announce-hostname", ""),
                c(List.of("proc-title-template", "{title}"),
                        "ERR CONFIG SET failed (possibly related to argument 'proc-title-template') - "
                                + "template format is invalid or contains unknown variables"),
                c(List.of("proc-title-template", "{foo}"),
                        "ERR CONFIG SET failed (possibly related to argument 'proc-title-template') - "
                                + "template format is invalid or contains unknown variables"),
                c(List.of("proc-title-template", "{title} {listen-addr}"), null, "proc-title-template",
                        "{title} {listen-addr}"),
                c(List.of("proc-title-template", "{{"), null, "proc-title-template", "{{"),
                c(List.of("proc-title-template", "{"),
                        "ERR CONFIG SET failed (possibly related to argument 'proc-title-template') - "
                                + "template format is invalid or contains unknown variables"),
                c(List.of("proc-title-template", "abc}"), null, "proc-title-template", "abc}"),
                c(List.of("proc-title-template", "{port"),
                        "ERR CONFIG SET failed (possibly related to argument 'proc-title-template') - "
                                + "template format is invalid or contains unknown variables"),
                c(List.of("proc-title-template", "   "),
                        "ERR CONFIG SET failed (possibly related to argument 'proc-title-template') - "
                                + "template format is invalid or contains unknown variables"),
                c(List.of("proc-title-template", "{title}   {server-mode}"),
                        "ERR CONFIG SET failed (possibly related to argument 'proc-title-template') - "
                                + "template format is invalid or contains unknown variables"),
                c(List.of("proc-title-template", "{config-file}"), null, "proc-title-template", "{config-file}"),
                c(List.of("proc-title-template", "{unixsocket}"),
                        "ERR CONFIG SET failed (possibly related to argument 'proc-title-template') - "
                                + "template format is invalid or contains unknown variables"),
                c(List.of("proc-title-template", "{tls-port}"), null, "proc-title-template", "{tls-port}"),
                c(List.of("proc-title-template", ""),
                        "ERR CONFIG SET failed (possibly related to argument 'proc-title-template') - "
                                + "template format is invalid or contains unknown variables"),
                c(List.of("proc-title-template", "redis {title}"), null, "proc-title-template", "redis {title}"),
                c(List.of("proc-title-template", "{ti{tle}"),
                        "ERR CONFIG SET failed (possibly related to argument 'proc-title-template') - "
                                + "template format is invalid or contains unknown variables"),
                c(List.of("masterauth", "pw\u0000pw"), null, "masterauth", "pw\u0000pw"),
                c(List.of("loglevel", "FOO"),
                        "ERR CONFIG SET failed (possibly related to argument 'loglevel') - argument(s) "
                                + "must be one of the following: debug, verbose, notice, warning"),
                c(List.of("loglevel", "WARNING"), null, "loglevel", "warning"),
                c(List.of("loglevel", "warning "),
                        "ERR CONFIG SET failed (possibly related to argument 'loglevel') - argument(s) "
                                + "must be one of the following: debug, verbose, notice, warning"),
                c(List.of("loglevel", ""),
                        "ERR CONFIG SET failed (possibly related to argument 'loglevel') - argument(s) "
                                + "must be one of the following: debug, verbose, notice, warning"),
                c(List.of("maxmemory-policy", "foo"),
                        "ERR CONFIG SET failed (possibly related to argument 'maxmemory-policy') - "
                                + "argument(s) must be one of the following: volatile-lru, volatile-lfu, "
                                + "volatile-random, volatile-ttl, allkeys-lru, allkeys-lfu, allkeys-random, "
                                + "noeviction"),
                c(List.of("maxmemory-policy", "allkeys-LRU"), null, "maxmemory-policy", "allkeys-lru"),
                c(List.of("appendfsync", "Always"), null, "appendfsync", "always"),
                c(List.of("oom-score-adj", "relative"), null, "oom-score-adj", "yes"),
                c(List.of("oom-score-adj", "absolute"), null, "oom-score-adj", "absolute"),
                c(List.of("oom-score-adj", "yes no"),
                        "ERR CONFIG SET failed (possibly related to argument 'oom-score-adj') - "
                                + "argument(s) must be one of the following: no, yes, relative, absolute"),
                c(List.of("acl-pubsub-default", "allchannels"), null, "acl-pubsub-default", "allchannels"),
                c(List.of("sanitize-dump-payload", "clients"), null, "sanitize-dump-payload", "clients"),
                c(List.of("cluster-preferred-endpoint-type", "hostname"), null, "cluster-preferred-endpoint-type",
                        "hostname"),
                c(List.of("propagation-error-behavior", "panic-on-replicas"), null, "propagation-error-behavior",
                        "panic-on-replicas"),
                c(List.of("repl-diskless-load", "swapdb"), null, "repl-diskless-load", "swapdb"),
                c(List.of("repl-diskless-load", "on-empty"),
                        "ERR CONFIG SET failed (possibly related to argument 'repl-diskless-load') - "
                                + "argument(s) must be one of the following: disabled, on-empty-db, swapdb"),
                c(List.of("tls-auth-clients", "optional"), null, "tls-auth-clients", "optional"),
                c(List.of("shutdown-on-sigint", "save nosave"),
                        "ERR CONFIG SET failed (possibly related to argument 'shutdown-on-sigint') - "
                                + "shutdown options SAVE and NOSAVE can't be used simultaneously"),
                c(List.of("shutdown-on-sigint", "now force"), null, "shutdown-on-sigint", "now force"),
                c(List.of("shutdown-on-sigint", ""),
                        "ERR CONFIG SET failed (possibly related to argument 'shutdown-on-sigint') - "
                                + "argument(s) must be one of the following: default, save, nosave, now, force"),
                c(List.of("shutdown-on-sigint", "default now"), null, "shutdown-on-sigint", "now"),
                c(List.of("shutdown-on-sigint", "now  force"),
                        "ERR CONFIG SET failed (possibly related to argument 'shutdown-on-sigint') - "
                                + "argument(s) must be one of the following: default, save, nosave, now, force"),
                c(List.of("shutdown-on-sigterm", "force now"), null, "shutdown-on-sigterm", "now force"),
                c(List.of("shutdown-on-sigterm", "SAVE"), null, "shutdown-on-sigterm", "save"),
                c(List.of("shutdown-on-sigterm", "nosave now force"), null, "shutdown-on-sigterm", "nosave now force"),
                c(List.of("shutdown-on-sigterm", "default"), null, "shutdown-on-sigterm", "default"),
                c(List.of("shutdown-on-sigterm", "save save"), null, "shutdown-on-sigterm", "save"),
                c(List.of("shutdown-on-sigterm", "now "),
                        "ERR CONFIG SET failed (possibly related to argument 'shutdown-on-sigterm') - "
                                + "argument(s) must be one of the following: default, save, nosave, now, force"),
                c(List.of("timeout", "1.5"),
                        "ERR CONFIG SET failed (possibly related to argument 'timeout') - argument "
                                + "couldn't be parsed into an integer"),
                c(List.of("timeout", "01"),
                        "ERR CONFIG SET failed (possibly related to argument 'timeout') - argument "
                                + "couldn't be parsed into an integer"),
                c(List.of("timeout", "-1"),
                        "ERR CONFIG SET failed (possibly related to argument 'timeout') - argument must be "
                                + "between 0 and 2147483647 inclusive"),
                c(List.of("timeout", "2147483648"),
                        "ERR CONFIG SET failed (possibly related to argument 'timeout') - argument must be "
                                + "between 0 and 2147483647 inclusive"),
                c(List.of("timeout", "100"), null, "timeout", "100"),
                c(List.of("timeout", " 1"),
                        "ERR CONFIG SET failed (possibly related to argument 'timeout') - argument "
                                + "couldn't be parsed into an integer"),
                c(List.of("timeout", "+1"),
                        "ERR CONFIG SET failed (possibly related to argument 'timeout') - argument "
                                + "couldn't be parsed into an integer"),
                c(List.of("timeout", ""),
                        "ERR CONFIG SET failed (possibly related to argument 'timeout') - argument "
                                + "couldn't be parsed into an integer"),
                c(List.of("timeout", "2147483647"), null, "timeout", "2147483647"),
                c(List.of("list-max-ziplist-size", "-2147483649"),
                        "ERR CONFIG SET failed (possibly related to argument 'list-max-ziplist-size') - "
                                + "argument must be between -2147483648 and 2147483647 inclusive"),
                c(List.of("list-max-ziplist-size", "-5"), null, "list-max-ziplist-size", "-5"),
                c(List.of("list-max-listpack-size", "-2147483648"), null, "list-max-listpack-size", "-2147483648"),
                c(List.of("hz", "1000"), null, "hz", "500"),
                c(List.of("hz", "0"), null, "hz", "1"),
                c(List.of("hz", "-1"),
                        "ERR CONFIG SET failed (possibly related to argument 'hz') - argument must be "
                                + "between 0 and 2147483647 inclusive"),
                c(List.of("hz", "500"), null, "hz", "500"),
                c(List.of("hz", "42"), null, "hz", "42"),
                c(List.of("active-defrag-cycle-min", "100"),
                        "ERR CONFIG SET failed (possibly related to argument 'active-defrag-cycle-min') - "
                                + "argument must be between 1 and 99 inclusive"),
                c(List.of("active-defrag-cycle-min", "0"),
                        "ERR CONFIG SET failed (possibly related to argument 'active-defrag-cycle-min') - "
                                + "argument must be between 1 and 99 inclusive"),
                c(List.of("maxmemory-eviction-tenacity", "101"),
                        "ERR CONFIG SET failed (possibly related to argument "
                                + "'maxmemory-eviction-tenacity') - argument must be between 0 and 100 inclusive"),
                c(List.of("maxclients", "abc"),
                        "ERR CONFIG SET failed (possibly related to argument 'maxclients') - argument "
                                + "couldn't be parsed into an integer"),
                c(List.of("maxclients", "-1"),
                        "ERR CONFIG SET failed (possibly related to argument 'maxclients') - argument must "
                                + "be between 1 and 4294967295 inclusive"),
                c(List.of("maxclients", "0"),
                        "ERR CONFIG SET failed (possibly related to argument 'maxclients') - argument must "
                                + "be between 1 and 4294967295 inclusive"),
                c(List.of("maxclients", "4294967296"),
                        "ERR CONFIG SET failed (possibly related to argument 'maxclients') - argument must "
                                + "be between 1 and 4294967295 inclusive"),
                c(List.of("maxclients", "5000"), null, "maxclients", "5000"),
                c(List.of("maxclients", "18446744073709551615"),
                        "ERR CONFIG SET failed (possibly related to argument 'maxclients') - argument "
                                + "couldn't be parsed into an integer"),
                c(List.of("slowlog-max-len", "-1"),
                        "ERR CONFIG SET failed (possibly related to argument 'slowlog-max-len') - argument "
                                + "must be between 0 and 9223372036854775807 inclusive"),
                c(List.of("slowlog-max-len", "9223372036854775807"), null, "slowlog-max-len", "9223372036854775807"),
                c(List.of("slowlog-max-len", "9223372036854775808"),
                        "ERR CONFIG SET failed (possibly related to argument 'slowlog-max-len') - argument "
                                + "couldn't be parsed into an integer"),
                c(List.of("slowlog-log-slower-than", "-2"),
                        "ERR CONFIG SET failed (possibly related to argument 'slowlog-log-slower-than') - "
                                + "argument must be between -1 and 9223372036854775807 inclusive"),
                c(List.of("slowlog-log-slower-than", "-1"), null, "slowlog-log-slower-than", "-1"),
                c(List.of("latency-monitor-threshold", "-1"),
                        "ERR CONFIG SET failed (possibly related to argument 'latency-monitor-threshold') "
                                + "- argument must be between 0 and 9223372036854775807 inclusive"),
                c(List.of("latency-monitor-threshold", "100"), null, "latency-monitor-threshold", "100"),
                c(List.of("lua-time-limit", "100"), null, "lua-time-limit", "100"),
                c(List.of("busy-reply-threshold", "x"),
                        "ERR CONFIG SET failed (possibly related to argument 'busy-reply-threshold') - "
                                + "argument couldn't be parsed into an integer"),
                c(List.of("repl-backlog-ttl", "-1"),
                        "ERR CONFIG SET failed (possibly related to argument 'repl-backlog-ttl') - "
                                + "argument must be between 0 and 9223372036854775807 inclusive"),
                c(List.of("rdb-key-save-delay", "-100"), null, "rdb-key-save-delay", "-100"),
                c(List.of("watchdog-period", "-1"),
                        "ERR CONFIG SET failed (possibly related to argument 'watchdog-period') - argument "
                                + "must be between 0 and 2147483647 inclusive"),
                c(List.of("loading-process-events-interval-bytes", "100"),
                        "ERR CONFIG SET failed (possibly related to argument "
                                + "'loading-process-events-interval-bytes') - argument must be between 1024 and "
                                + "2147483647 inclusive"),
                c(List.of("tracking-table-max-keys", "-1"),
                        "ERR CONFIG SET failed (possibly related to argument 'tracking-table-max-keys') - "
                                + "argument must be between 0 and 9223372036854775807 inclusive"),
                c(List.of("min-replicas-to-write", "x"),
                        "ERR CONFIG SET failed (possibly related to argument 'min-replicas-to-write') - "
                                + "argument couldn't be parsed into an integer"),
                c(List.of("min-slaves-to-write", "1"), null, "min-slaves-to-write", "1"),
                c(List.of("min-replicas-max-lag", "-1"),
                        "ERR CONFIG SET failed (possibly related to argument 'min-replicas-max-lag') - "
                                + "argument must be between 0 and 2147483647 inclusive"),
                c(List.of("min-slaves-max-lag", "100"), null, "min-slaves-max-lag", "100"),
                c(List.of("port", "99999"),
                        "ERR CONFIG SET failed (possibly related to argument 'port') - argument must be "
                                + "between 0 and 65535 inclusive"),
                c(List.of("port", "x"),
                        "ERR CONFIG SET failed (possibly related to argument 'port') - argument couldn't "
                                + "be parsed into an integer"),
                c(List.of("tls-port", "-1"),
                        "ERR CONFIG SET failed (possibly related to argument 'tls-port') - argument must "
                                + "be between 0 and 65535 inclusive"),
                c(List.of("tls-port", "0"), null, "tls-port", "0"),
                c(List.of("maxmemory", ""), null, "maxmemory", "0"),
                c(List.of("maxmemory", "k"), null, "maxmemory", "0"),
                c(List.of("maxmemory", "1KB"), null, "maxmemory", "1024"),
                c(List.of("maxmemory", "99999999999999999999"), null, "maxmemory", "18446744073709551615"),
                c(List.of("maxmemory", "1.5gb"),
                        "ERR CONFIG SET failed (possibly related to argument 'maxmemory') - argument must "
                                + "be a memory value"),
                c(List.of("maxmemory", " 1"),
                        "ERR CONFIG SET failed (possibly related to argument 'maxmemory') - argument must "
                                + "be a memory value"),
                c(List.of("maxmemory", "+1"),
                        "ERR CONFIG SET failed (possibly related to argument 'maxmemory') - argument must "
                                + "be a memory value"),
                c(List.of("maxmemory", "1 "),
                        "ERR CONFIG SET failed (possibly related to argument 'maxmemory') - argument must "
                                + "be a memory value"),
                c(List.of("maxmemory", "00001mB"), null, "maxmemory", "1048576"),
                c(List.of("maxmemory", "-1"),
                        "ERR CONFIG SET failed (possibly related to argument 'maxmemory') - argument must "
                                + "be a memory value"),
                c(List.of("maxmemory", "1g"), null, "maxmemory", "1000000000"),
                c(List.of("maxmemory", "18446744073709551616kb"), null, "maxmemory", "18446744073709550592"),
                c(List.of("maxmemory", "2gb"), null, "maxmemory", "2147483648"),
                c(List.of("maxmemory", "1b"), null, "maxmemory", "1"),
                c(List.of("maxmemory", "1B"), null, "maxmemory", "1"),
                c(List.of("maxmemory", "1kib"),
                        "ERR CONFIG SET failed (possibly related to argument 'maxmemory') - argument must "
                                + "be a memory value"),
                c(List.of("maxmemory", "5\u0000x"), null, "maxmemory", "5"),
                c(List.of("maxmemory",
                        "1111111111111111111111111111111111111111111111111111111111111111111111111111111111"
                                + "1111111111111111111111111111111111111111111111"),
                        "ERR CONFIG SET failed (possibly related to argument 'maxmemory') - argument must "
                                + "be a memory value"),
                c(List.of("maxmemory",
                        "1111111111111111111111111111111111111111111111111111111111111111111111111111111111"
                                + "111111111111111111111111111111111111111111111k"), null, "maxmemory",
                        "18446744073709550616"),
                c(List.of("proto-max-bulk-len", "1000"),
                        "ERR CONFIG SET failed (possibly related to argument 'proto-max-bulk-len') - "
                                + "argument must be between 1048576 and 9223372036854775807 inclusive"),
                c(List.of("proto-max-bulk-len", "1mb"), null, "proto-max-bulk-len", "1048576"),
                c(List.of("proto-max-bulk-len", "512mb"), null, "proto-max-bulk-len", "536870912"),
                c(List.of("proto-max-bulk-len", "x"),
                        "ERR CONFIG SET failed (possibly related to argument 'proto-max-bulk-len') - "
                                + "argument must be a memory value"),
                c(List.of("hash-max-ziplist-value", "x"),
                        "ERR CONFIG SET failed (possibly related to argument 'hash-max-ziplist-value') - "
                                + "argument must be a memory value"),
                c(List.of("hash-max-ziplist-value", "-1"),
                        "ERR CONFIG SET failed (possibly related to argument 'hash-max-ziplist-value') - "
                                + "argument must be a memory value"),
                c(List.of("hash-max-ziplist-value", "1kb"), null, "hash-max-ziplist-value", "1024"),
                c(List.of("hash-max-ziplist-entries", "-1"),
                        "ERR CONFIG SET failed (possibly related to argument 'hash-max-ziplist-entries') - "
                                + "argument must be between 0 and 9223372036854775807 inclusive"),
                c(List.of("hash-max-ziplist-entries", "9223372036854775808"),
                        "ERR CONFIG SET failed (possibly related to argument 'hash-max-ziplist-entries') - "
                                + "argument couldn't be parsed into an integer"),
                c(List.of("hash-max-ziplist-entries", "100"), null, "hash-max-ziplist-entries", "100"),
                c(List.of("zset-max-listpack-value", "9223372036854775808"),
                        "ERR CONFIG SET failed (possibly related to argument 'zset-max-listpack-value') - "
                                + "argument must be between 0 and 9223372036854775807 inclusive"),
                c(List.of("client-query-buffer-limit", "1000"),
                        "ERR CONFIG SET failed (possibly related to argument 'client-query-buffer-limit') "
                                + "- argument must be between 1048576 and 9223372036854775807 inclusive"),
                c(List.of("client-query-buffer-limit", "2mb"), null, "client-query-buffer-limit", "2097152"),
                c(List.of("maxmemory-clients", "5%"), null, "maxmemory-clients", "5%"),
                c(List.of("maxmemory-clients", "101%"),
                        "ERR CONFIG SET failed (possibly related to argument 'maxmemory-clients') - "
                                + "percentage argument must be less or equal to 100"),
                c(List.of("maxmemory-clients", "100%"), null, "maxmemory-clients", "100%"),
                c(List.of("maxmemory-clients", "9223372036854775808"),
                        "ERR CONFIG SET failed (possibly related to argument 'maxmemory-clients') - "
                                + "percentage argument must be less or equal to 100"),
                c(List.of("maxmemory-clients", "-5"),
                        "ERR CONFIG SET failed (possibly related to argument 'maxmemory-clients') - "
                                + "argument must be a memory or percent value"),
                c(List.of("maxmemory-clients", "x"),
                        "ERR CONFIG SET failed (possibly related to argument 'maxmemory-clients') - "
                                + "argument must be a memory or percent value"),
                c(List.of("maxmemory-clients", "10mb"), null, "maxmemory-clients", "10485760"),
                c(List.of("maxmemory-clients", "5%%"),
                        "ERR CONFIG SET failed (possibly related to argument 'maxmemory-clients') - "
                                + "argument must be a memory or percent value"),
                c(List.of("maxmemory-clients", "%"),
                        "ERR CONFIG SET failed (possibly related to argument 'maxmemory-clients') - "
                                + "argument must be a memory or percent value"),
                c(List.of("maxmemory-clients", "-5%"),
                        "ERR CONFIG SET failed (possibly related to argument 'maxmemory-clients') - "
                                + "argument must be a memory or percent value"),
                c(List.of("maxmemory-clients", "0%"), null, "maxmemory-clients", "0"),
                c(List.of("maxmemory-clients", "05%"),
                        "ERR CONFIG SET failed (possibly related to argument 'maxmemory-clients') - "
                                + "argument must be a memory or percent value"),
                c(List.of("repl-backlog-size", "0"),
                        "ERR CONFIG SET failed (possibly related to argument 'repl-backlog-size') - "
                                + "argument must be between 1 and 9223372036854775807 inclusive"),
                c(List.of("repl-backlog-size", "1"), null, "repl-backlog-size", "16384"),
                c(List.of("repl-backlog-size", "16383"), null, "repl-backlog-size", "16384"),
                c(List.of("repl-backlog-size", "20000"), null, "repl-backlog-size", "20000"),
                c(List.of("watchdog-period", "1"), null, "watchdog-period", "200"),
                c(List.of("hz", "100", "watchdog-period", "1"), null, "hz", "100", "watchdog-period", "20"),
                c(List.of("watchdog-period", "3", "hz", "7"), null, "watchdog-period", "200", "hz", "7"),
                c(List.of("hz", "0", "watchdog-period", "5"), null, "hz", "1", "watchdog-period", "2000"),
                c(List.of("watchdog-period", "250"), null, "watchdog-period", "250"),
                c(List.of("auto-aof-rewrite-min-size", "-1"),
                        "ERR CONFIG SET failed (possibly related to argument 'auto-aof-rewrite-min-size') "
                                + "- argument must be a memory value"),
                c(List.of("active-defrag-ignore-bytes", "0"),
                        "ERR CONFIG SET failed (possibly related to argument 'active-defrag-ignore-bytes') "
                                + "- argument must be between 1 and 9223372036854775807 inclusive"),
                c(List.of("cluster-link-sendbuf-limit", "1gb"), null, "cluster-link-sendbuf-limit", "1073741824"),
                c(List.of("save", ""), null, "save", ""),
                c(List.of("save", "900"),
                        "ERR CONFIG SET failed (possibly related to argument 'save') - Invalid save parameters"),
                c(List.of("save", "0 1"),
                        "ERR CONFIG SET failed (possibly related to argument 'save') - Invalid save parameters"),
                c(List.of("save", "900 -1"),
                        "ERR CONFIG SET failed (possibly related to argument 'save') - Invalid save parameters"),
                c(List.of("save", "x 1"),
                        "ERR CONFIG SET failed (possibly related to argument 'save') - Invalid save parameters"),
                c(List.of("save", "900 1 300"),
                        "ERR CONFIG SET failed (possibly related to argument 'save') - Invalid save parameters"),
                c(List.of("client-output-buffer-limit", "normal 1 2 3"), null, "client-output-buffer-limit",
                        "normal 1 2 3 slave 268435456 67108864 60 pubsub 33554432 8388608 60"),
                c(List.of("client-output-buffer-limit", "replica 1mb 2kb 3 pubsub 1g 2GB 4294967297"), null,
                        "client-output-buffer-limit",
                        "normal 0 0 0 slave 1048576 2048 3 pubsub 1000000000 2147483648 1"),
                c(List.of("client-output-buffer-limit", "master 1 2 3"),
                        "ERR CONFIG SET failed (possibly related to argument 'client-output-buffer-limit') "
                                + "- Invalid client class specified in buffer limit configuration."),
                c(List.of("client-output-buffer-limit", "foo 1 2 3"),
                        "ERR CONFIG SET failed (possibly related to argument 'client-output-buffer-limit') "
                                + "- Invalid client class specified in buffer limit configuration."),
                c(List.of("client-output-buffer-limit", "normal 1 2"),
                        "ERR CONFIG SET failed (possibly related to argument 'client-output-buffer-limit') "
                                + "- Wrong number of arguments in buffer limit configuration."),
                c(List.of("client-output-buffer-limit", "normal x 2 3"),
                        "ERR CONFIG SET failed (possibly related to argument 'client-output-buffer-limit') "
                                + "- Error in hard, soft or soft_seconds setting in buffer limit configuration."),
                c(List.of("client-output-buffer-limit", "normal 1 2 -3"),
                        "ERR CONFIG SET failed (possibly related to argument 'client-output-buffer-limit') "
                                + "- Error in hard, soft or soft_seconds setting in buffer limit configuration."),
                c(List.of("client-output-buffer-limit", "normal 1 2 "), null, "client-output-buffer-limit",
                        "normal 1 2 0 slave 268435456 67108864 60 pubsub 33554432 8388608 60"),
                c(List.of("client-output-buffer-limit", ""), null, "client-output-buffer-limit",
                        "normal 0 0 0 slave 268435456 67108864 60 pubsub 33554432 8388608 60"),
                c(List.of("client-output-buffer-limit", "normal 1 2 2147483648"),
                        "ERR CONFIG SET failed (possibly related to argument 'client-output-buffer-limit') "
                                + "- Error in hard, soft or soft_seconds setting in buffer limit configuration."),
                c(List.of("client-output-buffer-limit", "normal 1 2 -4294967296"), null, "client-output-buffer-limit",
                        "normal 1 2 0 slave 268435456 67108864 60 pubsub 33554432 8388608 60"),
                c(List.of("client-output-buffer-limit", "NORMAL 1 2 +3"), null, "client-output-buffer-limit",
                        "normal 1 2 3 slave 268435456 67108864 60 pubsub 33554432 8388608 60"),
                c(List.of("client-output-buffer-limit", "slave 1 2 3 slave 4 5 6"), null, "client-output-buffer-limit",
                        "normal 0 0 0 slave 4 5 6 pubsub 33554432 8388608 60"),
                c(List.of("client-output-buffer-limit", "pubsub 1 2 3 foo 1 2 3"),
                        "ERR CONFIG SET failed (possibly related to argument 'client-output-buffer-limit') "
                                + "- Invalid client class specified in buffer limit configuration."),
                c(List.of("client-output-buffer-limit", "normal 1 2 3x"),
                        "ERR CONFIG SET failed (possibly related to argument 'client-output-buffer-limit') "
                                + "- Error in hard, soft or soft_seconds setting in buffer limit configuration."),
                c(List.of("client-output-buffer-limit", "normal 1 2 \t3"), null, "client-output-buffer-limit",
                        "normal 1 2 3 slave 268435456 67108864 60 pubsub 33554432 8388608 60"),
                c(List.of("oom-score-adj-values", "1 2"),
                        "ERR CONFIG SET failed (possibly related to argument 'oom-score-adj-values') - "
                                + "wrong number of arguments"),
                c(List.of("oom-score-adj-values", "1 2 3000"),
                        "ERR CONFIG SET failed (possibly related to argument 'oom-score-adj-values') - "
                                + "Invalid oom-score-adj-values, elements must be between -2000 and 2000."),
                c(List.of("oom-score-adj-values", "1 2 x"),
                        "ERR CONFIG SET failed (possibly related to argument 'oom-score-adj-values') - "
                                + "Invalid oom-score-adj-values, elements must be between -2000 and 2000."),
                c(List.of("oom-score-adj-values", "10 20 30"), null, "oom-score-adj-values", "10 20 30"),
                c(List.of("oom-score-adj-values", ""),
                        "ERR CONFIG SET failed (possibly related to argument 'oom-score-adj-values') - "
                                + "wrong number of arguments"),
                c(List.of("oom-score-adj-values", "-2000 +5 2000"), null, "oom-score-adj-values", "-2000 5 2000"),
                c(List.of("oom-score-adj-values", "1 2 3 4"),
                        "ERR CONFIG SET failed (possibly related to argument 'oom-score-adj-values') - "
                                + "wrong number of arguments"),
                c(List.of("oom-score-adj-values", "1  2"), null, "oom-score-adj-values", "1 0 2"),
                c(List.of("notify-keyspace-events", "KEA"), null, "notify-keyspace-events", "AKE"),
                c(List.of("notify-keyspace-events", "EKxg$n"), null, "notify-keyspace-events", "g$xnKE"),
                c(List.of("notify-keyspace-events", "An"), null, "notify-keyspace-events", "A"),
                c(List.of("notify-keyspace-events", "Q"),
                        "ERR CONFIG SET failed (possibly related to argument 'notify-keyspace-events') - "
                                + "Invalid event class character. Use 'Ag$lshzxeKEtmdn'."),
                c(List.of("notify-keyspace-events", ""), null, "notify-keyspace-events", ""),
                c(List.of("notify-keyspace-events", "Km"), null, "notify-keyspace-events", "Km"),
                c(List.of("notify-keyspace-events", "AKEm"), null, "notify-keyspace-events", "AKEm"),
                c(List.of("notify-keyspace-events", "g$lshzxetd"), null, "notify-keyspace-events", "A"),
                c(List.of("notify-keyspace-events", "g$lshzxe"), null, "notify-keyspace-events", "g$lshzxe"),
                c(List.of("notify-keyspace-events", "K\u0000Q"), null, "notify-keyspace-events", "K"),
                c(List.of("notify-keyspace-events", "tdnE"), null, "notify-keyspace-events", "tdnE"),
                c(List.of("bind",
                        "127.0.0.1 127.0.0.1 127.0.0.1 127.0.0.1 127.0.0.1 127.0.0.1 127.0.0.1 127.0.0.1 "
                                + "127.0.0.1 127.0.0.1 127.0.0.1 127.0.0.1 127.0.0.1 127.0.0.1 127.0.0.1 127.0.0.1 "
                                + "127.0.0.1"),
                        "ERR CONFIG SET failed (possibly related to argument 'bind') - Too many bind "
                                + "addresses specified."),
                c(List.of("bind", "127.0.0.1"), null, "bind", "127.0.0.1"),
                c(List.of("latency-tracking-info-percentiles", "50 99.99 100"), null,
                        "latency-tracking-info-percentiles", "50 99.99 100"),
                c(List.of("latency-tracking-info-percentiles", "50 101"),
                        "ERR CONFIG SET failed (possibly related to argument "
                                + "'latency-tracking-info-percentiles') - latency-tracking-info-percentiles "
                                + "parameters should sit between [0.0,100.0]"),
                c(List.of("latency-tracking-info-percentiles", "50 abc"),
                        "ERR CONFIG SET failed (possibly related to argument "
                                + "'latency-tracking-info-percentiles') - Invalid latency-tracking-info-percentiles "
                                + "parameters"),
                c(List.of("latency-tracking-info-percentiles", ""), null, "latency-tracking-info-percentiles", ""),
                c(List.of("latency-tracking-info-percentiles", "-0 0.0000015 inf"),
                        "ERR CONFIG SET failed (possibly related to argument "
                                + "'latency-tracking-info-percentiles') - latency-tracking-info-percentiles "
                                + "parameters should sit between [0.0,100.0]"),
                c(List.of("latency-tracking-info-percentiles", "-0 0.0000015 1e-320"), null,
                        "latency-tracking-info-percentiles", "-0 0.000002 0"),
                c(List.of("latency-tracking-info-percentiles", "1e-400"),
                        "ERR CONFIG SET failed (possibly related to argument "
                                + "'latency-tracking-info-percentiles') - Invalid latency-tracking-info-percentiles "
                                + "parameters"),
                c(List.of("latency-tracking-info-percentiles", "nan"),
                        "ERR CONFIG SET failed (possibly related to argument "
                                + "'latency-tracking-info-percentiles') - Invalid latency-tracking-info-percentiles "
                                + "parameters"),
                c(List.of("latency-tracking-info-percentiles", "0x1p5 .5 5. 1e1"), null,
                        "latency-tracking-info-percentiles", "32 0.5 5 10"),
                c(List.of("latency-tracking-info-percentiles", " 5"),
                        "ERR CONFIG SET failed (possibly related to argument "
                                + "'latency-tracking-info-percentiles') - Invalid latency-tracking-info-percentiles "
                                + "parameters"),
                c(List.of("latency-tracking-info-percentiles", "5 "),
                        "ERR CONFIG SET failed (possibly related to argument "
                                + "'latency-tracking-info-percentiles') - Invalid latency-tracking-info-percentiles "
                                + "parameters"),
                c(List.of("latency-tracking-info-percentiles", "-inf"),
                        "ERR CONFIG SET failed (possibly related to argument "
                                + "'latency-tracking-info-percentiles') - latency-tracking-info-percentiles "
                                + "parameters should sit between [0.0,100.0]"),
                c(List.of("latency-tracking-info-percentiles", "0x"),
                        "ERR CONFIG SET failed (possibly related to argument "
                                + "'latency-tracking-info-percentiles') - Invalid latency-tracking-info-percentiles "
                                + "parameters"),
                c(List.of("latency-tracking-info-percentiles", "33.3333335 0.0000005 99.9999995"), null,
                        "latency-tracking-info-percentiles", "33.333334 0 100"),
                c(List.of("latency-tracking-info-percentiles", "1e400"),
                        "ERR CONFIG SET failed (possibly related to argument "
                                + "'latency-tracking-info-percentiles') - Invalid latency-tracking-info-percentiles "
                                + "parameters"),
                c(List.of("latency-tracking-info-percentiles", "0e-999"), null, "latency-tracking-info-percentiles",
                        "0"),
                c(List.of("Foo", "1", "maxclients", "x"),
                        "ERR Unknown option or number of arguments for CONFIG SET - 'Foo'"),
                c(List.of("maxclients", "x", "Foo", "1"),
                        "ERR Unknown option or number of arguments for CONFIG SET - 'Foo'"),
                c(List.of("daemonize", "yes", "Foo", "1"),
                        "ERR CONFIG SET failed (possibly related to argument 'daemonize') - can't set "
                                + "immutable config"),
                c(List.of("Foo", "1", "daemonize", "yes"),
                        "ERR Unknown option or number of arguments for CONFIG SET - 'Foo'"),
                c(List.of("maxclients", "10", "MaxClients", "20"),
                        "ERR CONFIG SET failed (possibly related to argument 'MaxClients') - duplicate parameter"),
                c(List.of("maxclients", "10", "daemonize", "no"),
                        "ERR CONFIG SET failed (possibly related to argument 'daemonize') - can't set "
                                + "immutable config"),
                c(List.of("hash-max-ziplist-entries", "100", "hash-max-listpack-entries", "200"), null,
                        "hash-max-ziplist-entries", "200", "hash-max-listpack-entries", "200"),
                c(List.of("dir", "/tmp"),
                        "ERR CONFIG SET failed (possibly related to argument 'dir') - can't set protected config"),
                c(List.of("dbfilename", "x.rdb"),
                        "ERR CONFIG SET failed (possibly related to argument 'dbfilename') - can't set "
                                + "protected config"),
                c(List.of("replicaof", "no one"),
                        "ERR CONFIG SET failed (possibly related to argument 'replicaof') - can't set "
                                + "immutable config"),
                c(List.of("slaveof", "no one"),
                        "ERR CONFIG SET failed (possibly related to argument 'slaveof') - can't set immutable config"),
                c(List.of("databases", "1"),
                        "ERR CONFIG SET failed (possibly related to argument 'databases') - can't set "
                                + "immutable config"),
                c(List.of("io-threads", "1"),
                        "ERR CONFIG SET failed (possibly related to argument 'io-threads') - can't set "
                                + "immutable config"),
                c(List.of("unixsocketperm", "777"),
                        "ERR CONFIG SET failed (possibly related to argument 'unixsocketperm') - can't set "
                                + "immutable config"),
                c(List.of("maxmemory", "1mb", "hz", "x"),
                        "ERR CONFIG SET failed (possibly related to argument 'hz') - argument couldn't be "
                                + "parsed into an integer"),
                c(List.of("maxmemory", "1mb", "maxmemory-policy", "foo"),
                        "ERR CONFIG SET failed (possibly related to argument 'maxmemory-policy') - "
                                + "argument(s) must be one of the following: volatile-lru, volatile-lfu, "
                                + "volatile-random, volatile-ttl, allkeys-lru, allkeys-lfu, allkeys-random, "
                                + "noeviction"),
                c(List.of("SLOWLOG-MAX-LEN", "5"), null, "slowlog-max-len", "5"),
                c(List.of("hz", "x", "hz", "5"),
                        "ERR CONFIG SET failed (possibly related to argument 'hz') - duplicate parameter"),
                c(List.of("timeout", "5", "Timeout", "x"),
                        "ERR CONFIG SET failed (possibly related to argument 'Timeout') - duplicate parameter"),
                c(List.of("foo\u0000bar", "1"), "ERR Unknown option or number of arguments for CONFIG SET - 'foo'"),
                c(List.of("Daemonize", "no"),
                        "ERR CONFIG SET failed (possibly related to argument 'Daemonize') - can't set "
                                + "immutable config"),
                c(List.of("maxmemory", "1mb", "maxmemory-policy", "allkeys-lru", "hz", "20"), null, "maxmemory",
                        "1048576", "maxmemory-policy", "allkeys-lru", "hz", "20"),
                c(List.of("hash-max-ziplist-value", "x", "dir", "/tmp"),
                        "ERR CONFIG SET failed (possibly related to argument 'dir') - can't set protected config"),
                c(List.of("dir", "/tmp", "hash-max-ziplist-value", "x"),
                        "ERR CONFIG SET failed (possibly related to argument 'dir') - can't set protected config"),
                c(List.of("zset-max-ziplist-entries", "1", "zset-max-listpack-entries", "x"),
                        "ERR CONFIG SET failed (possibly related to argument 'zset-max-listpack-entries') "
                                + "- argument couldn't be parsed into an integer"),
                c(List.of("masterauth", "other"), null, "masterauth", "other"),
                c(List.of("use-exit-on-panic", "no", "use-exit-on-panic", "yes"),
                        "ERR CONFIG SET failed (possibly related to argument 'use-exit-on-panic') - "
                                + "duplicate parameter"));

    @Test
    void theKeyspaceEventClassesKeepNWhereTheShownValueHidesIt() {
        assertThat(config.keyspaceEvents()).isZero();
        assertThat(config.set(List.of("notify-keyspace-events", "KEAn"))).isNull();
        assertThat(config.get(List.of("notify-keyspace-events"))).containsExactly(
                Map.entry("notify-keyspace-events", "AKE"));
        assertThat(config.keyspaceEvents()).isEqualTo(0x27FC | 1 | 2 | (1 << 14));
        assertThat(config.set(List.of("notify-keyspace-events", "Q"))).isNotNull();
        assertThat(config.keyspaceEvents()).as("a refused value changes nothing").isEqualTo(0x27FC | 1 | 2 | (1 << 14));
        assertThat(config.set(List.of("notify-keyspace-events", "Ex"))).isNull();
        assertThat(config.keyspaceEvents()).isEqualTo(2 | (1 << 8));
    }

    @Test
    void everyParameterHasRedisDefault() throws IOException {
        Map<String, String> redis = redisDefaults();
        assertThat(redis).hasSize(197);
        redis.forEach((name, value) -> {
            if (!Set.of("port", "dir").contains(name)) { // they show how the recording server was started
                assertThat(RedisConfig.redisDefault(name)).as(name).isEqualTo(value);
            }
        });
        assertThat(RedisConfig.redisDefault("port")).isEqualTo("6379");
    }

    @Test
    void theQuorumFenceSettingsAreOwnedBoundedAndRefusedWhileTheFenceIsAway() {
        assertThat(config.set(List.of("self-fence-on-replica-loss", "no", "freshness-window-ms", "2500"))).isNull();
        assertThat(server.applied).last().isEqualTo(Map.of("self-fence-on-replica-loss", "no",
                "freshness-window-ms", "2500"));
        assertThat(config.get(List.of("self-fence-*"))).containsExactly(Map.entry("self-fence-on-replica-loss", "no"));
        assertThat(config.set(List.of("freshness-window-ms", "99"))).isEqualTo(failed("freshness-window-ms",
                "argument must be between 100 and 600000 inclusive"));
        server.refusal = "the quorum fence (tandem.fencing) is not active";
        assertThat(config.set(List.of("self-fence-on-replica-loss", "yes"))).isEqualTo(
                failed("self-fence-on-replica-loss", "the quorum fence (tandem.fencing) is not active"));
        assertThat(server.values).containsEntry("self-fence-on-replica-loss", "no");
    }

    @Test
    void reportsEveryVisibleParameterOfRedisWithTandemsValues() throws IOException {
        Map<String, String> expected = new LinkedHashMap<>();
        redisDefaults().forEach((name, value) -> {
            if (!HIDDEN.contains(name)) {
                expected.put(name, value);
            }
        });
        // Tandem's departures: no RDB snapshots; the owned values are the server's
        expected.put("save", "");
        expected.putAll(server.values);
        expected.put("slaveof", "");
        expected.put("min-slaves-to-write", "0");
        expected.put("min-slaves-max-lag", "10");
        assertThat(config.get(List.of("*"))).containsExactlyInAnyOrderEntriesOf(expected);
    }

    @Test
    void setAnswersAsRedis() {
        for (Case c : REDIS_CASES) {
            Server s = new Server();
            RedisConfig fresh = new RedisConfig(s);
            Map<String, String> before = everything(fresh);
            String shown = c.args().toString().replace("\0", "\\0");
            assertThat(fresh.set(c.args())).as("CONFIG SET %s", shown).isEqualTo(c.error());
            if (c.error() != null) {
                assertThat(everything(fresh)).as("nothing changed by CONFIG SET %s", shown).isEqualTo(before);
                assertThat(s.applied).isEmpty();
            }
            c.after().forEach((name, value) -> assertThat(fresh.value(name)).as("%s after %s", name, shown)
                    .isEqualTo(value));
        }
    }

    @Test
    void everyParameterTakesTheValueItReports() {
        Map<String, String> before = everything(config);
        for (Map.Entry<String, String> e : before.entrySet()) {
            String reply = config.set(List.of(e.getKey(), e.getValue()));
            if (reply != null) {
                assertThat(reply).as(e.getKey()).matches(".* - can't set (immutable|protected) config");
            }
        }
        assertThat(everything(config)).isEqualTo(before);
    }

    @Test
    void getMatchesNamesAndAliasesAsRedis() {
        assertThat(config.get(List.of("SAVE"))).containsExactly(Map.entry("SAVE", ""));
        assertThat(config.get(List.of("save", "SAVE", "sav?"))).containsExactly(Map.entry("save", ""));
        assertThat(config.get(List.of("SaVe", "sav*"))).containsExactly(Map.entry("SaVe", ""));
        assertThat(config.get(List.of("nope", "no*pe"))).isEmpty();
        assertThat(config.get(List.of("replicaof", "slaveof"))).containsExactly(Map.entry("replicaof", ""),
                Map.entry("slaveof", ""));
        assertThat(config.get(List.of("*-max-ziplist-entries"))).containsExactly(
                Map.entry("hash-max-ziplist-entries", "512"), Map.entry("zset-max-ziplist-entries", "128"));
        assertThat(config.get(List.of("MAXCL*", "maxclients"))).containsExactly(Map.entry("maxclients", "10000"));
        // hidden parameters answer only to their exact name
        assertThat(config.get(List.of("watchdog*", "use-exit-on-panic"))).containsExactly(
                Map.entry("use-exit-on-panic", "no"));
        // C's string functions read a pattern up to its NUL
        assertThat(config.get(List.of("maxcl*\0nothing"))).containsExactly(Map.entry("maxclients", "10000"));
    }

    @Test
    void refusesWhatTandemCannotHonourAfterRedisChecks() {
        String journal = "Tandem journals every write; it writes no RDB snapshot and no AOF";
        String listener = "Tandem's listener is configured in etc/tandem.server.cfg, which rebinds it live";
        Map<List<String>, String> refused = new LinkedHashMap<>();
        refused.put(List.of("save", "900 1"), failed("save", journal));
        refused.put(List.of("appendonly", "YES"), failed("appendonly", journal));
        refused.put(List.of("slave-read-only", "no"),
                failed("slave-read-only", "Tandem's replicas are always read-only"));
        refused.put(List.of("tls-cluster", "yes"), failed("tls-cluster", "Tandem has no cluster bus"));
        refused.put(List.of("port", "7000"), failed("port", listener));
        refused.put(List.of("bind", "0.0.0.0"), failed("bind", listener));
        refused.put(List.of("maxclients", "1000001"),
                failed("maxclients", "argument must be between 1 and 1000000 inclusive"));
        refused.put(List.of("proto-max-bulk-len", "2gb"),
                failed("proto-max-bulk-len", "argument must be between 1048576 and 2147483631 inclusive"));
        refused.put(List.of("min-slaves-to-write", "3"),
                failed("min-slaves-to-write", "argument must be between 0 and 2 inclusive"));
        refused.put(List.of("min-replicas-max-lag", "86401"),
                failed("min-replicas-max-lag", "argument must be between 0 and 86400 inclusive"));
        refused.put(List.of("min-replicas-timeout-ms", "86400001"),
                failed("min-replicas-timeout-ms", "argument must be between 0 and 86400000 inclusive"));
        // Redis checks every value before its apply step can fail
        refused.put(List.of("save", "900 1", "maxmemory", "x"),
                failed("maxmemory", "argument must be a memory value"));
        refused.put(List.of("maxmemory", "1mb", "appendonly", "yes"), failed("appendonly", journal));
        Map<String, String> before = everything(config);
        refused.forEach((args, error) -> assertThat(config.set(args)).as("%s", args).isEqualTo(error));
        assertThat(everything(config)).isEqualTo(before);
        assertThat(server.applied).isEmpty();
        // Tandem's own values pass, and change nothing
        assertThat(config.set(List.of("save", "", "appendonly", "no", "bind", "127.0.0.1", "port", "7399",
                "tls-cluster", "no", "slave-read-only", "yes"))).isNull();
        assertThat(everything(config)).isEqualTo(before);
        assertThat(server.applied).isEmpty();
    }

    @Test
    void ownedValuesReachTheServerAllAtOnceInRequestOrder() {
        assertThat(config.set(List.of("min-slaves-max-lag", "5", "maxclients", "500", "min-replicas-timeout-ms",
                "100", "requirepass", "s3cret", "maxmemory", "1mb", "min-replicas-max-lag", "7"))).isNull();
        assertThat(server.applied).hasSize(1);
        // a parameter named twice (by its name and its alias) applies at its last mention, where Redis set it last
        assertThat(server.applied.get(0)).containsExactly(Map.entry("maxclients", "500"),
                Map.entry("min-replicas-timeout-ms", "100"), Map.entry("requirepass", "s3cret"),
                Map.entry("min-replicas-max-lag", "7"));
        assertThat(config.value("maxmemory")).isEqualTo("1048576");
        assertThat(config.value("REQUIREPASS")).isEqualTo("s3cret");
    }

    @Test
    void monitoringValuesAndTheirListener() {
        assertThat(config.monitoring()).isEqualTo(new RedisConfig.Monitoring(10000, 128, 0, true,
                List.of(50.0, 99.0, 99.9)));
        List<RedisConfig.Monitoring> heard = new ArrayList<>();
        Runnable stop = config.onMonitoringChange(heard::add);
        assertThat(config.set(List.of("maxmemory", "1mb"))).isNull();
        assertThat(config.set(List.of("slowlog-max-len", "128"))).as("unchanged").isNull();
        assertThat(config.set(List.of("slowlog-max-len", "5", "hz", "x"))).isNotNull();
        assertThat(heard).isEmpty();
        assertThat(config.set(List.of("slowlog-log-slower-than", "-1", "latency-tracking", "no",
                "latency-tracking-info-percentiles", "", "latency-monitor-threshold", "100", "slowlog-max-len",
                "5"))).isNull();
        RedisConfig.Monitoring now = new RedisConfig.Monitoring(-1, 5, 100, false, List.of());
        assertThat(heard).containsExactly(now);
        assertThat(config.monitoring()).isEqualTo(now);
        assertThat(config.set(List.of("latency-tracking-info-percentiles", "99.99 -0"))).isNull();
        assertThat(heard).hasSize(2);
        assertThat(heard.get(1).latencyTrackingInfoPercentiles()).containsExactly(99.99, -0.0);
        stop.run();
        assertThat(config.set(List.of("slowlog-max-len", "6"))).isNull();
        assertThat(heard).hasSize(2);
    }

    private static final Set<String> HIDDEN = Set.of("use-exit-on-panic", "rdb-key-save-delay", "key-load-delay",
            "watchdog-period", "loading-process-events-interval-bytes");

    private static String failed(String name, String reason) {
        return "ERR CONFIG SET failed (possibly related to argument '" + name + "') - " + reason;
    }

    /** Every parameter, hidden ones included. */
    private static Map<String, String> everything(RedisConfig config) {
        List<String> names = new ArrayList<>(HIDDEN);
        names.add("*");
        return config.get(names);
    }

    private static Map<String, String> redisDefaults() throws IOException {
        Map<String, String> defaults = new LinkedHashMap<>();
        try (InputStream in = RedisConfigTest.class.getResourceAsStream("redis-7.0.15-defaults.tsv")) {
            for (String line : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
                if (!line.startsWith("#")) {
                    String[] fields = line.split("\t", -1);
                    assertThat(fields).as(line).hasSize(2);
                    defaults.put(fields[0], fields[1]);
                }
            }
        }
        return defaults;
    }
}
