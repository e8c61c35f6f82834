package tandem.system.fuzz;

import static tandem.system.fuzz.Commands.b;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;

import tandem.system.fuzz.Catalogue.Cmd;
import tandem.system.fuzz.Step.Kind;
import tandem.system.fuzz.Step.Segment;

/**
 * A seeded generator of commands for every command in a {@link Catalogue}: a grammar for each command it knows
 * (strings, keys, hashes, lists, sets, sorted sets, SORT, bits, streams, transactions, connection and server
 * commands), a
 * generic one from the arity for the others, and adversarial arguments throughout — 64-bit edges and their
 * neighbours, floats Redis and Java parse differently, empty, binary and (rarely) multi-megabyte strings, repeated,
 * unknown and reordered options, wrong arities, a small key pool shared by every type, a small pool of members and
 * scores. The stream of steps is a function of the seed and the catalogue only.
 *
 * <p>What it never sends: commands that stop, reconfigure or re-role a node ({@link #DENIED}); a {@code HELLO} that
 * switches to the other protocol than the run's; a database beyond 3 (SELECT, MOVE, COPY … DB, SWAPDB work in 0 to 3, whose
 * keyspaces the episode's end compares); expiries that fall due during a run
 * (relative ones are hours or more ahead, or already past); {@code CONFIG SET} of anything but harmless values;
 * {@code WAIT} that could block; {@code QUIT} other than at the end of a batch; a {@code WATCH} whose keys could be
 * touched by a write that changes nothing (Tandem's documented over-abort); an {@code SPOP} whose effect depends on
 * a random choice ({@link #spop}); a large negative count to {@code SRANDMEMBER}/{@code ZRANDMEMBER}; {@code SORT}
 * whose order Redis leaves to its qsort ({@link #sort}); a NUL byte in a list element or a member.
 *
 * <p>Streams ({@link #xadd} and the rest) never bring either server's clock into a reply or the keyspace: XADD takes
 * explicit IDs only, never {@code *} nor {@code <ms>-*} (no argument of an XADD is either, whatever a mutation
 * moves; the one departure of {@code <ms>-*}, after an ID whose sequence is 2^64-1, depends on the stream's state,
 * which the generator does not follow); XREAD and XREADGROUP go without BLOCK (the blocking steps send neither);
 * a min-idle-time (XCLAIM, XAUTOCLAIM, XPENDING's IDLE) is 0 or an hour, and an XCLAIM's IDLE or TIME sets a
 * delivery time now, a day or more before, or in the future (which Redis takes as now), so that which entries
 * qualify never depends on the milliseconds between the two servers; consumer names are never numbers and XCLAIM's
 * IDs always have their dash, so that a mutation that drops or inserts an argument cannot make one a small
 * min-idle-time, and those three commands are never swapped. The times the replies do carry — XPENDING's idle
 * times, XINFO CONSUMERS' idle, XINFO STREAM FULL's seen and delivery times, a DUMP of a stream with groups — are
 * masked by {@link Rule#STREAM_TIMES} and {@link Rule#DUMP} (the departure "the time of IDs made by {@code *},
 * delivery, seen and idle times"). Not sent: CONFIG SET of {@code stream-node-max-bytes} or
 * {@code stream-node-max-entries} (fixed in Tandem, a departure; {@link #harmlessSetting} never sets them).
 */
final class Gen {

    /**
     * Never generated: they stop, block, re-role or reconfigure a node, or turn the connection into something else.
     * Pub/Sub's other commands too: one connection's PUBLISH reaches nobody, and {@code PubSubSystemTest} compares
     * Pub/Sub flow by flow with Redis.
     */
    static final Set<String> DENIED = Set.of("shutdown", "replicaof", "slaveof", "debug", "psync", "sync",
            "replconf", "monitor", "subscribe", "psubscribe", "ssubscribe", "unsubscribe", "punsubscribe",
            "sunsubscribe", "publish", "spublish", "pubsub", "failover", "sentinel", "save", "bgsave", "bgrewriteaof", "module",
            "acl", "swapdb", "migrate",
            // generated only in BLOCKING steps (blocking()): a batch must not wait behind one
            "blpop", "brpop", "brpoplpush", "blmove", "blmpop", "bzpopmin", "bzpopmax", "bzmpop",
            "waitaof", "cluster", "readonly", "readwrite", "reset",
            "lastsave", "latency", "slowlog", "lolwut", "restore-asking", "asking", "pfdebug",
            "pfselftest", "quit", "multi", "watch");

    /** The subcommands generated for CLIENT: those that cannot kill, pause or silence a connection. */
    static final Set<String> CLIENT_SAFE = Set.of("id", "setname", "getname", "list", "info", "help", "no-evict",
            "no-touch");

    static final String[] KEYS = {"k0", "k1", "k2", "k3", "k4", "k5"};
    static final String[] MORE_KEYS = {"key:1", "key:2", "key:3", "key:4", "key:5", "key:6", "key:7", "key:8"};
    static final byte[][] ODD_KEYS = {b(""), {0, (byte) 0xff, ' ', 'k'}, b("k*"), b("k?"), b("[k]"), b("k\r\nk"),
            b(" "), "ключ".getBytes(StandardCharsets.UTF_8), b("x".repeat(1000)), b("\\k"), b("k0 ")};
    static final String[] FIELDS = {"f0", "f1", "f2", "f3", "f4"};
    static final byte[][] ODD_FIELDS = {b(""), {0, 1, (byte) 0x80}, b("f*"), b("field:" + "y".repeat(100)),
            b("f\r\n"), b("f 1"), "поле".getBytes(StandardCharsets.UTF_8)};

    /** Members of sets and sorted sets, and list elements: integers (intsets), strings, edges of number parsing. */
    static final String[] MEMBERS = {"a", "b", "c", "d", "e", "A", "0", "1", "2", "3", "5", "10", "-1", "1.5",
            "m:1", "m:2", "x y", "", "\u00e9", "01", "-0", "inf", "*", "[a]", "9223372036854775807",
            "-9223372036854775808", "9223372036854775808"};
    /** At and past Redis' 64-byte listpack limit for members. */
    static final String[] LONG_MEMBERS = {"z".repeat(64), "z".repeat(65), "m:" + "y".repeat(100)};

    static final String[] INT_EDGES = {"0", "1", "-1", "2", "9223372036854775807", "-9223372036854775808",
            "9223372036854775806", "-9223372036854775807", "9223372036854775808", "-9223372036854775809",
            "18446744073709551615", "18446744073709551616", "2147483647", "2147483648", "-2147483648",
            "-2147483649", "4294967295", "4294967296", "536870911", "536870912", "536870913", "9007199254740993",
            "100000000000000000000", "4611686018427387904", "-4611686018427387904", "65535", "65536", "255", "256",
            "-9223372036854775800", "9223372036854775000"};
    static final String[] INT_WEIRD = {"", " 1", "1 ", "+1", "01", "-0", "0x10", "1e3", "1.0", "1.5", "abc", "1a",
            "--1", "\u22121", "\0", "9223372036854775807\0", " ", "nan", "inf", "0000", "-", "+", "1\r\n", "١"};
    static final String[] FLOATS = {"0", "1", "-1", "1.5", "-1.5", "0.1", "3.0e3", "1e308", "-1e308",
            "1.7976931348623157e308", "1e309", "-1e309", "4.9e-324", "1e-400", "2.2250738585072014e-308", "inf",
            "-inf", "+inf", "Infinity", "-Infinity", "INF", "nan", "NaN", "-nan", "-0", "0.0", "-0.0", "+0",
            "0x1p3", "0x10", "0X1A", " 1.5", "1.5 ", "1.5\0", "1.5e", ".5", "5.", "1_0", "1,5", "", "abc",
            "123456789012345678901234567890", "5011.1", "1.0000000000000001", "9223372036854775807",
            "-9223372036854775808", "1e-5", "7e17", "17", "10.50", "3.14159265358979323846264338327950288", "e10",
            "1e", "--1", "0.30000000000000004", "1.23456789012345678e-300", "1e-320", "5e-324", "1e300", "-1e300",
            "0.5", "100", "1.1", "2.5e-3", "9.99999999999999999999e22", "1E10", "1e+10", "1e-10", "0e0", "00.1"};
    static final String[] WORDS = {"NX", "XX", "GT", "LT", "GET", "EX", "PX", "EXAT", "PXAT", "KEEPTTL", "PERSIST",
            "COUNT", "MATCH", "TYPE", "WITHVALUES", "LIMIT", "BYTE", "BIT", "LEN", "IDX", "MINMATCHLEN",
            "WITHMATCHLEN", "REPLACE", "DB", "ASYNC", "SYNC", "OVERFLOW", "WRAP", "SAT", "FAIL", "INCRBY", "SET",
            "AND", "OR", "XOR", "NOT", "SAMPLES", "FOO", "nx", "ex", "Get", "string", "hash", "none"};
    static final String[] PATTERNS = {"*", "k*", "k?", "k[0-2]", "k[^0]", "k[!0]*", "key:*", "*:*", "?", "??", "",
            "\\*", "k\\*", "[", "[a-", "k[", "*k*", "f*", "f?", "*0", "nomatch", "[k]", "k[0-9", "\\",
            "*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*b", "[[[[[[[[[[]]]]]]]]]]", "***********", "k[z-a]"};
    static final String[] TYPES = {"string", "hash", "list", "set", "zset", "stream", "none", "foo", "STRING", ""};

    private final Random r;
    private final Catalogue cat;
    /** {@link #BLOCKING}'s commands the catalogue has. */
    private final List<String> blockingCommands;
    private final List<String> names = new ArrayList<>();
    private final double[] cumulative;
    private final List<String> keyspaceNames = new ArrayList<>();
    private final List<String> configParams;
    private long unique;
    /** The key scans of the catalogue (HSCAN, SSCAN, ZSCAN), iterated to their end as scan steps. */
    private final List<String> keyScans = new ArrayList<>();
    /** The types a SCAN step asks for: set and zset too once the catalogue has them. */
    private final String[] scanTypes;
    /** Fields still to draw from the large field pool (a large HSET). */
    private int bigHash;
    /** The protocol of the run: HELLO asks for it, never switching a connection to the other. */
    private final int protocol;

    /**
     * @param configParams the parameters Tandem's {@code CONFIG GET *} lists (only they are read; a few harmless
     *                     ones are set)
     */
    Gen(long seed, Catalogue cat, List<String> configParams, int protocol) {
        this.protocol = protocol;
        this.r = new Random(seed);
        this.cat = cat;
        this.configParams = configParams;
        List<Double> weights = new ArrayList<>();
        for (Cmd c : cat.commands.values()) {
            double w = weight(c);
            if (w > 0) {
                names.add(c.name());
                weights.add(w);
            }
            if (c.isKeyspace() && !DENIED.contains(c.name()) && !SINGLE_ONLY.contains(c.name())) {
                keyspaceNames.add(c.name());
            }
        }
        for (String s : new String[] {"HSCAN", "SSCAN", "ZSCAN"}) {
            if (cat.get(s.toLowerCase(Locale.ROOT)) != null) {
                keyScans.add(s);
            }
        }
        blockingCommands = BLOCKING.stream().filter(n -> cat.get(n) != null).toList();
        scanTypes = cat.get("sadd") != null || cat.get("zadd") != null
                ? new String[] {"string", "hash", "none", "list", "set", "zset"}
                : new String[] {"string", "hash", "none", "list"};
        cumulative = new double[weights.size()];
        double sum = 0;
        for (int i = 0; i < cumulative.length; i++) {
            sum += weights.get(i);
            cumulative[i] = sum;
        }
    }

    private static double weight(Cmd c) {
        String n = c.name();
        if (DENIED.contains(n)) {
            return 0;
        }
        return switch (n) {
            case "flushall", "flushdb" -> 0.08;
            case "exec", "discard" -> 0.05;
            case "wait" -> 0.1;
            case "info", "command", "hello", "auth", "select", "time", "role" -> 0.25;
            case "client", "config" -> 0.6;
            case "ping", "echo", "unwatch", "dbsize", "randomkey", "keys" -> 0.5;
            case "scan", "hscan", "sscan", "zscan" -> 1;
            case "xrange", "xrevrange", "xlen", "xdel", "xtrim", "xsetid", "xgroup", "xack", "xpending", "xclaim",
                    "xautoclaim", "xinfo", "xread", "xreadgroup" -> 2.5;
            default -> c.isWrite() ? 3 : c.isKeyspace() ? 2 : 1;
        };
    }

    // ---- steps ------------------------------------------------------------------------------------------------

    Step next() {
        int p = r.nextInt(100);
        if (p < 3 && !blockingCommands.isEmpty()) {
            return blocking();
        }
        if (p < 35) {
            return Step.single(Kind.SINGLE, 0, command(true));
        }
        if (p < 78) {
            return batch();
        }
        if (p < 86) {
            return transaction();
        }
        if (p < 91) {
            return watch();
        }
        if (p < 95 && (cat.get("scan") != null || !keyScans.isEmpty())) {
            return scanIteration();
        }
        if (p < 97) {
            return raw();
        }
        if (p < 98 && r.nextInt(40) == 0) {
            return Step.single(Kind.SINGLE, 0, huge());
        }
        if (p < 99 && r.nextInt(30) == 0) {
            return pressure();
        }
        return Step.single(Kind.SINGLE, 1, command(true)); // the other connection
    }

    /** The blocking commands: generated only as {@link #blocking()} steps (a batch would wait behind one). */
    static final List<String> BLOCKING = List.of("blpop", "brpop", "brpoplpush", "blmove", "blmpop", "bzpopmin",
            "bzpopmax", "bzmpop");

    /**
     * A blocking command on connection A over two keys of the pool. A quarter time out at once ({@code 0.01} s,
     * or answer at once when a key holds something); the rest wait up to 5 s and connection B serves them with a
     * push to one of their keys ({@link Kind#BLOCKING}).
     */
    private Step blocking() {
        String name = pick(blockingCommands);
        boolean zset = name.startsWith("bz");
        String k1 = pick(KEYS);
        String k2 = pick(KEYS);
        boolean expire = r.nextInt(4) == 0;
        String timeout = expire ? "0.01" : "5";
        String end = zset ? pick(new String[] {"MIN", "MAX"}) : pick(new String[] {"LEFT", "RIGHT"});
        List<byte[]> count = r.nextBoolean() ? List.of() : args("COUNT", pick(new String[] {"1", "2", "5"}));
        List<byte[]> cmd = switch (name) {
            case "brpoplpush" -> args("BRPOPLPUSH", k1, k2, timeout);
            case "blmove" -> args("BLMOVE", k1, k2, end, pick(new String[] {"LEFT", "RIGHT"}), timeout);
            case "blmpop", "bzmpop" -> args(name.toUpperCase(Locale.ROOT), timeout, "2", k1, k2, end, count);
            default -> args(name.toUpperCase(Locale.ROOT), k1, k2, timeout);
        };
        if (expire) {
            return Step.single(Kind.SINGLE, 0, cmd);
        }
        // the source of BRPOPLPUSH and BLMOVE is their first key; the others wait on either
        String served = name.equals("brpoplpush") || name.equals("blmove") || r.nextBoolean() ? k1 : k2;
        List<byte[]> push = zset
                ? args("ZADD", served, pick(new String[] {"1", "2", "-1.5"}), pick(MEMBERS), "3", pick(MEMBERS))
                : args(pick(new String[] {"RPUSH", "LPUSH"}), served, pick(MEMBERS), pick(MEMBERS));
        return new Step(Kind.BLOCKING, List.of(new Segment(0, List.of(cmd)), new Segment(1, List.of(push))));
    }

    private Step batch() {
        if (r.nextInt(200) == 0 && cat.get("xadd") != null) {
            return streamFill();
        }
        if (r.nextInt(20) == 0 && cat.get("xreadgroup") != null) {
            return streamSession();
        }
        int n = 2 + (r.nextInt(4) == 0 ? r.nextInt(60) : r.nextInt(12));
        List<List<byte[]>> cmds = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            cmds.add(command());
        }
        if (r.nextInt(40) == 0 && cat.get("quit") != null) {
            cmds.add(r.nextInt(10) == 0 ? List.of(b("QUIT"), b("bye")) : List.of(b("QUIT")));
        }
        return new Step(Kind.BATCH, List.of(new Segment(0, cmds)));
    }

    private Step transaction() {
        List<List<byte[]>> cmds = new ArrayList<>();
        cmds.add(List.of(b(pickCase("MULTI"))));
        cmds.addAll(body());
        cmds.add(List.of(b(r.nextInt(10) == 0 ? "DISCARD" : pickCase("EXEC"))));
        return new Step(Kind.TRANSACTION, List.of(new Segment(0, cmds)));
    }

    /** The queued part of a transaction: keyspace commands, and now and then one that makes EXEC abort. */
    private List<List<byte[]>> body() {
        List<List<byte[]>> cmds = new ArrayList<>();
        int n = r.nextInt(8);
        for (int i = 0; i < n; i++) {
            int p = r.nextInt(100);
            if (p < 2) {
                cmds.add(List.of(b("MULTI"))); // nested: an error, the transaction goes on
            } else if (p < 4) {
                cmds.add(List.of(b("WATCH"), key())); // not allowed inside MULTI
            } else if (p < 6) {
                cmds.add(List.of(b("NOSUCHCMD"), key())); // EXECABORT
            } else if (p < 8 && !keyspaceNames.isEmpty()) {
                cmds.add(List.of(b(pick(keyspaceNames)))); // most likely a wrong arity: EXECABORT
            } else if (!keyspaceNames.isEmpty()) {
                cmds.add(command(pick(keyspaceNames)));
            }
        }
        return cmds;
    }

    private Step watch() {
        if (cat.get("watch") == null || cat.get("multi") == null) {
            return Step.single(Kind.SINGLE, 0, command());
        }
        List<Segment> segs = new ArrayList<>();
        List<byte[]> watched = new ArrayList<>();
        List<byte[]> w = new ArrayList<>(List.of(b("WATCH")));
        int n = 1 + r.nextInt(3);
        for (int i = 0; i < n; i++) {
            byte[] k = key();
            watched.add(k);
            w.add(k);
        }
        List<List<byte[]>> first = new ArrayList<>();
        first.add(w);
        if (r.nextBoolean()) {
            first.add(List.of(b("GET"), watched.get(0)));
        }
        segs.add(new Segment(0, first));
        int p = r.nextInt(10);
        if (p < 2) {
            segs.add(new Segment(0, List.of(touch(pick(watched))))); // the watching connection itself
        } else if (p < 4) {
            segs.add(new Segment(1, List.of(touch(pick(watched))))); // another client
        } else if (p < 5) {
            byte[] other = b("unwatched:" + r.nextInt(3));
            segs.add(new Segment(1, List.of(touch(other))));
        } else if (p < 6) {
            segs.add(new Segment(0, List.of(List.of(b("UNWATCH")))));
        }
        List<List<byte[]>> tx = new ArrayList<>();
        tx.add(List.of(b("MULTI")));
        tx.addAll(body());
        tx.add(List.of(b(r.nextInt(10) == 0 ? "DISCARD" : "EXEC")));
        segs.add(new Segment(0, tx));
        return new Step(Kind.WATCH, segs);
    }

    /** A write that certainly changes the key, whatever it holds: SET of a value never written before. */
    private List<byte[]> touch(byte[] key) {
        return List.of(b("SET"), key, b("touch:" + (unique++)));
    }

    private Step scanIteration() {
        boolean keyed = !keyScans.isEmpty() && (cat.get("scan") == null || r.nextInt(3) == 0);
        List<byte[]> c = new ArrayList<>();
        if (keyed) {
            // one more draw only when there is a choice: the stream of a catalogue with HSCAN alone is unchanged
            String scan = keyScans.size() == 1 ? keyScans.get(0) : pick(keyScans);
            c.add(b(scan));
            c.add(scan.equals("HSCAN") ? key() : key(family(scan.toLowerCase(Locale.ROOT))));
        } else {
            c.add(b("SCAN"));
        }
        c.add(b("0"));
        List<List<byte[]>> opts = new ArrayList<>();
        if (r.nextBoolean()) {
            opts.add(List.of(b("MATCH"), b(pick(PATTERNS))));
        }
        if (r.nextBoolean()) {
            opts.add(List.of(b("COUNT"), b(pick(new String[] {"1", "2", "3", "5", "10", "100", "1000"}))));
        }
        if (!keyed && r.nextInt(3) == 0) {
            opts.add(List.of(b("TYPE"), b(pick(scanTypes))));
        }
        Collections.shuffle(opts, r);
        opts.forEach(c::addAll);
        return Step.single(Kind.SCAN_ITERATION, 0, c);
    }

    // ---- commands ---------------------------------------------------------------------------------------------

    /** A command of the catalogue (or, now and then, one no server knows), never one that is {@link #SINGLE_ONLY}. */
    List<byte[]> command() {
        return command(false);
    }

    /**
     * @param single whether the command is sent alone, so that the runner can check its cost first
     *               ({@link #SINGLE_ONLY})
     */
    List<byte[]> command(boolean single) {
        if (r.nextInt(200) == 0) {
            return unknownCommand();
        }
        while (true) {
            int i = Arrays.binarySearch(cumulative, r.nextDouble() * cumulative[cumulative.length - 1]);
            String name = names.get(i < 0 ? -i - 1 : i);
            if (single || !SINGLE_ONLY.contains(name)) {
                return command(name);
            }
        }
    }

    /**
     * Sent only as single steps: LCS allocates (len(a)+1)·(len(b)+1) cells on both servers, so the runner looks at
     * the two lengths first and skips a pair that would take more than a few megabytes.
     */
    static final Set<String> SINGLE_ONLY = Set.of("lcs");

    private List<byte[]> unknownCommand() {
        byte[][] names = {b("NOSUCHCMD"), b(""), b("set\0"), b("GETT"), b("x".repeat(300)), b("CLIENTS"),
                b("\r\n"), b("hget x")};
        List<byte[]> c = new ArrayList<>(List.of(pick(names)));
        int n = r.nextInt(4);
        for (int i = 0; i < n; i++) {
            c.add(token());
        }
        return c;
    }

    List<byte[]> command(String name) {
        List<byte[]> c = grammar(name);
        if (c == null) {
            c = generic(cat.get(name));
        }
        if (r.nextInt(100) < 6 && mutable(name)) {
            c = mutate(c, swappable(name, c));
            if (ADDS_ELEMENTS.contains(name)) {
                c = withoutNul(c); // an inserted odd key would become an element (see sort())
            }
        }
        if (name.equals("xadd")) {
            c = noClockIds(c);
        }
        if (r.nextInt(20) == 0) {
            c = new ArrayList<>(c);
            c.set(0, b(pickCase(Commands.s(c.get(0)))));
        }
        return c;
    }

    /** The commands that put new elements into a list, set or sorted set: never with a NUL byte. */
    private static final Set<String> ADDS_ELEMENTS = Set.of("lpush", "rpush", "lpushx", "rpushx", "lset", "linsert",
            "sadd", "zadd", "zincrby");

    private static List<byte[]> withoutNul(List<byte[]> c) {
        List<byte[]> out = new ArrayList<>(c.size());
        for (byte[] a : c) {
            byte[] copy = a.clone();
            for (int i = 0; i < copy.length; i++) {
                if (copy[i] == 0) {
                    copy[i] = '0';
                }
            }
            out.add(copy);
        }
        return out;
    }

    private static boolean mutable(String name) {
        return !Set.of("hello", "config", "wait", "select", "client", "quit", "multi", "exec", "watch", "auth",
                "discard", "spop", "pfcount").contains(name); // SPOP: dropping its count would pop a random member;
        // PFCOUNT: dropping a key could leave one, whose cache Redis writes (departures.md, see grammar())
    }

    /**
     * Whether swapping two arguments could not turn an argument into a short expiry, nor break what {@link #sort}
     * and {@link #lexKey} rely on.
     */
    private static boolean swappable(String name, List<byte[]> c) {
        // SORT: a swap could put a pattern with '*' after BY in a command with ALPHA (see sort())
        // XCLAIM, XAUTOCLAIM, XPENDING: a swap could make a small number a min-idle-time (see xclaim())
        if (Set.of("set", "getex", "expire", "pexpire", "expireat", "pexpireat", "setex", "psetex", "setrange",
                "setbit", "bitfield", "hello", "sort", "sort_ro", "xclaim", "xautoclaim", "xpending").contains(name)) {
            return false;
        }
        for (byte[] a : c) {
            String s = Commands.s(a).toLowerCase(Locale.ROOT);
            if (s.equals("ex") || s.equals("px") || s.equals("exat") || s.equals("pxat")) {
                return false;
            }
            if (s.startsWith("lex:")) {
                return false; // a swap could give a member of a lex key a score other than 0 (see lexKey())
            }
        }
        return true;
    }

    /** Drops, inserts, repeats or swaps arguments: wrong arities, repeated and unknown options, any order. */
    private List<byte[]> mutate(List<byte[]> c, boolean swap) {
        List<byte[]> m = new ArrayList<>(c);
        int p = r.nextInt(swap ? 4 : 3);
        if (p == 0 && m.size() > 1) {
            m.remove(1 + r.nextInt(m.size() - 1));
        } else if (p == 1) {
            m.add(1 + r.nextInt(m.size()), r.nextBoolean() ? b(pick(WORDS)) : key());
        } else if (p == 2 && m.size() > 1) {
            int i = 1 + r.nextInt(m.size() - 1);
            m.add(i, m.get(i));
        } else if (m.size() > 2) {
            int i = 1 + r.nextInt(m.size() - 1);
            int j = 1 + r.nextInt(m.size() - 1);
            byte[] t = m.get(i);
            m.set(i, m.get(j));
            m.set(j, t);
        }
        return m;
    }

    /** The grammar of a known command; null for one this generator has no grammar for. */
    private List<byte[]> grammar(String name) {
        Cmd spec = cat.get(name);
        return switch (name) {
            case "ping" -> r.nextBoolean() ? args("PING") : r.nextInt(5) == 0 ? args("PING", value(), value())
                    : args("PING", value());
            case "echo" -> r.nextInt(10) == 0 ? args("ECHO") : args("ECHO", value());
            case "select" -> args("SELECT", b(pick(new String[] {"0", "0", "0", "1", "2", "3", "16", "-1", "abc",
                "99999999999", "", "00", "0x0", "2147483648"})));
            case "move" -> args("MOVE", key(), database());
            case "swapdb" -> args("SWAPDB", database(), database());
            case "hello" -> hello();
            case "auth" -> auth();
            case "exec", "discard", "unwatch" -> args(name.toUpperCase(Locale.ROOT));
            case "time", "role", "dbsize", "randomkey" -> r.nextInt(15) == 0 ? args(name, token()) : args(name);
            case "info" -> info();
            case "wait" -> waitCommand();
            case "client" -> client(spec);
            case "config" -> config(spec);
            case "command" -> commandCommand(spec);
            case "flushall", "flushdb" -> flush(name);
            case "get", "getdel", "strlen", "type", "ttl", "pttl", "expiretime", "pexpiretime", "persist", "incr",
                    "decr", "hgetall", "hkeys", "hvals", "hlen" -> args(name, key());
            case "set" -> set();
            case "eval", "eval_ro" -> eval(name);
            case "evalsha", "evalsha_ro" -> evalsha(name);
            case "script" -> script();
            case "function" -> function();
            case "fcall", "fcall_ro" -> fcall(name);
            case "setnx", "getset", "append" -> args(name, key(), value());
            case "setex" -> args(name, key(), b(relSeconds(false)), value());
            case "psetex" -> args(name, key(), b(relMillis(false)), value());
            case "getex" -> getex();
            case "mget", "del", "unlink", "exists", "touch" -> args(name, keys(1 + r.nextInt(4)));
            case "mset", "msetnx" -> mset(name);
            case "incrby", "decrby" -> args(name, key(), b(intArg()));
            case "incrbyfloat" -> args(name, key(), b(floatArg()));
            case "getrange", "substr" -> args(name, key(), b(index()), b(index()));
            case "setrange" -> setrange();
            case "expire", "pexpire" -> expire(name, name.equals("expire") ? relSeconds(true) : relMillis(true));
            case "expireat" -> expire(name, absSeconds(true));
            case "pexpireat" -> expire(name, absMillis(true));
            case "keys" -> args("KEYS", b(pick(PATTERNS)));
            case "scan" -> scan();
            case "rename", "renamenx" -> args(name, key(), key());
            case "copy" -> copy();
            case "hset", "hmset" -> hset(name);
            case "hsetnx" -> args(name, key(), field(), value());
            case "hget", "hexists", "hstrlen" -> args(name, key(), field());
            case "hmget", "hdel" -> args(name, key(), fields(1 + r.nextInt(4)));
            case "hincrby" -> args(name, key(), field(), b(intArg()));
            case "hincrbyfloat" -> args(name, key(), field(), b(floatArg()));
            case "hscan" -> hscan();
            case "hrandfield" -> hrandfield();
            case "setbit" -> args(name, key(), b(bitOffset(true)), b(r.nextInt(6) != 0 ? pick(new String[] {"0", "1"})
                    : pick(new String[] {"2", "-1", "a", "", "01"})));
            case "getbit" -> args(name, key(), b(bitOffset(false)));
            case "bitcount" -> bitcount();
            case "bitpos" -> bitpos();
            case "bitop" -> bitop();
            case "bitfield", "bitfield_ro" -> bitfield(name);
            case "lcs" -> lcs();
            case "object" -> object(spec);
            case "memory" -> memory(spec);
            // lists
            case "lpush", "rpush" -> push(name, true);
            case "lpushx", "rpushx" -> push(name, false);
            case "lpop", "rpop", "zpopmin", "zpopmax" -> pop(name);
            case "llen", "scard", "smembers", "zcard" -> r.nextInt(30) == 0 ? args(name, key(family(name)), key())
                    : args(name, key(family(name)));
            case "lrange", "ltrim", "zremrangebyrank" -> args(name, key(family(name)), b(index()), b(index()));
            case "lindex" -> args(name, key(LIST), b(index()));
            case "lset" -> args(name, key(LIST), b(r.nextInt(3) != 0 ? Integer.toString(r.nextInt(10) - 5) : index()),
                    element());
            case "linsert" -> args(name, key(LIST), b(r.nextInt(12) != 0
                    ? pickCase(pick(new String[] {"BEFORE", "AFTER"})) : pick(new String[] {"MIDDLE", "", "BEFOREX"})),
                    element(), element());
            case "lrem" -> args(name, key(LIST), b(r.nextInt(4) != 0 ? Integer.toString(r.nextInt(7) - 3) : intArg()),
                    element());
            case "lpos" -> lpos();
            case "lmove" -> args(name, key(LIST), key(LIST), b(side()), b(side()));
            case "rpoplpush" -> args(name, key(LIST), key(LIST));
            case "lmpop" -> mpop(name, "LEFT", "RIGHT");
            // sets
            case "sadd" -> sadd();
            case "srem", "smismember", "zrem", "zmscore" -> args(name, key(family(name)), members(r.nextInt(25) == 0
                    ? 0 : 1 + r.nextInt(3)));
            case "sismember", "zscore" -> args(name, key(family(name)), member());
            case "zrank", "zrevrank" -> r.nextInt(15) == 0 ? args(name, key(ZSET), member(), b("WITHSCORE"))
                    : args(name, key(ZSET), member());
            case "spop" -> spop();
            case "srandmember" -> randMember(name, false);
            case "zrandmember" -> randMember(name, true);
            case "smove" -> args(name, key(SET), key(SET), member());
            case "sinter", "sunion", "sdiff" -> args(name, keys(SET, 1 + r.nextInt(3)));
            case "sinterstore", "sunionstore", "sdiffstore" -> args(name, key(SET), keys(SET, 1 + r.nextInt(3)));
            case "sintercard", "zintercard" -> intercard(name);
            case "sscan", "zscan" -> memberScan(name);
            // sorted sets
            case "zadd" -> zadd();
            case "zincrby" -> args(name, key(ZSET), b(score()), member());
            case "zcount", "zremrangebyscore" -> args(name, key(ZSET), b(scoreBound()), b(scoreBound()));
            case "zlexcount", "zremrangebylex" -> args(name, lexKey(), b(lexBound()), b(lexBound()));
            case "zrange", "zrangestore" -> zrange(name);
            case "zrevrange" -> zrevrange();
            case "zrangebyscore", "zrevrangebyscore" -> rangeBy(name, true);
            case "zrangebylex", "zrevrangebylex" -> rangeBy(name, false);
            case "zmpop" -> mpop(name, "MIN", "MAX");
            case "zunion", "zinter", "zdiff", "zunionstore", "zinterstore", "zdiffstore" -> zsetOperation(name);
            case "sort", "sort_ro" -> sort(name);
            // HyperLogLog: PFCOUNT of one key writes the cached count into the value in Redis and not in Tandem
            // (departures.md), which a later GET or DUMP of it would show, so the fuzzer counts two keys or more
            case "pfadd" -> args(name, hllKey(), members(r.nextInt(6)));
            case "pfcount" -> args(name, hllKey(), hllKey(), r.nextBoolean() ? List.of() : List.of(hllKey()));
            case "pfmerge" -> args(name, hllKey(), hllKey(), r.nextBoolean() ? List.of() : List.of(hllKey()));
            // streams
            case "xadd" -> xadd();
            case "xrange", "xrevrange" -> xrange(name);
            case "xlen" -> r.nextInt(30) == 0 ? args(name, streamKey(), key()) : args(name, streamKey());
            case "xdel" -> args(name, streamKey(), ids(r.nextInt(20) == 0 ? 0 : 1 + r.nextInt(3)));
            case "xtrim" -> xtrim();
            case "xsetid" -> xsetid();
            case "xgroup" -> xgroup();
            case "xack" -> args(name, streamKey(), group(), ids(r.nextInt(20) == 0 ? 0 : 1 + r.nextInt(3)));
            case "xpending" -> xpending();
            case "xclaim" -> xclaim();
            case "xautoclaim" -> xautoclaim();
            case "xinfo" -> xinfo();
            case "xread", "xreadgroup" -> xread(name);
            default -> null;
        };
    }

    /** A key for the HyperLogLog commands: one of three only they write, or one of the shared pool. */
    private byte[] hllKey() {
        return r.nextBoolean() ? key() : b("hll:" + r.nextInt(3));
    }

    // ---- streams ------------------------------------------------------------------------------------------------

    static final String STREAM = "stream";
    /** Consumer names: never numbers, so that a mutation that shifts arguments never makes one a min-idle-time. */
    static final String[] CONSUMERS = {"alice", "bob", "c1", "c2"};
    /** At and around the edges of an ID's two unsigned 64-bit halves, and past them. */
    static final String[] ID_EDGES = {"0-0", "0", "0-1", "1-0", "18446744073709551615-18446744073709551615",
        "18446744073709551615-18446744073709551614", "18446744073709551615", "18446744073709551615-0",
        "18446744073709551614-18446744073709551615", "0-18446744073709551615", "9223372036854775807-0",
        "9223372036854775808-1", "18446744073709551616-0", "0-18446744073709551616", "-1-0", "1--1"};
    static final String[] ID_WEIRD = {"", "abc", "1-", "-", "+", "-1", "1-1-1", "1.5", "1-a", " 1-1", "1-1 ",
        "01-01", "0x1-0", "1e3-0", "$", ">", "(1-1", "1-+1"};
    /**
     * The milliseconds and sequence of the last ID {@link #nextStreamId} gave: a counter that only grows, shared by
     * every stream key, so that most appends succeed whatever key they go to.
     */
    private long streamMs = 1;
    private long streamSeq;

    /**
     * A key for a stream command: mostly one of two only streams write ({@code stream:0}, {@code stream:1}), so
     * that groups, their consumers and pending entries meet within an episode; else the pool's.
     */
    private byte[] streamKey() {
        if (sessionKey != null && r.nextInt(6) != 0) {
            return sessionKey;
        }
        return r.nextInt(4) == 0 ? key() : b("stream:" + r.nextInt(2));
    }

    /** The stream and group a {@link #streamSession} works on; null outside one. */
    private byte[] sessionKey;
    private String sessionGroup;

    /** The stream commands but XADD, for {@link #streamSession}. */
    private static final String[] STREAM_COMMANDS = {"xreadgroup", "xreadgroup", "xreadgroup", "xack", "xack",
        "xpending", "xpending", "xclaim", "xclaim", "xautoclaim", "xinfo", "xgroup", "xgroup", "xrange",
        "xrevrange", "xread", "xdel", "xtrim", "xsetid", "xlen"};

    /**
     * A batch on one stream: a few appends, a group created on it (from its start, or its end and more appends),
     * then a dozen stream commands that mostly name it. Spread over an episode, a group and its pending entries
     * would seldom meet the commands that read, claim and acknowledge them.
     */
    private Step streamSession() {
        sessionKey = r.nextInt(6) == 0 ? key() : b("stream:" + r.nextInt(2));
        try {
            List<List<byte[]>> cmds = new ArrayList<>();
            for (int i = r.nextInt(6); i > 0; i--) {
                cmds.add(args("XADD", sessionKey, nextStreamId(), streamField(), streamValue()));
            }
            sessionGroup = group();
            cmds.add(args("XGROUP", "CREATE", sessionKey, sessionGroup, r.nextInt(3) == 0 ? "$" : "0",
                    r.nextInt(3) == 0 ? List.of() : args("MKSTREAM")));
            for (int i = 1 + r.nextInt(4); i > 0; i--) {
                cmds.add(args("XADD", sessionKey, nextStreamId(), streamField(), streamValue()));
            }
            for (int i = 4 + r.nextInt(12); i > 0; i--) {
                cmds.add(r.nextInt(5) == 0 ? command("xadd") : command(pick(STREAM_COMMANDS)));
            }
            return new Step(Kind.BATCH, List.of(new Segment(0, cmds)));
        } finally {
            sessionKey = null;
            sessionGroup = null;
        }
    }

    private String group() {
        if (sessionGroup != null && r.nextInt(5) != 0) {
            return sessionGroup;
        }
        return r.nextInt(8) == 0 ? "grp" : r.nextInt(3) == 0 ? "g2" : "g1";
    }

    private String nextStreamId() {
        if (r.nextInt(3) == 0) {
            streamSeq++;
        } else {
            streamMs += 1 + r.nextInt(4);
            streamSeq = r.nextInt(4) == 0 ? 1 : 0;
        }
        return streamSeq == 0 && r.nextInt(6) == 0 ? Long.toString(streamMs) : streamMs + "-" + streamSeq;
    }

    /** The ID of an XADD: the next one (most succeed), one at or below the top (an error), an edge, a bad one. */
    private String xaddId() {
        int p = r.nextInt(100);
        if (p < 80) {
            return nextStreamId();
        }
        if (p < 90) {
            return recentId();
        }
        if (p < 96) {
            return pick(ID_EDGES); // a large one leaves the stream refusing every later XADD: seldom
        }
        return pick(ID_WEIRD);
    }

    /** An ID among the last few dozen {@link #nextStreamId} gave, perhaps its milliseconds only. */
    private String recentId() {
        long ms = Math.max(0, streamMs - r.nextInt(r.nextInt(4) == 0 ? 400 : 25));
        return r.nextInt(5) == 0 ? Long.toString(ms) : ms + "-" + r.nextInt(3);
    }

    /** An ID that names entries (XDEL, XACK, XCLAIM, XSETID…): recent, sometimes an edge or a bad one. */
    private String someId() {
        int p = r.nextInt(100);
        return p < 85 ? recentId() : p < 95 ? pick(ID_EDGES) : pick(ID_WEIRD);
    }

    /** An ID with its dash: a mutation that drops XCLAIM's min-idle-time then never turns one into it. */
    private String dashedId() {
        String id = r.nextInt(12) == 0 ? pick(ID_EDGES) : recentId();
        return id.contains("-") ? id : id + "-0";
    }

    /** A bound of XRANGE/XREVRANGE: '-' or '+', an ID, an exclusive '(' one, an edge or a bad one. */
    private String rangeBound(boolean start) {
        int p = r.nextInt(100);
        if (p < 30) {
            return start ? "-" : "+";
        }
        if (p < 34) {
            return start ? "+" : "-";
        }
        if (p < 64) {
            return recentId();
        }
        if (p < 80) {
            return "(" + (r.nextInt(8) == 0 ? pick(new String[] {"-", "+", "0-0", "18446744073709551615-18446744073709551615",
                "0", "18446744073709551615", ""}) : recentId());
        }
        if (p < 92) {
            return pick(ID_EDGES);
        }
        return pick(ID_WEIRD);
    }

    private String streamCount() {
        return r.nextInt(8) != 0 ? pick(new String[] {"0", "1", "2", "3", "5", "10", "100"})
                : pick(new String[] {"-1", "-5", "9223372036854775807", "-9223372036854775808", "abc", "",
                    "18446744073709551615", "1.5"});
    }

    /** A value of an entry: mostly short, now and then anything {@link #value} gives (numbers, binary, large). */
    private byte[] streamValue() {
        return r.nextInt(3) == 0 ? value() : b(pick(MEMBERS));
    }

    private byte[] streamField() {
        return r.nextInt(5) == 0 ? b(pick(MEMBERS)) : field();
    }

    private List<byte[]> xadd() {
        List<byte[]> c = args("XADD", streamKey());
        List<List<byte[]>> opts = new ArrayList<>();
        if (r.nextInt(6) == 0) {
            opts.add(args(pickCase("NOMKSTREAM")));
        }
        if (r.nextInt(4) == 0) {
            opts.add(trimSpec());
        }
        if (r.nextInt(15) == 0 && !opts.isEmpty()) {
            opts.add(opts.get(0));
        }
        Collections.shuffle(opts, r);
        opts.forEach(c::addAll);
        c.add(b(xaddId()));
        int pairs = r.nextInt(15) == 0 ? 0 : 1 + r.nextInt(r.nextInt(5) == 0 ? 8 : 3);
        for (int i = 0; i < pairs; i++) {
            c.add(streamField());
            c.add(streamValue());
        }
        if (r.nextInt(12) == 0) {
            c.add(streamField()); // a field without its value
        }
        return c;
    }

    /** MAXLEN or MINID, with '=', '~' or neither, a threshold, perhaps LIMIT (Redis takes it with '~' only). */
    private List<byte[]> trimSpec() {
        boolean minid = r.nextInt(3) == 0;
        List<byte[]> t = args(pickCase(minid ? "MINID" : "MAXLEN"));
        int p = r.nextInt(4);
        if (p == 1) {
            t.add(b("="));
        } else if (p >= 2) {
            t.add(b("~"));
        }
        if (minid) {
            t.add(b(r.nextInt(10) != 0 ? recentId() : pick(r.nextBoolean() ? ID_EDGES : ID_WEIRD)));
        } else {
            int q = r.nextInt(10);
            t.add(b(q < 4 ? Integer.toString(r.nextInt(6)) : q < 8 ? Integer.toString(r.nextInt(320))
                    : pick(new String[] {"-1", "9223372036854775807", "18446744073709551615", "abc", "1.5", "",
                        "-9223372036854775808"})));
        }
        if (r.nextInt(p >= 2 ? 2 : 10) == 0) {
            t.addAll(args("LIMIT", pick(new String[] {"0", "1", "10", "100", "1000", "-1", "abc",
                "9223372036854775807", "2"})));
        }
        return t;
    }

    /**
     * A batch that appends 50 to 300 entries with growing IDs to one stream: past Redis' 100 entries and 4096
     * bytes a node, so that trimming with '~' and LIMIT, and the nodes XINFO and DUMP show, have nodes to work on.
     */
    private Step streamFill() {
        byte[] k = r.nextInt(5) == 0 ? key() : b("stream:" + r.nextInt(2));
        int n = 50 + r.nextInt(250);
        boolean sameFields = r.nextBoolean();
        List<byte[]> trim = r.nextInt(4) == 0 ? args("MAXLEN", "~", Integer.toString(50 + r.nextInt(150))) : List.of();
        List<List<byte[]>> cmds = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            streamMs += 1 + r.nextInt(3);
            streamSeq = 0;
            List<byte[]> c = args("XADD", k, trim, streamMs + "-" + r.nextInt(2));
            if (sameFields || r.nextInt(3) != 0) {
                c.addAll(args("f0", Integer.toString(i), "f1", r.nextInt(20) == 0 ? b(pick(LONG_MEMBERS))
                        : b(pick(MEMBERS))));
            } else {
                c.addAll(args(streamField(), streamValue()));
            }
            cmds.add(c);
        }
        return new Step(Kind.BATCH, List.of(new Segment(0, cmds)));
    }

    private List<byte[]> xrange(String name) {
        List<byte[]> c = args(name, streamKey());
        String start = rangeBound(true);
        String end = rangeBound(false);
        if (name.equals("xrevrange")) {
            c.addAll(args(end, start));
        } else {
            c.addAll(args(start, end));
        }
        if (r.nextInt(3) == 0) {
            c.addAll(args(pickCase("COUNT"), streamCount()));
        }
        if (r.nextInt(30) == 0) {
            c.add(b(pick(new String[] {"COUNT", "FOO", "1"})));
        }
        return c;
    }

    private List<byte[]> ids(int n) {
        List<byte[]> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add(b(someId()));
        }
        return out;
    }

    private List<byte[]> xtrim() {
        if (r.nextInt(20) == 0) {
            return args("XTRIM", streamKey(), pick(new String[] {"MAXLEN", "MINID", "FOO", "LIMIT"}));
        }
        return args("XTRIM", streamKey(), trimSpec());
    }

    private List<byte[]> xsetid() {
        List<byte[]> c = args("XSETID", streamKey());
        int p = r.nextInt(10);
        c.add(b(p < 5 ? streamMs + "-" + (streamSeq + r.nextInt(3)) : p < 8 ? someId() : pick(ID_EDGES)));
        List<List<byte[]>> opts = new ArrayList<>();
        if (r.nextInt(3) == 0) {
            opts.add(args("ENTRIESADDED", r.nextInt(4) != 0 ? Integer.toString(r.nextInt(400))
                    : pick(new String[] {"-1", "0", "9223372036854775807", "18446744073709551615", "abc"})));
        }
        if (r.nextInt(3) == 0) {
            opts.add(args("MAXDELETEDID", someId()));
        }
        if (r.nextInt(20) == 0) {
            opts.add(args(pick(new String[] {"ENTRIESADDED", "MAXDELETEDID", "FOO"})));
        }
        Collections.shuffle(opts, r);
        opts.forEach(c::addAll);
        return c;
    }

    /** The ID a group starts from, or is set to. */
    private String groupId() {
        int p = r.nextInt(10);
        return p < 3 ? "$" : p < 5 ? "0" : p < 8 ? recentId() : p < 9 ? pick(ID_EDGES) : pick(ID_WEIRD);
    }

    private List<byte[]> entriesRead() {
        return r.nextInt(4) != 0 ? List.of() : args("ENTRIESREAD", pick(new String[] {"0", "1", "3", "10", "100",
            "-1", "-2", "9223372036854775807", "abc", "18446744073709551615"}));
    }

    private List<byte[]> xgroup() {
        byte[] k = streamKey();
        String g = group();
        int p = r.nextInt(100);
        if (p < 32) {
            return args("XGROUP", pickCase("CREATE"), k, g, groupId(), r.nextInt(3) == 0 ? args("MKSTREAM")
                    : List.of(), entriesRead());
        }
        if (p < 47) {
            return args("XGROUP", pickCase("SETID"), k, g, groupId(), entriesRead());
        }
        if (p < 57) {
            return args("XGROUP", pickCase("DESTROY"), k, g);
        }
        if (p < 74) {
            return args("XGROUP", pickCase("CREATECONSUMER"), k, g, pick(CONSUMERS));
        }
        if (p < 88) {
            return args("XGROUP", pickCase("DELCONSUMER"), k, g, pick(CONSUMERS));
        }
        if (p < 92) {
            return args("XGROUP", "HELP");
        }
        return args("XGROUP", pick(new String[] {"FOO", "CREATE", "SETID", "create", ""}), k);
    }

    /** XREAD or XREADGROUP, never with BLOCK (see {@link #blocking}): COUNT, NOACK, one to three streams. */
    private List<byte[]> xread(String name) {
        boolean group = name.equals("xreadgroup");
        List<byte[]> c = args(name.toUpperCase(Locale.ROOT));
        List<List<byte[]>> opts = new ArrayList<>();
        if (group) {
            opts.add(args("GROUP", group(), pick(CONSUMERS)));
            if (r.nextInt(4) == 0) {
                opts.add(args("NOACK"));
            }
        }
        if (r.nextInt(3) == 0) {
            opts.add(args("COUNT", streamCount()));
        }
        if (r.nextInt(25) == 0) {
            opts.add(args(pick(new String[] {"FOO", "GROUP", "COUNT"})));
        }
        Collections.shuffle(opts, r);
        opts.forEach(c::addAll);
        c.add(b("STREAMS"));
        int n = r.nextInt(4) == 0 ? 2 + r.nextInt(2) : 1;
        for (int i = 0; i < n; i++) {
            c.add(streamKey());
        }
        for (int i = 0; i < n; i++) {
            int p = r.nextInt(100);
            c.add(b(group && p < 60 ? ">" : p < 75 ? "0" : p < 80 ? "$" : p < 95 ? recentId()
                    : pick(r.nextBoolean() ? ID_EDGES : ID_WEIRD)));
        }
        if (r.nextInt(20) == 0) {
            c.remove(c.size() - 1); // keys and IDs unbalanced
        }
        return c;
    }

    /** A min-idle-time: 0 (every pending entry), or an hour (only those set idle for a day or more by IDLE/TIME). */
    private String minIdle() {
        return r.nextInt(12) != 0 ? pick(new String[] {"0", "0", "0", "3600000"})
                : pick(new String[] {"-1", "abc", "9223372036854775807", ""});
    }

    private List<byte[]> xpending() {
        List<byte[]> c = args("XPENDING", streamKey(), group());
        if (r.nextInt(5) < 2) {
            return c; // the summary
        }
        if (r.nextInt(3) == 0) {
            c.addAll(args("IDLE", minIdle()));
        }
        c.addAll(args(rangeBound(true), rangeBound(false), streamCount()));
        if (r.nextInt(3) == 0) {
            c.add(b(pick(CONSUMERS)));
        }
        return c;
    }

    private List<byte[]> xclaim() {
        List<byte[]> c = args("XCLAIM", streamKey(), group(), pick(CONSUMERS), minIdle());
        int n = 1 + r.nextInt(3);
        for (int i = 0; i < n; i++) {
            c.add(b(dashedId()));
        }
        List<List<byte[]>> opts = new ArrayList<>();
        if (r.nextInt(4) == 0) {
            opts.add(args("IDLE", pick(new String[] {"0", "86400000", "100000000000", "-1", "abc"})));
        }
        if (r.nextInt(6) == 0) {
            opts.add(args("TIME", pick(new String[] {"0", "1", "1000000000000", "4102444800000", "-1",
                "9223372036854775807"})));
        }
        if (r.nextInt(5) == 0) {
            opts.add(args("RETRYCOUNT", pick(new String[] {"0", "1", "7", "-1", "9223372036854775807", "abc"})));
        }
        if (r.nextInt(4) == 0) {
            opts.add(args("FORCE"));
        }
        if (r.nextInt(3) == 0) {
            opts.add(args("JUSTID"));
        }
        if (r.nextInt(6) == 0) {
            opts.add(args("LASTID", dashedId()));
        }
        if (r.nextInt(25) == 0) {
            opts.add(args(pick(new String[] {"FOO", "IDLE", "TIME"})));
        }
        Collections.shuffle(opts, r);
        opts.forEach(c::addAll);
        return c;
    }

    private List<byte[]> xautoclaim() {
        List<byte[]> c = args("XAUTOCLAIM", streamKey(), group(), pick(CONSUMERS), minIdle(),
                r.nextInt(3) == 0 ? "0-0" : r.nextInt(5) == 0 ? rangeBound(true) : dashedId());
        List<List<byte[]>> opts = new ArrayList<>();
        if (r.nextInt(2) == 0) {
            opts.add(args("COUNT", streamCount()));
        }
        if (r.nextInt(3) == 0) {
            opts.add(args("JUSTID"));
        }
        Collections.shuffle(opts, r);
        opts.forEach(c::addAll);
        return c;
    }

    private List<byte[]> xinfo() {
        byte[] k = streamKey();
        int p = r.nextInt(100);
        if (p < 30) {
            return args("XINFO", pickCase("STREAM"), k);
        }
        if (p < 50) {
            List<byte[]> c = args("XINFO", "STREAM", k, pickCase("FULL"));
            if (r.nextBoolean()) {
                c.addAll(args("COUNT", streamCount()));
            }
            return c;
        }
        if (p < 70) {
            return args("XINFO", pickCase("GROUPS"), k);
        }
        if (p < 90) {
            return args("XINFO", pickCase("CONSUMERS"), k, group());
        }
        if (p < 93) {
            return args("XINFO", "HELP");
        }
        return args("XINFO", pick(new String[] {"FOO", "STREAM", "CONSUMERS", "stream"}), k, b(pick(WORDS)));
    }

    /**
     * XADD never with an ID made from the clock: no argument is {@code *} or {@code <ms>-*} (a mutation could
     * otherwise move a value where the ID is read).
     */
    private static List<byte[]> noClockIds(List<byte[]> c) {
        List<byte[]> out = new ArrayList<>(c);
        for (int i = 1; i < out.size(); i++) {
            String a = Commands.s(out.get(i));
            if (a.equals("*") || a.endsWith("-*")) {
                out.set(i, b("star"));
            }
        }
        return out;
    }

    // ---- grammars -----------------------------------------------------------------------------------------------

    private List<byte[]> hello() {
        List<byte[]> c = new ArrayList<>(List.of(b("HELLO")));
        int p = r.nextInt(10);
        if (p == 0) {
            return c;
        }
        if (p == 1) {
            c.add(b(pick(new String[] {"4", "1", "0", "-1", "x", "", "2.0", "03", "+3", " 3", "99999999999"})));
            return c;
        }
        c.add(b(Integer.toString(protocol)));
        List<List<byte[]>> opts = new ArrayList<>();
        if (r.nextBoolean()) {
            opts.add(List.of(b("SETNAME"), clientName()));
        }
        if (r.nextInt(3) == 0) {
            opts.add(List.of(b("AUTH"), b(pick(new String[] {"default", "default", "nobody"})), value()));
        }
        if (r.nextInt(8) == 0) {
            opts.add(List.of(b(pick(new String[] {"FOO", "SETNAME", "AUTH", "setname"}))));
        }
        if (r.nextInt(8) == 0 && !opts.isEmpty()) {
            opts.add(opts.get(0));
        }
        Collections.shuffle(opts, r);
        opts.forEach(c::addAll);
        return c;
    }

    private List<byte[]> auth() {
        return switch (r.nextInt(5)) {
            case 0 -> args("AUTH", value());
            case 1 -> args("AUTH", b("default"), value());
            case 2 -> args("AUTH", b("nobody"), value());
            case 3 -> args("AUTH", value(), value(), value());
            default -> args("AUTH", b("default"), b(""));
        };
    }

    private byte[] clientName() {
        return b(pick(new String[] {"fuzz", "a", "", "a b", "x\ny", "name-" + r.nextInt(5), "é", "n".repeat(300),
                "\u0001", "ok_name:1"}));
    }

    private List<byte[]> info() {
        List<byte[]> c = new ArrayList<>(List.of(b("INFO")));
        int n = r.nextInt(3);
        for (int i = 0; i < n; i++) {
            c.add(b(pick(new String[] {"server", "clients", "stats", "replication", "persistence", "keyspace",
                    "memory", "cpu", "all", "everything", "default", "foo", "SERVER", "", "commandstats"})));
        }
        return c;
    }

    private List<byte[]> waitCommand() {
        return switch (r.nextInt(6)) {
            case 0 -> args("WAIT", b("0"), b("0"));
            case 1 -> args("WAIT", b(Integer.toString(r.nextInt(3))), b(Integer.toString(1 + r.nextInt(20))));
            case 2 -> args("WAIT", b("x"), b("0"));
            case 3 -> args("WAIT", b("0"), b(pick(new String[] {"-1", "abc", "1.5", "-9223372036854775808"})));
            case 4 -> args("WAIT", b("-1"), b("5"));
            default -> args("WAIT", b("0"));
        };
    }

    private List<byte[]> client(Cmd spec) {
        String sub = subcommand(spec, CLIENT_SAFE);
        List<byte[]> c = new ArrayList<>(List.of(b("CLIENT"), b(pickCase(sub))));
        switch (sub.toLowerCase(Locale.ROOT)) {
            case "setname" -> c.add(clientName());
            case "list" -> {
                int p = r.nextInt(6);
                if (p == 0) {
                    c.addAll(List.of(b("TYPE"), b(pick(new String[] {"normal", "master", "replica", "slave",
                            "pubsub", "foo", "NORMAL"}))));
                } else if (p == 1) {
                    c.addAll(List.of(b("ID"), b(pick(new String[] {"1", "abc", "0", "-1", "99999"}))));
                } else if (p == 2) {
                    c.add(b(pick(WORDS)));
                }
            }
            case "id", "getname", "info", "help" -> {
                if (r.nextInt(10) == 0) {
                    c.add(token());
                }
            }
            default -> {
                int n = r.nextInt(3);
                for (int i = 0; i < n; i++) {
                    c.add(token());
                }
            }
        }
        return c;
    }

    private List<byte[]> config(Cmd spec) {
        String sub = subcommand(spec, null);
        List<byte[]> c = new ArrayList<>(List.of(b("CONFIG"), b(pickCase(sub))));
        switch (sub.toLowerCase(Locale.ROOT)) {
            case "get" -> {
                int n = r.nextInt(8) == 0 ? r.nextInt(4) : 1;
                for (int i = 0; i < n; i++) {
                    c.add(b(r.nextInt(3) == 0 || configParams.isEmpty()
                            ? pick(new String[] {"*", "max*", "*-*", "nosuch", "", "MAXCLIENTS", "p?rt", "[mp]*",
                                    "min-replicas-*", "*a*a*a*a*a*a*a*a*a*a*a*a*a*b"})
                            : pick(configParams)));
                }
            }
            case "set" -> {
                int n = r.nextInt(6) == 0 ? 2 : 1;
                for (int i = 0; i < n; i++) {
                    c.addAll(harmlessSetting());
                }
                if (r.nextInt(15) == 0) {
                    c.remove(c.size() - 1); // a name without its value
                }
            }
            default -> {
                if (r.nextInt(10) == 0) {
                    c.add(token());
                }
            }
        }
        return c;
    }

    /** A parameter and value that cannot lock the fuzzer out, refuse writes, or stop a node. */
    private List<byte[]> harmlessSetting() {
        return switch (r.nextInt(7)) {
            case 0 -> args("maxclients", b(pick(new String[] {"10000", "5000", "1000", "abc", "-1", "0",
                    "10000 "})));
            // only Redis' 512 MB or a refusal: Tandem's string and bit-offset bounds are 512 MiB whatever
            // proto-max-bulk-len says (a departure), and above it Redis would build strings that large
            case 1 -> args("proto-max-bulk-len", b(pick(new String[] {"536870912", "512mb", "abc", "1kb"})));
            case 2 -> args("min-replicas-max-lag", b(pick(new String[] {"10", "0", "5", "-1", "abc",
                    "2147483648"})));
            case 3 -> args("min-replicas-to-write", b(pick(new String[] {"0", "abc", "-1"})));
            case 4 -> args(pick(new String[] {"nosuch-param", ""}), b("1"));
            case 5 -> args("MAXCLIENTS", b("10000"));
            default -> args("maxclients", b("10000"));
        };
    }

    private List<byte[]> commandCommand(Cmd spec) {
        if (r.nextInt(6) == 0) {
            return args("COMMAND");
        }
        String sub = subcommand(spec, null);
        List<byte[]> c = new ArrayList<>(List.of(b("COMMAND"), b(pickCase(sub))));
        switch (sub.toLowerCase(Locale.ROOT)) {
            case "info", "docs" -> {
                int n = r.nextInt(4);
                for (int i = 0; i < n; i++) {
                    c.add(b(r.nextInt(4) == 0 ? pick(new String[] {"nosuch", "client|id", "CLIENT", "config|get",
                            "lpush", ""}) : pick(names)));
                }
            }
            case "list", "count", "help" -> {
                if (r.nextInt(10) == 0) {
                    c.add(token());
                }
            }
            default -> {
            }
        }
        return c;
    }

    private List<byte[]> flush(String name) {
        return switch (r.nextInt(8)) {
            case 0 -> args(name, b("ASYNC"));
            case 1 -> args(name, b("SYNC"));
            case 2 -> args(name, b(pick(new String[] {"FOO", "async", ""})));
            case 3 -> args(name, b("SYNC"), b("ASYNC"));
            default -> args(name);
        };
    }

    private List<byte[]> set() {
        List<byte[]> c = new ArrayList<>(List.of(b("SET"), key(), value()));
        List<List<byte[]>> opts = new ArrayList<>();
        int n = r.nextInt(4) == 0 ? r.nextInt(4) : r.nextInt(2);
        for (int i = 0; i < n; i++) {
            opts.add(switch (r.nextInt(10)) {
                case 0 -> args("NX");
                case 1 -> args("XX");
                case 2 -> args("GET");
                case 3 -> args("EX", b(relSeconds(false)));
                case 4 -> args("PX", b(relMillis(false)));
                case 5 -> args("EXAT", b(absSeconds(false)));
                case 6 -> args("PXAT", b(absMillis(false)));
                case 7 -> args("KEEPTTL");
                case 8 -> args(pick(new String[] {"nx", "Get", "FOO", "EX", "PX"})); // lower case, unknown, bare
                default -> args("GET");
            });
        }
        if (r.nextInt(10) == 0 && !opts.isEmpty()) {
            opts.add(opts.get(r.nextInt(opts.size()))); // repeated
        }
        Collections.shuffle(opts, r);
        opts.forEach(c::addAll);
        return c;
    }

    private List<byte[]> getex() {
        List<byte[]> c = new ArrayList<>(List.of(b("GETEX"), key()));
        int n = r.nextInt(5) == 0 ? 2 : r.nextInt(2);
        for (int i = 0; i < n; i++) {
            c.addAll(switch (r.nextInt(6)) {
                case 0 -> args("EX", b(relSeconds(false)));
                case 1 -> args("PX", b(relMillis(false)));
                case 2 -> args("EXAT", b(absSeconds(true)));
                case 3 -> args("PXAT", b(absMillis(true)));
                case 4 -> args("PERSIST");
                default -> args(pick(new String[] {"FOO", "EX", "persist"}));
            });
        }
        return c;
    }

    private List<byte[]> mset(String name) {
        List<byte[]> c = new ArrayList<>(List.of(b(name)));
        int n = 1 + r.nextInt(4);
        for (int i = 0; i < n; i++) {
            c.add(key());
            c.add(value());
        }
        if (r.nextInt(12) == 0) {
            c.remove(c.size() - 1); // odd: wrong number of arguments
        }
        return c;
    }

    private List<byte[]> setrange() {
        return switch (r.nextInt(12)) {
            case 0 -> args("SETRANGE", key(), b("536870911"), b(""));
            case 1 -> args("SETRANGE", key(), b(pick(new String[] {"536870912", "536870911", "-1", "abc",
                    "9223372036854775807", "-9223372036854775808", "4294967296"})), b("ab"));
            case 2 -> args("SETRANGE", key(), b(Integer.toString(r.nextInt(100_000))), value());
            case 3 -> args("SETRANGE", key(), b(Integer.toString(r.nextInt(40))), b(""));
            default -> args("SETRANGE", key(), b(Integer.toString(r.nextInt(40))), value());
        };
    }

    private List<byte[]> expire(String name, String when) {
        List<byte[]> c = new ArrayList<>(List.of(b(name), key(), b(when)));
        int n = r.nextInt(4) == 0 ? 1 + r.nextInt(2) : 0;
        for (int i = 0; i < n; i++) {
            c.add(b(pick(new String[] {"NX", "XX", "GT", "LT", "nx", "gt", "FOO"})));
        }
        return c;
    }

    private List<byte[]> scan() {
        List<byte[]> c = new ArrayList<>(List.of(b("SCAN"), b(r.nextInt(3) == 0 ? "0" : pick(new String[] {"0",
                "1", "7", "abc", "-1", "18446744073709551615", "18446744073709551616", "", "1.5", "00"}))));
        scanOptions(c, true);
        return c;
    }

    private void scanOptions(List<byte[]> c, boolean type) {
        List<List<byte[]>> opts = new ArrayList<>();
        int n = r.nextInt(3);
        for (int i = 0; i < n; i++) {
            int p = r.nextInt(type ? 4 : 3);
            opts.add(switch (p) {
                case 0 -> args("MATCH", b(pick(PATTERNS)));
                case 1 -> args("COUNT", b(pick(new String[] {"1", "5", "10", "100", "0", "-1", "abc",
                        "9223372036854775807", "2147483648"})));
                case 2 -> args(pick(new String[] {"FOO", "MATCH", "COUNT", "match"}));
                default -> args("TYPE", b(pick(TYPES)));
            });
        }
        Collections.shuffle(opts, r);
        opts.forEach(c::addAll);
    }

    private List<byte[]> hscan() {
        List<byte[]> c = new ArrayList<>(List.of(b("HSCAN"), key(), b(r.nextInt(3) == 0 ? "0" : pick(new String[] {
                "0", "1", "abc", "-1", "18446744073709551616", ""}))));
        scanOptions(c, false);
        return c;
    }

    private List<byte[]> copy() {
        List<byte[]> c = new ArrayList<>(List.of(b("COPY"), key(), key()));
        if (r.nextBoolean()) {
            c.add(b("REPLACE"));
        }
        if (r.nextInt(5) == 0) {
            c.addAll(args("DB", database()));
        }
        return c;
    }

    /** A database argument: mostly 0 to 3, the databases compared at an episode's end; sometimes out of range. */
    private byte[] database() {
        return b(r.nextInt(6) == 0 ? pick(new String[] {"16", "-1", "abc", "99999999999", "2147483648", ""})
                : Integer.toString(r.nextInt(4)));
    }

    private List<byte[]> hset(String name) {
        List<byte[]> c = new ArrayList<>(List.of(b(name), key()));
        int n = r.nextInt(50) == 0 ? 100 + r.nextInt(1500) : 1 + r.nextInt(4); // past 128 fields: HSCAN pages
        bigHash = n > 4 ? n : 0;
        for (int i = 0; i < n; i++) {
            c.add(field());
            c.add(value());
        }
        if (r.nextInt(12) == 0) {
            c.remove(c.size() - 1);
        }
        return c;
    }

    private List<byte[]> hrandfield() {
        return switch (r.nextInt(4)) {
            case 0 -> args("HRANDFIELD", key());
            case 1 -> args("HRANDFIELD", key(), b(pick(new String[] {"1", "3", "-3", "0", "100", "-100", "abc"})));
            case 2 -> args("HRANDFIELD", key(), b(pick(new String[] {"2", "-2", "10", "-9223372036854775808",
                    "9223372036854775807"})), b("WITHVALUES"));
            default -> args("HRANDFIELD", key(), b("1"), b("FOO"));
        };
    }

    private List<byte[]> bitcount() {
        return withRange(new ArrayList<>(List.of(b("BITCOUNT"), key())));
    }

    private List<byte[]> bitpos() {
        return withRange(new ArrayList<>(List.of(b("BITPOS"), key(), b(r.nextInt(6) != 0
                ? pick(new String[] {"0", "1"}) : pick(new String[] {"2", "-1", "a"})))));
    }

    /** BITCOUNT's and BITPOS's optional range, {@code [start [end [BYTE | BIT]]]} (or a unit of neither). */
    private List<byte[]> withRange(List<byte[]> c) {
        int p = r.nextInt(5);
        if (p >= 1) {
            c.add(b(index()));
        }
        if (p >= 2) {
            c.add(b(index()));
        }
        if (p >= 3) {
            c.add(b(pick(new String[] {"BYTE", "BIT", "bit", "FOO"})));
        }
        return c;
    }

    private List<byte[]> bitop() {
        String op = pick(new String[] {"AND", "OR", "XOR", "NOT", "and", "FOO"});
        List<byte[]> c = new ArrayList<>(List.of(b("BITOP"), b(op), key()));
        c.addAll(keys(op.equalsIgnoreCase("NOT") && r.nextInt(4) != 0 ? 1 : 1 + r.nextInt(3)));
        return c;
    }

    private List<byte[]> bitfield(String name) {
        List<byte[]> c = new ArrayList<>(List.of(b(name), key()));
        int n = 1 + r.nextInt(4);
        boolean ro = name.equals("bitfield_ro");
        for (int i = 0; i < n; i++) {
            int p = ro ? (r.nextInt(6) == 0 ? 1 : 0) : r.nextInt(5);
            switch (p) {
                case 0 -> c.addAll(args("GET", b(bitType()), b(bitfieldOffset(false))));
                case 1 -> c.addAll(args("SET", b(bitType()), b(bitfieldOffset(true)), b(intArg())));
                case 2 -> c.addAll(args("INCRBY", b(bitType()), b(bitfieldOffset(true)), b(intArg())));
                case 3 -> c.addAll(args("OVERFLOW", b(r.nextInt(10) != 0 ? pick(new String[] {"WRAP", "SAT", "FAIL",
                        "fail"}) : "FOO")));
                default -> c.addAll(r.nextInt(4) != 0 ? args("GET", b(bitType()), b(bitfieldOffset(false)))
                        : args(pick(new String[] {"GET", "FOO", "SET", "OVERFLOW"})));
            }
        }
        return c;
    }

    private String bitType() {
        return r.nextInt(12) != 0 ? pick(new String[] {"i1", "i8", "u8", "i16", "u16", "i32", "u32", "i63", "i64",
                "u63", "u1", "i5", "u7"}) : pick(new String[] {"u64", "i65", "i0", "u0", "x8", "I8", "8", "", "i"});
    }

    private String bitfieldOffset(boolean write) {
        int p = r.nextInt(20);
        if (p < 12) {
            return Integer.toString(r.nextInt(200));
        }
        if (p < 17) {
            return "#" + r.nextInt(30);
        }
        if (p < 19) {
            return Integer.toString(r.nextInt(100_000));
        }
        return pick(write ? new String[] {"-1", "abc", "#-1", "4294967296", "#", "1.5"}
                : new String[] {"-1", "abc", "4294967295", "4294967296", "#4294967295", "#"});
    }

    private String bitOffset(boolean write) {
        int p = r.nextInt(10);
        if (p < 6) {
            return Integer.toString(r.nextInt(200));
        }
        if (p < 8) {
            return Integer.toString(r.nextInt(80_000));
        }
        return pick(write ? new String[] {"-1", "abc", "4294967296", "1.5", "9223372036854775807"}
                : new String[] {"-1", "abc", "4294967295", "4294967296", "9223372036854775807"});
    }

    private List<byte[]> lcs() {
        List<byte[]> c = new ArrayList<>(List.of(b("LCS"), key(), key()));
        List<List<byte[]>> opts = new ArrayList<>();
        int n = r.nextInt(4);
        for (int i = 0; i < n; i++) {
            opts.add(switch (r.nextInt(5)) {
                case 0 -> args("LEN");
                case 1 -> args("IDX");
                case 2 -> args("MINMATCHLEN", b(pick(new String[] {"0", "1", "2", "4", "-1", "abc",
                        "9223372036854775807"})));
                case 3 -> args("WITHMATCHLEN");
                default -> args(pick(new String[] {"FOO", "MINMATCHLEN"}));
            });
        }
        Collections.shuffle(opts, r);
        opts.forEach(c::addAll);
        return c;
    }

    private List<byte[]> object(Cmd spec) {
        String sub = subcommand(spec, null);
        List<byte[]> c = new ArrayList<>(List.of(b("OBJECT"), b(pickCase(sub))));
        if (!sub.equalsIgnoreCase("help") || r.nextInt(10) == 0) {
            c.add(key());
        }
        if (r.nextInt(15) == 0) {
            c.add(token());
        }
        return c;
    }

    private List<byte[]> memory(Cmd spec) {
        String sub = subcommand(spec, null);
        List<byte[]> c = new ArrayList<>(List.of(b("MEMORY"), b(pickCase(sub))));
        if (sub.equalsIgnoreCase("usage")) {
            c.add(key());
            if (r.nextInt(4) == 0) {
                c.addAll(args("SAMPLES", b(pick(new String[] {"0", "5", "-1", "abc", "9223372036854775807"}))));
            }
        } else if (r.nextInt(10) == 0) {
            c.add(token());
        }
        return c;
    }

    // ---- lists, sets, sorted sets --------------------------------------------------------------------------------

    private List<byte[]> push(String name, boolean big) {
        List<byte[]> c = new ArrayList<>(List.of(b(name), key(LIST)));
        int p = r.nextInt(60);
        if (p == 0 && big) {
            c.addAll(many(130 + r.nextInt(470))); // past 128 and (one time in six) 512 elements
        } else if (p > 1) {
            int n = 1 + r.nextInt(4);
            for (int i = 0; i < n; i++) {
                c.add(element());
            }
        } // p == 1: no element, a wrong arity
        return c;
    }

    /** LPOP, RPOP, ZPOPMIN, ZPOPMAX: a key and perhaps a count. */
    private List<byte[]> pop(String name) {
        List<byte[]> c = new ArrayList<>(List.of(b(name), key(family(name))));
        int p = r.nextInt(20);
        if (p >= 8) {
            c.add(b(popCount()));
        }
        if (p == 19) {
            c.add(b(popCount())); // one too many
        }
        return c;
    }

    private String popCount() {
        return r.nextInt(8) != 0 ? pick(new String[] {"0", "1", "1", "2", "3", "5", "10", "100"})
                : pick(new String[] {"-1", "abc", "", "1.5", "01", "9223372036854775807", "-9223372036854775808",
                        "9223372036854775808"});
    }

    private String side() {
        return r.nextInt(15) != 0 ? pickCase(pick(new String[] {"LEFT", "RIGHT"}))
                : pick(new String[] {"UP", "", "LEFTX", "MIN"});
    }

    private List<byte[]> lpos() {
        List<byte[]> c = new ArrayList<>(List.of(b("LPOS"), key(LIST), element()));
        List<List<byte[]>> opts = new ArrayList<>();
        int n = r.nextInt(4) == 0 ? r.nextInt(4) : r.nextInt(2);
        for (int i = 0; i < n; i++) {
            opts.add(switch (r.nextInt(7)) {
                case 0, 1 -> args("RANK", b(pick(new String[] {"1", "2", "-1", "-2", "3", "0", "abc",
                        "9223372036854775807", "-9223372036854775807", "-9223372036854775808"})));
                case 2, 3 -> args("COUNT", b(pick(new String[] {"0", "1", "2", "5", "-1", "abc",
                        "9223372036854775807"})));
                case 4, 5 -> args("MAXLEN", b(pick(new String[] {"0", "1", "2", "10", "-1", "abc"})));
                default -> args(pick(new String[] {"RANK", "COUNT", "MAXLEN", "FOO", "rank"}));
            });
        }
        if (r.nextInt(10) == 0 && !opts.isEmpty()) {
            opts.add(opts.get(0)); // repeated: the last one counts
        }
        Collections.shuffle(opts, r);
        opts.forEach(c::addAll);
        return c;
    }

    /** LMPOP and ZMPOP: numkeys (now and then wrong), the keys, the side, perhaps COUNT. */
    private List<byte[]> mpop(String name, String first, String last) {
        int k = 1 + r.nextInt(3);
        String numkeys = r.nextInt(10) != 0 ? Integer.toString(k)
                : pick(new String[] {"0", "-1", "abc", Integer.toString(k + 1), Integer.toString(k - 1),
                        "2147483648"});
        List<byte[]> c = new ArrayList<>(List.of(b(name), b(numkeys)));
        c.addAll(keys(family(name), k));
        c.add(b(r.nextInt(15) != 0 ? pickCase(pick(new String[] {first, last})) : pick(new String[] {"MIDDLE", "",
                "LEFT", "MIN"})));
        if (r.nextBoolean()) {
            c.addAll(args("COUNT", b(r.nextInt(8) != 0 ? pick(new String[] {"1", "2", "3", "10", "100",
                    "9223372036854775807"}) : pick(new String[] {"0", "-1", "abc"}))));
        }
        if (r.nextInt(15) == 0) {
            c.add(b(pick(new String[] {"COUNT", "FOO", "count"})));
        }
        return c;
    }

    private List<byte[]> sadd() {
        List<byte[]> c = new ArrayList<>(List.of(b("SADD"), key(SET)));
        int p = r.nextInt(60);
        if (p == 0) {
            c.addAll(many(130 + r.nextInt(470))); // integers past 512 members: an intset turns into a hashtable
        } else if (p > 1) {
            boolean integers = r.nextInt(3) == 0; // an intset
            int n = 1 + r.nextInt(4);
            for (int i = 0; i < n; i++) {
                c.add(integers ? b(pick(new String[] {"0", "1", "2", "3", "5", "10", "-1", "9223372036854775807",
                        "-9223372036854775808", Integer.toString(r.nextInt(700))})) : member());
            }
        }
        return c;
    }

    /**
     * SPOP only in forms whose answer and effect do not depend on a random choice, which would make the two
     * keyspaces differ: a count larger than any set the generator builds (at most about 1,500 members: {@link
     * #member()}, {@link #many}) pops everything, count 0 pops nothing, a key no command writes holds nothing, and a
     * bad count or an extra argument is refused whatever the key holds. Never mutated ({@link #mutable}).
     */
    private List<byte[]> spop() {
        return switch (r.nextInt(10)) {
            case 0, 1, 2, 3 -> args("SPOP", key(SET), b(pick(new String[] {"10000", "100000", "2147483648",
                    "9223372036854775807"})));
            case 4 -> args("SPOP", key(SET), b("0"));
            case 5 -> args("SPOP", b("spop:none"));
            case 6 -> args("SPOP", b("spop:none"), b(popCount()));
            case 7, 8 -> args("SPOP", key(), b(pick(new String[] {"-1", "abc", "", "1.5", "01", "+1", " 1",
                    "-9223372036854775808", "9223372036854775808"})));
            default -> args("SPOP", key(), b(pick(new String[] {"10000", "0", "1"})), b(pick(new String[] {"1",
                    "x"})));
        };
    }

    /**
     * SRANDMEMBER and ZRANDMEMBER. A negative count asks for that many elements with repeats, so counts stay near
     * zero (Redis runs out of memory building {@code SRANDMEMBER k -9223372036854775807}); the edges used are those
     * Redis refuses.
     */
    private List<byte[]> randMember(String name, boolean zset) {
        byte[] k = key(zset ? ZSET : SET);
        return switch (r.nextInt(zset ? 10 : 8)) {
            case 0, 1 -> args(name, k);
            case 2, 3, 4, 5 -> args(name, k, b(pick(new String[] {"1", "2", "3", "-1", "-3", "0", "5", "10", "100",
                    "-100", "abc", "", "1.5", "9223372036854775807", "-9223372036854775808"})));
            case 6 -> args(name, k, b("1"), b(pick(new String[] {"FOO", "WITHSCORES", "withscores"})));
            case 7 -> args(name, k);
            default -> args(name, k, b(pick(new String[] {"2", "-2", "10", "-10", "0", "1",
                    "9223372036854775807", "-9223372036854775808", "4611686018427387904", "-4611686018427387904",
                    "4611686018427387903"})), b(r.nextInt(10) != 0 ? "WITHSCORES" : "FOO"));
        };
    }

    /** SINTERCARD and ZINTERCARD: numkeys, the keys, perhaps LIMIT. */
    private List<byte[]> intercard(String name) {
        int k = 1 + r.nextInt(3);
        List<byte[]> c = new ArrayList<>(List.of(b(name), b(r.nextInt(10) != 0 ? Integer.toString(k)
                : pick(new String[] {"0", "-1", "abc", Integer.toString(k + 1)}))));
        c.addAll(keys(name.startsWith("z") ? SOURCE : SET, k));
        if (r.nextInt(3) == 0) {
            c.addAll(args("LIMIT", b(pick(new String[] {"0", "1", "2", "5", "-1", "abc", "9223372036854775807"}))));
        }
        if (r.nextInt(20) == 0) {
            c.add(b(pick(new String[] {"LIMIT", "FOO"})));
        }
        return c;
    }

    static final String[] MEMBER_PATTERNS = {"*", "a*", "1*", "?", "??", "e:1*", "[0-9]", "*a*", "m:*", "z*", "",
            "[", "\\*", "-*", "*[0-9]", "[a-c]", "e:?"};

    /** SSCAN and ZSCAN: a key, a cursor (mostly 0), MATCH and COUNT in any order. */
    private List<byte[]> memberScan(String name) {
        List<byte[]> c = new ArrayList<>(List.of(b(name), key(family(name)), b(r.nextInt(3) == 0 ? "0"
                : pick(new String[] {"0", "1", "abc", "-1", "18446744073709551615", "18446744073709551616", ""}))));
        List<List<byte[]>> opts = new ArrayList<>();
        int n = r.nextInt(3);
        for (int i = 0; i < n; i++) {
            opts.add(switch (r.nextInt(7)) {
                case 0, 1 -> args("MATCH", b(pick(MEMBER_PATTERNS)));
                case 2, 3 -> args("COUNT", b(pick(new String[] {"1", "5", "10", "100", "1000", "0", "-1", "abc",
                        "9223372036854775807"})));
                case 4 -> args("TYPE", b("set"));
                default -> args(pick(new String[] {"FOO", "MATCH", "COUNT", "NOVALUES"}));
            });
        }
        Collections.shuffle(opts, r);
        opts.forEach(c::addAll);
        return c;
    }

    private List<byte[]> zadd() {
        boolean lex = r.nextInt(4) == 0; // a sorted set for the lex ranges: every score 0
        List<byte[]> c = new ArrayList<>(List.of(b("ZADD"), lex ? lexKey() : key(ZSET)));
        boolean incr = false;
        if (r.nextInt(3) == 0) {
            int n = 1 + r.nextInt(r.nextInt(4) == 0 ? 4 : 2);
            for (int i = 0; i < n; i++) {
                String flag = pick(new String[] {"NX", "XX", "GT", "LT", "CH", "INCR", "nx", "ch", "Incr"});
                incr |= flag.equalsIgnoreCase("incr");
                c.add(b(flag));
            }
        }
        if (r.nextInt(60) == 0) {
            for (byte[] m : many(130 + r.nextInt(200))) { // past 128 members: a skiplist
                c.add(b(lex ? "0" : Integer.toString(r.nextInt(50))));
                c.add(m);
            }
            return c;
        }
        int pairs = incr && r.nextInt(5) != 0 ? 1 : 1 + r.nextInt(3);
        for (int i = 0; i < pairs; i++) {
            c.add(b(lex ? "0" : score()));
            c.add(member());
        }
        if (r.nextInt(15) == 0) {
            c.remove(c.size() - 1); // a score without its member
        }
        return c;
    }

    /** ZRANGE and ZRANGESTORE: by index, BYSCORE or BYLEX, perhaps REV, LIMIT, WITHSCORES, in any order. */
    private List<byte[]> zrange(String name) {
        boolean store = name.equals("zrangestore");
        List<byte[]> c = new ArrayList<>(List.of(b(name)));
        int mode = r.nextInt(3); // 0 by index, 1 BYSCORE, 2 BYLEX
        if (store) {
            c.add(mode == 2 ? lexKey() : key(ZSET)); // a lex key holds scores 0 only
        }
        c.add(mode == 2 ? lexKey() : key(ZSET));
        for (int i = 0; i < 2; i++) {
            c.add(b(mode == 0 ? index() : mode == 1 ? scoreBound() : lexBound()));
        }
        List<List<byte[]>> opts = new ArrayList<>();
        if (mode == 1) {
            opts.add(args(pickCase("BYSCORE")));
        } else if (mode == 2) {
            opts.add(args(pickCase("BYLEX")));
        }
        if (r.nextInt(3) == 0) {
            opts.add(args(pickCase("REV")));
        }
        if (r.nextInt(mode == 0 ? 15 : 3) == 0) {
            opts.add(limit());
        }
        if (r.nextInt(store ? 15 : mode == 2 ? 8 : 2) == 0) {
            opts.add(args(pickCase("WITHSCORES")));
        }
        if (r.nextInt(20) == 0) {
            opts.add(args(pick(new String[] {"FOO", "BYSCORE", "BYLEX", "REV", "LIMIT"})));
        }
        Collections.shuffle(opts, r);
        opts.forEach(c::addAll);
        return c;
    }

    private List<byte[]> limit() {
        return args("LIMIT", b(pick(new String[] {"0", "0", "1", "2", "5", "-1", "abc", "9223372036854775807"})),
                b(pick(new String[] {"1", "2", "3", "10", "-1", "0", "abc", "9223372036854775807"})));
    }

    private List<byte[]> zrevrange() {
        List<byte[]> c = new ArrayList<>(List.of(b("ZREVRANGE"), key(ZSET), b(index()), b(index())));
        int p = r.nextInt(20);
        if (p < 10) {
            c.add(b(pickCase("WITHSCORES")));
        } else if (p == 10) {
            c.add(b(pick(new String[] {"FOO", "LIMIT", "REV"})));
        }
        return c;
    }

    /** ZRANGEBYSCORE, ZREVRANGEBYSCORE, ZRANGEBYLEX, ZREVRANGEBYLEX. */
    private List<byte[]> rangeBy(String name, boolean byScore) {
        List<byte[]> c = new ArrayList<>(List.of(b(name), byScore ? key(ZSET) : lexKey()));
        for (int i = 0; i < 2; i++) {
            c.add(b(byScore ? scoreBound() : lexBound()));
        }
        List<List<byte[]>> opts = new ArrayList<>();
        if (r.nextInt(byScore ? 2 : 10) == 0) {
            opts.add(args(pickCase("WITHSCORES")));
        }
        if (r.nextInt(3) == 0) {
            opts.add(limit());
        }
        if (r.nextInt(20) == 0) {
            opts.add(args(pick(new String[] {"FOO", "LIMIT", "BYSCORE"})));
        }
        Collections.shuffle(opts, r);
        opts.forEach(c::addAll);
        return c;
    }

    /** ZUNION, ZINTER, ZDIFF and their STORE forms: numkeys, the keys, WEIGHTS, AGGREGATE, WITHSCORES. */
    private List<byte[]> zsetOperation(String name) {
        boolean store = name.endsWith("store");
        boolean diff = name.startsWith("zdiff");
        List<byte[]> c = new ArrayList<>(List.of(b(name)));
        if (store) {
            c.add(key(ZSET));
        }
        int k = 1 + r.nextInt(3);
        c.add(b(r.nextInt(10) != 0 ? Integer.toString(k) : pick(new String[] {"0", "-1", "abc",
                Integer.toString(k + 1), "2147483648"})));
        c.addAll(keys(SOURCE, k));
        List<List<byte[]>> opts = new ArrayList<>();
        if (r.nextInt(diff ? 20 : 3) == 0) {
            List<byte[]> w = new ArrayList<>(List.of(b("WEIGHTS")));
            int n = r.nextInt(8) != 0 ? k : k + (r.nextBoolean() ? 1 : -1);
            for (int i = 0; i < n; i++) {
                w.add(b(r.nextInt(4) != 0 ? pick(new String[] {"1", "2", "0", "-1", "0.5", "3"})
                        : pick(new String[] {"inf", "-inf", "abc", "nan", "1e308", "-0", "", "1.5e-300"})));
            }
            opts.add(w);
        }
        if (r.nextInt(diff ? 20 : 3) == 0) {
            opts.add(r.nextInt(12) != 0 ? args("AGGREGATE", b(pick(new String[] {"SUM", "MIN", "MAX", "sum",
                    "max", "FOO"}))) : args("AGGREGATE"));
        }
        if (r.nextInt(store ? 20 : 2) == 0) {
            opts.add(args(pickCase("WITHSCORES")));
        }
        if (r.nextInt(20) == 0) {
            opts.add(args(pick(new String[] {"FOO", "LIMIT", "WEIGHTS"})));
        }
        Collections.shuffle(opts, r);
        opts.forEach(c::addAll);
        return c;
    }

    /** BY patterns: without '*' (nosort) or naming keys of the pool by the elements ("1" → k1, key:1). */
    static final String[] SORT_BY = {"nosort", "NOSORT", "nokey", "k*", "key:*", "k*->f0", "key:*->f1", "*",
            "nokey_*", "k*->"};
    static final String[] SORT_GET = {"#", "#", "k*", "key:*", "k*->f0", "key:*->f1", "*", "nokey_*", "k0", "->"};

    /**
     * SORT and SORT_RO: BY, LIMIT, GET, ASC/DESC, ALPHA and STORE in any order. Never ALPHA with a BY pattern that
     * has a '*': equal weights (missing keys) leave the order to Redis' qsort. With STORE, GET is only '#': the
     * stored list then holds elements of lists and sets only, which never have a NUL byte (ALPHA compares with
     * strcoll, which stops at the first NUL, and would leave the order of such elements to qsort too).
     */
    private List<byte[]> sort(String name) {
        boolean ro = name.equals("sort_ro");
        List<byte[]> c = new ArrayList<>(List.of(b(name), key(SORTABLE)));
        List<List<byte[]>> opts = new ArrayList<>();
        boolean store = r.nextInt(ro ? 30 : 4) == 0; // SORT_RO … STORE: a syntax error
        boolean patternBy = false;
        if (r.nextInt(3) == 0) {
            String by = pick(SORT_BY);
            patternBy = by.contains("*");
            opts.add(args("BY", b(by)));
        }
        if (r.nextInt(4) == 0) {
            opts.add(limit());
        }
        int gets = r.nextInt(4) == 0 ? 1 + r.nextInt(2) : 0;
        for (int i = 0; i < gets; i++) {
            opts.add(args("GET", b(store ? "#" : pick(SORT_GET))));
        }
        if (r.nextInt(4) == 0) {
            opts.add(args(pick(new String[] {"ASC", "DESC", "desc"})));
        }
        if (!patternBy && r.nextInt(3) == 0) {
            opts.add(args(pickCase("ALPHA")));
        }
        if (store) {
            opts.add(args("STORE", key(LIST)));
        }
        if (r.nextInt(20) == 0) {
            opts.add(args(pick(new String[] {"FOO", "LIMIT", "BY", "GET", "STORE"})));
        }
        Collections.shuffle(opts, r);
        opts.forEach(c::addAll);
        return c;
    }

    /** A subcommand of {@code spec} (restricted to {@code allowed} when given), now and then an unknown one. */
    private String subcommand(Cmd spec, Set<String> allowed) {
        if (spec == null || r.nextInt(25) == 0) {
            return pick(new String[] {"NOSUCH", "x", ""});
        }
        List<String> subs = new ArrayList<>();
        for (String s : spec.subcommands().keySet()) {
            if (allowed == null || allowed.contains(s)) {
                subs.add(s);
            }
        }
        return subs.isEmpty() ? "help" : pick(subs);
    }

    /** A command this generator has no grammar for: its arity from COMMAND (now and then one off), any arguments. */
    private List<byte[]> generic(Cmd spec) {
        List<byte[]> c = new ArrayList<>(List.of(b(spec.name())));
        Cmd target = spec;
        if (!spec.subcommands().isEmpty()) {
            String sub = subcommand(spec, null);
            c.add(b(sub));
            target = spec.subcommands().getOrDefault(sub.toLowerCase(Locale.ROOT), spec);
        }
        int arity = target.arity();
        int n = arity > 0 ? arity : -arity + (r.nextInt(3) == 0 ? r.nextInt(4) : 0);
        if (r.nextInt(10) == 0) {
            n += r.nextBoolean() ? 1 : -1;
        }
        while (c.size() < n) {
            c.add(c.size() == 1 || r.nextInt(3) == 0 ? key() : token());
        }
        return c;
    }

    // ---- raw input ----------------------------------------------------------------------------------------------

    /** Names never sent inline: they change the state of the connection, which a raw step opens for itself only. */
    private static final Set<String> NOT_INLINE = Set.of("multi", "exec", "discard", "watch", "unwatch", "hello",
            "auth", "client", "quit", "select", "wait");

    /**
     * Raw bytes: mostly an inline command (quoted as redis-cli would, with odd spacing and line ends), otherwise a
     * malformed or unusual RESP request. Never a NUL in an inline request (a documented departure).
     */
    private Step raw() {
        if (r.nextInt(10) < 6) {
            for (int attempt = 0; attempt < 20; attempt++) {
                List<byte[]> c = command(false);
                String n = Commands.name(c);
                if (NOT_INLINE.contains(n) || Compare.rule(c) != Rule.EXACT || !inlineable(c)) {
                    continue;
                }
                return Step.raw(inline(c), c);
            }
        }
        return Step.raw(malformed(), null);
    }

    private static boolean inlineable(List<byte[]> c) {
        int total = 0;
        for (byte[] a : c) {
            total += a.length;
            for (byte x : a) {
                if (x == 0) {
                    return false;
                }
            }
        }
        return total < 4000 && c.get(0).length > 0;
    }

    private byte[] inline(List<byte[]> c) {
        StringBuilder sb = new StringBuilder(r.nextInt(8) == 0 ? "  " : "");
        for (byte[] a : c) {
            if (!sb.isEmpty() && !sb.toString().isBlank()) {
                sb.append(r.nextInt(10) == 0 ? " \t " : " ").append(r.nextInt(10) == 0 ? " " : "");
            }
            String plain = Commands.s(a);
            if (!plain.isEmpty() && plain.matches("[A-Za-z0-9_.:*?\\[\\]{}+\\-|#,]+") && r.nextInt(8) != 0) {
                sb.append(plain);
            } else if (!plain.isEmpty() && plain.matches("[^'\\\\\r\n]+") && r.nextBoolean()) {
                sb.append('\'').append(plain).append('\'');
            } else {
                sb.append('"');
                for (byte x : a) {
                    int ch = x & 0xff;
                    if (ch == '"' || ch == '\\') {
                        sb.append('\\').append((char) ch);
                    } else if (ch == '\n') {
                        sb.append("\\n");
                    } else if (ch == '\r') {
                        sb.append("\\r");
                    } else if (ch == '\t') {
                        sb.append("\\t");
                    } else if (ch < 0x20 || ch >= 0x7f || r.nextInt(30) == 0) {
                        sb.append(String.format("\\x%02x", ch));
                    } else {
                        sb.append((char) ch);
                    }
                }
                sb.append('"');
            }
        }
        sb.append(r.nextInt(10) == 0 ? "\n" : "\r\n");
        return b(sb.toString());
    }

    private byte[] malformed() {
        String k = pick(KEYS);
        return b(switch (r.nextInt(16)) {
            case 0 -> "*2\r\n$3\r\nGET\r\n$" + (k.length() - 1) + "\r\n" + k + "\r\n";
            case 1 -> "*" + pick(new String[] {"-1", "0", "abc", "99999999999", "1048577", "+1", " 1", "01", "-0", "",
                    "2147483648"}) + "\r\n$4\r\nPING\r\n";
            case 2 -> "$4\r\nPING\r\n";
            case 3 -> "*1\r\n$" + pick(new String[] {"-1", "0", "abc", "536870913", "99999999999", "+4", "04", " 4",
                    ""}) + "\r\nPING\r\n";
            case 4 -> "*1\r\n*1\r\n$4\r\nPING\r\n";
            case 5 -> pick(new String[] {"SET " + k + " \"abc\r\n", "GET '" + k + "\r\n", "ECHO \"a\"b\r\n",
                    "ECHO 'a'b\r\n", "ECHO \"\\x4\"\r\n", "ECHO \"\\xZZ\"\r\n", "ECHO \"\\\"\r\n", "ECHO '\\''\r\n"});
            case 6 -> pick(new String[] {"\r\n\r\nPING\r\n", "\n", " \r\n", "\t\r\n", "\r\n"});
            case 7 -> "*1\n$4\nPING\n";
            case 8 -> "*2\r\n$4\r\nECHO\r\n:5\r\n";
            case 9 -> "*2\r\n$4\r\nECHO\r\n$3\r\nabcdef\r\n";
            case 10 -> "*3\r\n$3\r\nSET\r\n$7\r\nraw:big\r\n$" + 70_000 + "\r\n"
                    + "v".repeat(70_000) + "\r\n";
            case 11 -> "PING\r\n*1\r\n$4\r\nPING\r\nPING\r\n";
            case 12 -> "*2\r\n$3\r\nGET\r\n$-1\r\n";
            case 13 -> "*1\r\n$4\r\nPING\r\r\n";
            case 14 -> "*" + (2 + r.nextInt(3)) + "\r\n$4\r\nECHO\r\n$1\r\nx\r\n";
            default -> "ECHO " + "y".repeat(1 + r.nextInt(3000)) + "\r\n";
        });
    }

    /**
     * Tens of megabytes at once: a pipelined batch of 10 to 50 SETs of 1 to 3 MB to keys of their own, now and then
     * followed by an MGET of up to 10 of them (a node's heap against a burst a Redis serves without trouble).
     */
    private Step pressure() {
        int n = 10 + r.nextInt(41);
        List<List<byte[]>> cmds = new ArrayList<>();
        byte[] value = big(1_000_000 + r.nextInt(2_000_000)); // one array: the fuzzer's own heap is bounded too
        for (int i = 0; i < n; i++) {
            cmds.add(List.of(b("SET"), b("big:" + i), value));
        }
        if (r.nextInt(4) == 0) {
            List<byte[]> mget = new ArrayList<>(List.of(b("MGET")));
            for (int i = 0; i < Math.min(n, 10); i++) {
                mget.add(b("big:" + i));
            }
            cmds.add(mget);
        }
        return new Step(Kind.BATCH, List.of(new Segment(0, cmds)));
    }

    /** A command with tens of thousands of arguments (a node's memory and the journal's fragments). */
    private List<byte[]> huge() {
        int n = 1_000 + r.nextInt(30_000);
        List<byte[]> c = new ArrayList<>();
        // lists and sorted sets too once the catalogue has them (never sets: see spop())
        switch (r.nextInt(cat.get("rpush") != null && cat.get("zadd") != null ? 8 : 6)) {
            case 0 -> {
                c.add(b("MSET"));
                for (int i = 0; i < n; i++) {
                    c.add(b("bulk:" + i));
                    c.add(b(Integer.toString(i)));
                }
            }
            case 1 -> {
                c.add(b("HSET"));
                c.add(key());
                for (int i = 0; i < n; i++) {
                    c.add(b("hf:" + i));
                    c.add(b("v" + i));
                }
            }
            case 2 -> {
                c.add(b(pick(new String[] {"DEL", "EXISTS", "MGET", "UNLINK"})));
                for (int i = 0; i < n; i++) {
                    c.add(b("bulk:" + r.nextInt(n)));
                }
            }
            case 3 -> {
                c.add(b(pick(new String[] {"HMGET", "HDEL"})));
                c.add(key());
                for (int i = 0; i < n; i++) {
                    c.add(b("hf:" + r.nextInt(n)));
                }
            }
            case 4 -> {
                c.add(b("HSET"));
                c.add(key());
                for (int i = 0; i < n; i++) {
                    c.add(b("hf:" + i));
                }
            }
            case 5 -> {
                c.add(b("MSETNX"));
                for (int i = 0; i < n; i++) {
                    c.add(b("bulk:" + i));
                    c.add(b(""));
                }
            }
            case 6 -> {
                c.add(b("RPUSH"));
                c.add(key());
                for (int i = 0; i < n; i++) {
                    c.add(b("bulk:" + r.nextInt(n)));
                }
            }
            default -> {
                c.add(b("ZADD"));
                c.add(key());
                for (int i = 0; i < n; i++) {
                    c.add(b(Integer.toString(r.nextInt(1000))));
                    c.add(b("bulk:" + i));
                }
            }
        }
        return c;
    }

    // ---- arguments ----------------------------------------------------------------------------------------------

    byte[] key() {
        int p = r.nextInt(100);
        if (p < 80) {
            return b(pick(KEYS));
        }
        if (p < 94) {
            return b(pick(MORE_KEYS));
        }
        return pick(ODD_KEYS);
    }

    static final String LIST = "list";
    static final String SET = "set";
    static final String ZSET = "zset";
    /** The sources of ZUNION and the like: sorted sets, sets (scores 1) or anything. */
    static final String SOURCE = "source";
    /** What SORT sorts: lists, sets, sorted sets or anything. */
    static final String SORTABLE = "sortable";

    /** The family of a list, set or sorted-set command, for {@link #key(String)}. */
    private static String family(String name) {
        return name.startsWith("z") ? ZSET : name.startsWith("s") ? SET : LIST;
    }

    /**
     * A key for a command of a family: half the time one of three keys only that family writes ({@code list:0}…),
     * else one of the shared pool ({@link #key()}), where the types collide (and OBJECT, TYPE, COPY, RENAME, SCAN
     * meet lists, sets and sorted sets). Without the family's own keys most of these commands would answer
     * WRONGTYPE.
     */
    private byte[] key(String family) {
        if (r.nextBoolean()) {
            return key();
        }
        String f = switch (family) {
            case SOURCE -> r.nextInt(3) == 0 ? SET : ZSET;
            case SORTABLE -> pick(new String[] {LIST, LIST, SET, ZSET});
            default -> family;
        };
        return b(f + ":" + r.nextInt(3));
    }

    /**
     * A key for a lex range (ZRANGEBYLEX, ZLEXCOUNT, ZREMRANGEBYLEX, ZRANGE … BYLEX): one that only ZADD with
     * score 0, ZRANGESTORE … BYLEX from another such key, and removals write. Redis leaves a lex range of members
     * with different scores undefined, and in a skiplist its answer then depends on the random levels.
     */
    private byte[] lexKey() {
        return b("lex:" + r.nextInt(3));
    }

    private List<byte[]> keys(String family, int n) {
        List<byte[]> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add(key(family));
        }
        return out;
    }

    private List<byte[]> keys(int n) {
        List<byte[]> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add(key());
        }
        return out;
    }

    private byte[] field() {
        int p = r.nextInt(100);
        if (bigHash > 0) {
            bigHash--;
            return b("field:" + r.nextInt(2000));
        }
        if (p < 85) {
            return b(pick(FIELDS));
        }
        if (p < 92) {
            return b("field:" + r.nextInt(20));
        }
        return pick(ODD_FIELDS);
    }

    private List<byte[]> fields(int n) {
        List<byte[]> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add(field());
        }
        return out;
    }

    /**
     * A member of a set or sorted set, or a list element: a small pool (integers, so that intsets happen), members
     * of the range {@link #many} draws from, and members at and past Redis' 64-byte listpack limit. Never a NUL
     * byte (see {@link #sort}). At most about 1,500 distinct members exist (see {@link #spop}).
     */
    byte[] member() {
        int p = r.nextInt(100);
        if (p < 78) {
            return b(pick(MEMBERS));
        }
        if (p < 92) {
            return b((r.nextBoolean() ? "" : "e:") + r.nextInt(700));
        }
        if (p < 97) {
            return b(pick(LONG_MEMBERS));
        }
        return b("m:" + r.nextInt(10));
    }

    private List<byte[]> members(int n) {
        List<byte[]> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add(member());
        }
        return out;
    }

    /** A list element: mostly a member, sometimes a value (without NUL bytes, see {@link #sort}). */
    private byte[] element() {
        if (r.nextInt(100) < 85) {
            return member();
        }
        byte[] v = value();
        for (int i = 0; i < v.length; i++) {
            if (v[i] == 0) {
                v[i] = '0';
            }
        }
        return v;
    }

    /**
     * {@code n} distinct members in a random order, all integers (from 0 to 698) or all {@code e:}-prefixed, now and
     * then with a member past 64 bytes: enough of them to cross Redis' 128 (listpack) and 512 (intset) limits.
     */
    private List<byte[]> many(int n) {
        boolean integers = r.nextBoolean();
        int start = r.nextInt(100);
        List<byte[]> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add(b((integers ? "" : "e:") + (start + i)));
        }
        if (r.nextInt(4) == 0) {
            out.add(b(pick(LONG_MEMBERS)));
        }
        Collections.shuffle(out, r);
        return out;
    }

    /** A score: mostly small numbers, then printing edges (-0, 1e17, denormals), infinities and the float pool. */
    private String score() {
        int p = r.nextInt(100);
        if (p < 55) {
            return Integer.toString(r.nextInt(30) - 10);
        }
        if (p < 70) {
            return (r.nextBoolean() ? "-" : "") + r.nextInt(100) + "." + r.nextInt(100);
        }
        if (p < 80) {
            return pick(new String[] {"inf", "-inf", "+inf", "-0", "0.1", "1e17", "123456789012345678", "1e300",
                    "1e-320", "2.5e-3", "4611686018427387904", "9007199254740993"});
        }
        if (p < 95) {
            return pick(FLOATS);
        }
        return pick(INT_WEIRD);
    }

    /** A ZCOUNT/ZRANGEBYSCORE bound: a score, exclusive with '(', an infinity, or a malformed one. */
    private String scoreBound() {
        int p = r.nextInt(100);
        if (p < 35) {
            return Integer.toString(r.nextInt(30) - 10);
        }
        if (p < 55) {
            return "(" + (r.nextInt(4) != 0 ? Integer.toString(r.nextInt(30) - 10) : score());
        }
        if (p < 80) {
            return pick(new String[] {"-inf", "+inf", "inf", "(1", "(-inf", "(+inf", "(inf", "-inf", "+inf"});
        }
        if (p < 93) {
            return score();
        }
        return pick(new String[] {"((1", "[1", "", "(", "abc", "nan", "(nan", "( 1", "1 ", "(1e400", "(-0"});
    }

    /** A ZRANGEBYLEX bound: '[' or '(' and a member, '-', '+', or an invalid one. */
    private String lexBound() {
        int p = r.nextInt(100);
        if (p < 30) {
            return "[" + Commands.s(member());
        }
        if (p < 55) {
            return "(" + Commands.s(member());
        }
        if (p < 82) {
            return pick(new String[] {"-", "+"});
        }
        return pick(new String[] {"a", "", "[", "(", "-a", "+a", "[a", "(a", "[m:1", "(1", "[e:", "(e:9"});
    }

    /** A value: mostly small numbers and short strings, then edges, floats, binary, and rarely megabytes. */
    byte[] value() {
        int p = r.nextInt(10_000);
        if (p < 3) {
            return big(256 * 1024 + r.nextInt(3 * 1024 * 1024));
        }
        if (p < 130) {
            return big(65 + r.nextInt(2000)); // past Redis' listpack limit of 64 bytes
        }
        if (p < 150) {
            return big(60_000 + r.nextInt(20_000)); // around Tandem's journal fragment size (65,518 bytes)
        }
        if (p < 3000) {
            return b(Integer.toString(r.nextInt(200) - 20));
        }
        if (p < 4000) {
            return b(intArg());
        }
        if (p < 5000) {
            return b(floatArg());
        }
        if (p < 5500) {
            return b("");
        }
        if (p < 6500) {
            byte[] v = new byte[r.nextInt(24)];
            r.nextBytes(v);
            return v;
        }
        String alphabet = "abcxyz0123 \t*?";
        StringBuilder sb = new StringBuilder();
        int n = r.nextInt(r.nextInt(8) == 0 ? 64 : 12);
        for (int i = 0; i < n; i++) {
            sb.append(alphabet.charAt(r.nextInt(alphabet.length())));
        }
        return b(sb.toString());
    }

    /** {@code n} bytes of a short random unit repeated (reports print it as unit×count). */
    private byte[] big(int n) {
        byte[] unit = new byte[1 + r.nextInt(8)];
        for (int i = 0; i < unit.length; i++) {
            unit[i] = (byte) ('a' + r.nextInt(26));
        }
        int count = Math.max(1, n / unit.length);
        byte[] v = new byte[unit.length * count];
        for (int i = 0; i < v.length; i++) {
            v[i] = unit[i % unit.length];
        }
        return v;
    }

    /** An argument for a generic grammar or an insertion: never a small positive number (it could be a TTL). */
    private byte[] token() {
        int p = r.nextInt(10);
        if (p < 3) {
            return key();
        }
        if (p < 5) {
            return b(pick(WORDS));
        }
        if (p < 6) {
            return b(pick(new String[] {"-1", "0", "9223372036854775807", "-9223372036854775808",
                    "18446744073709551616", "-100"}));
        }
        if (p < 7) {
            return b(pick(FLOATS));
        }
        if (p < 8) {
            return field();
        }
        return b(pick(new String[] {"", "abc", "\0", "x y", "*", "\r\n", "é", "-", "#"}));
    }

    String intArg() {
        int p = r.nextInt(100);
        if (p < 45) {
            return Integer.toString(r.nextInt(200) - 50);
        }
        if (p < 85) {
            return pick(INT_EDGES);
        }
        if (p < 92) {
            String e = pick(INT_EDGES);
            return e.startsWith("-") ? e : "-" + e;
        }
        return pick(INT_WEIRD);
    }

    private String floatArg() {
        int p = r.nextInt(100);
        if (p < 55) {
            return pick(FLOATS);
        }
        if (p < 75) {
            return (r.nextBoolean() ? "-" : "") + r.nextInt(10_000) + "." + r.nextInt(1000);
        }
        if (p < 85) {
            return Double.toString((r.nextDouble() - 0.5) * Math.pow(10, r.nextInt(40) - 20));
        }
        if (p < 93) {
            return intArg();
        }
        return pick(INT_WEIRD);
    }

    /** An index for GETRANGE, BITCOUNT…: small, negative, or a 64-bit edge. */
    private String index() {
        int p = r.nextInt(10);
        if (p < 6) {
            return Integer.toString(r.nextInt(30) - 10);
        }
        if (p < 8) {
            return pick(INT_EDGES);
        }
        if (p < 9) {
            return "-" + pick(INT_EDGES).replace("-", "");
        }
        return pick(INT_WEIRD);
    }

    // ---- times: hours ahead or already past, never due during a run --------------------------------------------

    /** Seconds for EXPIRE-like commands (past values delete) or, with {@code !past}, for SET EX-like ones. */
    private String relSeconds(boolean past) {
        int p = r.nextInt(20);
        if (p < 12) {
            return Long.toString(3600 + r.nextInt(30 * 86400)); // hours to weeks
        }
        if (p < 14) {
            return pick(new String[] {"9223372036854775807", "9223372036854775", "9223372036854774",
                    "9223370000000000", "922337203685477", "1000000000000", "9223372036854775808"});
        }
        if (p < 17) {
            return past ? pick(new String[] {"0", "-1", "-100", "-9223372036854775808", "-9223372036854775807",
                    "-0"}) : pick(new String[] {"0", "-1", "-9223372036854775808"});
        }
        return pick(new String[] {"abc", "", "1.5", "3600.0", " 3600", "0x1000", "1e4"});
    }

    private String relMillis(boolean past) {
        int p = r.nextInt(20);
        if (p < 12) {
            return Long.toString(3_600_000L + (long) r.nextInt(30 * 86400) * 1000 + r.nextInt(1000));
        }
        if (p < 14) {
            return pick(new String[] {"9223372036854775807", "9223372036854775806", "9223370000000000000",
                    "9223372036854775808", "1000000000000000"});
        }
        if (p < 17) {
            return past ? pick(new String[] {"0", "-1", "-100", "-9223372036854775808"})
                    : pick(new String[] {"0", "-1", "-9223372036854775808"});
        }
        return pick(new String[] {"abc", "", "1.5", " 3600000", "3600000abc"});
    }

    /**
     * Unix seconds: around 2100 (ahead), before 2002 (past, unless {@code !past}), or edges. SET gets no past
     * deadline: Redis 7.0 stores such a key and counts it in DBSIZE until its active expiry samples it, Tandem until
     * its next Tick, so DBSIZE would race (EXPIREAT, PEXPIREAT and GETEX delete at once on both).
     */
    private String absSeconds(boolean past) {
        int p = r.nextInt(20);
        if (p < 10 || !past && p < 15) {
            return Long.toString(4_102_444_800L + r.nextInt(100_000_000));
        }
        if (p < 15) {
            return Long.toString(1 + r.nextInt(1_000_000_000));
        }
        if (p < 18) {
            return pick(new String[] {"0", "-1", "9223372036854775807", "9223372036854775", "9223372036854774",
                    "-9223372036854775808", "253402300799"});
        }
        return pick(new String[] {"abc", "", "1.5", "4102444800.5"});
    }

    private String absMillis(boolean past) {
        int p = r.nextInt(20);
        if (p < 10 || !past && p < 15) {
            return Long.toString(4_102_444_800_000L + (long) r.nextInt(100_000_000) * 1000 + r.nextInt(1000));
        }
        if (p < 15) {
            return Long.toString(1 + (long) r.nextInt(1_000_000_000) * 1000);
        }
        if (p < 18) {
            return pick(past ? new String[] {"0", "-1", "1", "9223372036854775807", "9223372036854775806",
                    "-9223372036854775808"} : new String[] {"0", "-1", "9223372036854775807",
                    "9223372036854775806", "-9223372036854775808"});
        }
        return pick(new String[] {"abc", "", "1.5"});
    }

    // ---- helpers ------------------------------------------------------------------------------------------------

    private String pickCase(String word) {
        int p = r.nextInt(20);
        if (p == 0) {
            return word.toLowerCase(Locale.ROOT);
        }
        if (p == 1) {
            StringBuilder sb = new StringBuilder();
            for (char ch : word.toCharArray()) {
                sb.append(r.nextBoolean() ? Character.toUpperCase(ch) : Character.toLowerCase(ch));
            }
            return sb.toString();
        }
        return word.toUpperCase(Locale.ROOT);
    }

    // ---- scripts ------------------------------------------------------------------------------------------------

    /**
     * Scripts whose effect and reply do not depend on a random choice or the clock: each calls commands of the key
     * pool through {@code redis.call} or {@code redis.pcall} (types collide, so errors are raised or returned), or
     * returns values that exercise the conversions, or fails; the command and its arguments come from {@code ARGV}.
     */
    static final String[] SCRIPTS = {
        "return redis.call(ARGV[1], KEYS[1], ARGV[2])",
        "return redis.pcall(ARGV[1], KEYS[1], ARGV[2])",
        "return redis.call(ARGV[1], KEYS[1], ARGV[2], ARGV[3])",
        "local v = redis.call('get', KEYS[1]) if v then return redis.call('set', KEYS[2], v .. ARGV[1]) end return v",
        "redis.call('rpush', KEYS[1], ARGV[1], ARGV[2]) return redis.call('lrange', KEYS[1], 0, -1)",
        "return {redis.call('incrby', KEYS[1], ARGV[1]), redis.call('get', KEYS[1])}",
        "return redis.call('zadd', KEYS[1], ARGV[1], ARGV[2])",
        "return redis.call('zrange', KEYS[1], 0, -1, 'withscores')",
        "return {redis.call('exists', KEYS[1]), redis.call('type', KEYS[1]), redis.call('ttl', KEYS[1])}",
        "return tonumber(ARGV[1])",
        "return {tonumber(ARGV[1]), ARGV[1] + 0}",
        "return ARGV",
        "return KEYS",
        "return {1, 2.5, 'x', true, false, nil, 3}",
        "return {err = ARGV[1]}",
        "return {ok = ARGV[1]}",
        "return redis.error_reply(ARGV[1])",
        "return redis.status_reply(ARGV[1])",
        "error(ARGV[1])",
        "error({err = ARGV[1]})",
        "return redis.call('set', KEYS[1], ARGV[1], 'xx')",
        "redis.call('del', KEYS[1]) return redis.call('exists', KEYS[1])",
        "local n = 0 for i = 1, tonumber(ARGV[1]) or 3 do n = n + redis.call('incr', KEYS[1]) end return n",
        "return redis.sha1hex(ARGV[1])",
        "return string.format('%s|%d', ARGV[1], #ARGV)",
        "return #redis.call('keys', '*')",
        "return redis.call('select', ARGV[1])",
        "return x",
        "y = 1",
        "return (",
        "return redis.call()",
        "return redis.call('nosuch', KEYS[1])",
        "return redis.call('get', KEYS[1], KEYS[2], KEYS[3])",
        "return redis.call('hset', KEYS[1], ARGV[1], ARGV[2])",
        "return redis.call('sadd', KEYS[1], ARGV[1])",
        "return redis.call('scard', KEYS[1])",
    };

    /** The commands a script template's ARGV[1] names. */
    private static final String[] SCRIPT_COMMANDS = {"get", "set", "incr", "incrby", "append", "lpush", "rpop",
        "sadd", "srem", "zadd", "zincrby", "hset", "hget", "del", "exists", "type", "strlen", "expire", "ttl",
        "persist", "getdel", "llen", "zcard", "nosuch", "eval", "multi", "ping", "echo"};

    private List<byte[]> eval(String name) {
        String script = pick(SCRIPTS);
        return scriptCall(name.toUpperCase(Locale.ROOT), b(script));
    }

    private List<byte[]> evalsha(String name) {
        // a template's SHA-1 (loaded by an EVAL or SCRIPT LOAD before, or not), or something else
        byte[] sha = r.nextInt(6) == 0 ? b(pick(new String[] {"0000000000000000000000000000000000000000", "abc",
            ""})) : b(sha1(pick(SCRIPTS)));
        return scriptCall(name.toUpperCase(Locale.ROOT), sha);
    }

    private List<byte[]> scriptCall(String name, byte[] scriptOrSha) {
        int keys = r.nextInt(12) == 0 ? pick(new Integer[] {-1, 9, 100}) : r.nextInt(3);
        List<byte[]> c = args(name, scriptOrSha, b(r.nextInt(20) == 0 ? pick(new String[] {"x", "", "1.5"})
                : Integer.toString(keys)));
        for (int i = 0; i < Math.max(keys, 0) && i < 3; i++) {
            c.add(key());
        }
        c.add(b(pick(SCRIPT_COMMANDS)));
        for (int i = r.nextInt(3); i > 0; i--) {
            c.add(r.nextBoolean() ? value() : b(pick(MEMBERS)));
        }
        return c;
    }

    private List<byte[]> script() {
        return switch (r.nextInt(8)) {
            case 0, 1, 2 -> args("SCRIPT", "LOAD", pick(SCRIPTS));
            case 3 -> args("SCRIPT", "EXISTS", sha1(pick(SCRIPTS)), sha1(pick(SCRIPTS)), "nosuch");
            case 4 -> args("SCRIPT", r.nextBoolean() ? "FLUSH" : "KILL");
            case 5 -> args("SCRIPT", "HELP");
            case 6 -> args("SCRIPT", pick(new String[] {"FLUSH", "LOAD", "EXISTS"}), token(), token());
            default -> args("SCRIPT", token());
        };
    }

    // ---- functions ----------------------------------------------------------------------------------------------

    /**
     * Libraries of one function each, {@code fn<i>} in {@code lib<i>}, whose body is the script template {@code i}
     * (its {@code KEYS} and {@code ARGV} are the function's parameters); every third declares {@code no-writes}.
     * One function a library: a library's functions, and several libraries, are listed and dumped in the order of
     * Redis's hash table, which changes with each process's seed.
     */
    static final String[] LIBRARIES = new String[SCRIPTS.length];

    static {
        for (int i = 0; i < SCRIPTS.length; i++) {
            LIBRARIES[i] = "#!lua name=lib" + i + "\nredis.register_function{function_name='fn" + i
                    + "', callback=function(KEYS, ARGV) " + SCRIPTS[i] + " end"
                    + (i % 3 == 0 ? ", flags={'no-writes'}" : "") + "}";
        }
    }

    /** Libraries that do not load: no functions, a name taken by another library's function, bad metadata. */
    private static final String[] BAD_LIBRARIES = {
        "#!lua name=empty\nreturn 1",
        "#!lua name=taken\nredis.register_function('fn1', function() return 1 end)",
        "#!lua\nredis.register_function('x', function() return 1 end)",
        "#!js name=js\nreturn 1",
        "#!lua name=bad-name\nreturn 1",
        "no shebang",
        "#!lua name=raises\nerror('at load')",
        "#!lua name=calls\nredis.call('ping')",
    };

    private List<byte[]> function() {
        return switch (r.nextInt(12)) {
            case 0, 1, 2 -> args("FUNCTION", "LOAD", pick(LIBRARIES));
            case 3 -> args("FUNCTION", "LOAD", "REPLACE", pick(LIBRARIES));
            case 4 -> args("FUNCTION", "LOAD", pick(BAD_LIBRARIES));
            case 5 -> args("FUNCTION", "DELETE", r.nextInt(5) == 0 ? "nosuch" : "lib" + r.nextInt(SCRIPTS.length));
            case 6 -> r.nextBoolean() ? args("FUNCTION", "FLUSH") : args("FUNCTION", "FLUSH",
                    pick(new String[] {"SYNC", "ASYNC", "bogus"}));
            case 7 -> r.nextBoolean() ? args("FUNCTION", "LIST", "LIBRARYNAME", "lib" + r.nextInt(SCRIPTS.length))
                    : args("FUNCTION", "LIST", "WITHCODE", "LIBRARYNAME", "lib" + r.nextInt(SCRIPTS.length));
            case 8 -> args("FUNCTION", "STATS");
            case 9 -> args("FUNCTION", pick(new String[] {"KILL", "HELP"}));
            case 10 -> args("FUNCTION", pick(new String[] {"LIST", "LOAD", "DELETE", "RESTORE"}), token(), token());
            default -> args("FUNCTION", token());
        };
    }

    private List<byte[]> fcall(String name) {
        String function = r.nextInt(8) == 0 ? "nosuch" : "fn" + r.nextInt(SCRIPTS.length);
        return scriptCall(name.toUpperCase(Locale.ROOT), b(function));
    }

    private static String sha1(String script) {
        try {
            return java.util.HexFormat.of().formatHex(java.security.MessageDigest.getInstance("SHA-1")
                    .digest(script.getBytes(java.nio.charset.StandardCharsets.ISO_8859_1)));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private <T> T pick(T[] a) {
        return a[r.nextInt(a.length)];
    }

    private <T> T pick(List<T> a) {
        return a.get(r.nextInt(a.size()));
    }

    private static List<byte[]> args(Object... parts) {
        List<byte[]> out = new ArrayList<>();
        for (Object o : parts) {
            if (o instanceof String s) {
                out.add(b(s));
            } else if (o instanceof byte[] a) {
                out.add(a);
            } else if (o instanceof List<?> l) {
                for (Object e : l) {
                    out.add((byte[]) e);
                }
            }
        }
        return out;
    }

    // ---- shapes -------------------------------------------------------------------------------------------------

    /**
     * The shape of a command for the report's count of distinct shapes: its name (and subcommand), then each
     * argument as a class — a key of the pool, an option word, an integer, a float, a string, empty or big.
     */
    static String shape(List<byte[]> c) {
        StringBuilder sb = new StringBuilder(Commands.name(c));
        for (int i = 1; i < c.size(); i++) {
            String a = Commands.s(c.get(i));
            sb.append(' ');
            if (c.get(i).length > 4096) {
                sb.append("BIG");
            } else if (a.isEmpty()) {
                sb.append("''");
            } else if (WORD_SET.containsKey(a.toUpperCase(Locale.ROOT))) {
                sb.append(a.toUpperCase(Locale.ROOT));
            } else if (a.matches("k[0-5]|key:\\d|f[0-4]")) {
                sb.append(a.charAt(0) == 'f' ? 'F' : 'K');
            } else if (a.matches("-?\\d{1,18}")) {
                sb.append(a.startsWith("-") ? "-N" : "N");
            } else if (a.matches("-?\\d+")) {
                sb.append("BIGN");
            } else if (a.matches("[-+]?[0-9.eE+-]+|[-+]?(inf|nan|infinity)")) {
                sb.append("FLOAT");
            } else {
                sb.append('S');
            }
        }
        return sb.toString();
    }

    private static final Map<String, Boolean> WORD_SET = new LinkedHashMap<>();

    static {
        for (String w : WORDS) {
            WORD_SET.put(w.toUpperCase(Locale.ROOT), true);
        }
        for (String w : new String[] {"SETNAME", "AUTH", "WITHVALUES", "ID", "USAGE", "ENCODING", "HELP", "COUNT",
                "DOCS", "INFO", "LIST", "GETNAME", "SAMPLES", "LEFT", "RIGHT", "BEFORE", "AFTER", "RANK", "MAXLEN",
                "MIN", "MAX", "WITHSCORES", "BYSCORE", "BYLEX", "REV", "WEIGHTS", "AGGREGATE", "SUM", "INCR", "CH",
                "BY", "NOSORT", "ALPHA", "ASC", "DESC", "STORE"}) {
            WORD_SET.put(w, true);
        }
    }
}
