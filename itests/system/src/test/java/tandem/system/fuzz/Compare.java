package tandem.system.fuzz;

import static tandem.system.fuzz.Commands.arg;
import static tandem.system.fuzz.Commands.name;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Compares Tandem's reply with Redis' for one command: byte for byte, except where a {@link Rule} applies. Errors are
 * always compared byte for byte.
 */
final class Compare {

    /** Whether two replies agree under the rule that applied. */
    record Outcome(boolean same, Rule rule, List<byte[]> at) {

        Outcome(boolean same, Rule rule) {
            this(same, rule, null);
        }
    }

    /**
     * Parameters whose values are the server's own, masked in CONFIG GET: Tandem's (departures.md) and the way the
     * harness starts Redis ({@code --loglevel warning}).
     */
    static final Set<String> OWN_VALUES = Set.of("port", "io-threads", "databases", "bind", "dir", "daemonize",
            "logfile", "pidfile", "min-replicas-max-lag", "min-slaves-max-lag", "loglevel");

    private static final Pattern RANGE = Pattern.compile("(ERR CONFIG SET failed \\(possibly related to argument "
            + "'[^']*'\\) - argument must be between )-?\\d+ and -?\\d+ inclusive");

    private final Set<String> commonConfig;

    /** @param commonConfig the parameters both servers list in CONFIG GET * */
    Compare(Set<String> commonConfig) {
        this.commonConfig = commonConfig;
    }

    /** The rule for a command (for EXEC, see {@link #compare}). */
    static Rule rule(List<byte[]> cmd) {
        String n = name(cmd);
        String sub = arg(cmd, 1);
        return switch (n) {
            case "keys", "hkeys", "hvals", "hgetall", "smembers", "sinter", "sunion", "sdiff", "spop" -> Rule.SORTED;
            case "scan", "hscan", "sscan", "zscan" -> Rule.SCAN_PAGE;
            case "randomkey" -> Rule.RANDOM;
            case "dump" -> Rule.DUMP;
            case "hrandfield", "srandmember", "zrandmember" -> Rule.RANDOM_FIELD;
            case "sort", "sort_ro" -> Sort.of(cmd).unsorted() ? Rule.SORT_NOSORT : Rule.EXACT;
            case "time" -> Rule.TIME;
            case "info" -> Rule.INFO;
            case "hello" -> Rule.HELLO;
            case "ttl", "pttl", "expiretime", "pexpiretime" -> Rule.TTL;
            case "wait" -> Rule.WAIT;
            case "role" -> Rule.ROLE;
            case "command" -> switch (sub) {
                case "help" -> Rule.HELP;
                case "getkeys", "getkeysandflags" -> Rule.EXACT;
                default -> Rule.COMMAND;
            };
            case "client" -> switch (sub) {
                case "list", "info" -> Rule.CLIENT;
                case "id" -> Rule.CLIENT_ID;
                case "help" -> Rule.HELP;
                default -> Rule.EXACT;
            };
            case "config" -> switch (sub) {
                case "get" -> Rule.CONFIG_GET;
                case "help" -> Rule.HELP;
                default -> Rule.EXACT;
            };
            case "object" -> switch (sub) {
                case "idletime", "freq" -> Rule.OBJECT;
                case "help" -> Rule.HELP;
                default -> Rule.EXACT;
            };
            case "memory" -> sub.equals("help") ? Rule.HELP : Rule.MEMORY;
            case "xpending" -> cmd.size() > 3 ? Rule.STREAM_TIMES : Rule.EXACT;
            case "xinfo" -> sub.equals("consumers") || sub.equals("stream") && arg(cmd, 3).equals("full")
                    ? Rule.STREAM_TIMES : Rule.EXACT;
            default -> Rule.EXACT;
        };
    }

    /**
     * @param queued for EXEC, the commands the transaction queued (their replies are compared by their own rules)
     */
    Outcome compare(List<byte[]> cmd, Reply redis, Reply tandem, List<List<byte[]>> queued) {
        if (staleErange(cmd, redis, tandem)) {
            return new Outcome(true, Rule.SORT_ERRNO);
        }
        if (redis.isError() || tandem.isError()) {
            if (name(cmd).equals("config") && arg(cmd, 1).equals("set") && redis.isError() && tandem.isError()) {
                Matcher a = RANGE.matcher(redis.text());
                Matcher b = RANGE.matcher(tandem.text());
                if (a.matches() && b.matches()) {
                    return new Outcome(a.group(1).equals(b.group(1)), Rule.CONFIG_SET_RANGE);
                }
            }
            return new Outcome(redis.equals(tandem), Rule.EXACT);
        }
        if (name(cmd).equals("exec") && queued != null && redis.isArray() && tandem.isArray()
                && redis.items.size() == queued.size() && tandem.items.size() == queued.size()) {
            Rule used = Rule.EXACT;
            for (int i = 0; i < queued.size(); i++) {
                Outcome o = compare(queued.get(i), redis.items.get(i), tandem.items.get(i), null);
                if (!o.same()) {
                    return new Outcome(false, o.rule(), queued.get(i));
                }
                if (o.rule() != Rule.EXACT) {
                    used = o.rule();
                }
            }
            return new Outcome(true, used);
        }
        Rule rule = rule(cmd);
        boolean same = switch (rule) {
            case EXACT -> redis.equals(tandem);
            case SORTED -> sorted(redis, name(cmd).equals("hgetall") ? 2 : 1)
                    .equals(sorted(tandem, name(cmd).equals("hgetall") ? 2 : 1));
            case SCAN_PAGE -> scanPage(cmd, redis, tandem);
            case SCAN_UNION, CONFIG_SET_RANGE, SORT_ERRNO -> redis.equals(tandem);
            case RANDOM, INFO, CLIENT, CLIENT_ID, WAIT, OBJECT, MEMORY -> type(redis).equals(type(tandem));
            case RANDOM_FIELD -> type(redis).equals(type(tandem))
                    && (!redis.isArray() || redis.items.size() == tandem.items.size())
                    && draw(cmd, redis) && draw(cmd, tandem) && wholeDraw(cmd, redis, tandem);
            case SORT_NOSORT -> redis.equals(tandem) || unsorted(Sort.of(cmd), redis, tandem);
            case TIME -> time(redis) && time(tandem);
            case HELLO -> masked(redis, Set.of("id", "version")).equals(masked(tandem, Set.of("id", "version")));
            case HELP -> help(redis) && help(tandem);
            case COMMAND -> command(cmd, redis, tandem);
            case DUMP -> dump(redis, tandem);
            case STREAM_TIMES -> streamTimes(cmd, redis).equals(streamTimes(cmd, tandem));
            case CONFIG_GET -> config(redis).equals(config(tandem));
            case TTL -> ttl(name(cmd), redis, tandem);
            case ROLE -> redis.isArray() && tandem.isArray() && !redis.items.isEmpty() && !tandem.items.isEmpty()
                    && redis.items.get(0).equals(tandem.items.get(0));
        };
        return new Outcome(same, rule);
    }

    /**
     * The count rules of a random draw ({@code HRANDFIELD}, {@code SRANDMEMBER}, {@code ZRANDMEMBER} with a count):
     * a positive count draws distinct elements, a negative one exactly that many (repeats allowed) from a key that
     * exists. An element is a
     * member (or field) with its score (or value) when asked for: two replies in a flat RESP2 array, one pair in
     * RESP3.
     */
    static boolean draw(List<byte[]> cmd, Reply r) {
        Long count = drawCount(cmd);
        if (count == null || !r.isArray()) {
            return true;
        }
        List<Reply> names = drawNames(cmd, r);
        if (count < 0) {
            return names.size() == -count || names.isEmpty(); // empty: no such key
        }
        return names.size() <= count && new java.util.HashSet<>(names).size() == names.size();
    }

    /**
     * A positive count that covers the whole collection (fewer elements came than asked for) draws all of it: the
     * same elements from both servers, in any order.
     */
    static boolean wholeDraw(List<byte[]> cmd, Reply redis, Reply tandem) {
        Long count = drawCount(cmd);
        if (count == null || count <= 0 || !redis.isArray() || !tandem.isArray()) {
            return true;
        }
        List<Reply> r = drawElements(cmd, redis);
        if (r.size() >= count) {
            return true; // a true draw: Redis's choice and Tandem's differ
        }
        List<Reply> t = drawElements(cmd, tandem);
        Comparator<Reply> order = Comparator.comparing(Reply::bytes, Arrays::compare);
        r.sort(order);
        t.sort(order);
        return r.equals(t);
    }

    /** The count argument of a draw, or null without one (or one that is no number: the reply is an error). */
    private static Long drawCount(List<byte[]> cmd) {
        if (cmd.size() < 3) {
            return null;
        }
        try {
            return Long.parseLong(new String(cmd.get(2), java.nio.charset.StandardCharsets.ISO_8859_1));
        } catch (NumberFormatException e) {
            return null;
        }
    }

    private static boolean withPairs(List<byte[]> cmd) {
        return cmd.size() > 3 && (new String(cmd.get(3), java.nio.charset.StandardCharsets.ISO_8859_1)
                .equalsIgnoreCase("withscores") || new String(cmd.get(3), java.nio.charset.StandardCharsets.ISO_8859_1)
                .equalsIgnoreCase("withvalues"));
    }

    /** The draw's elements, each a pair (as one reply) when asked for with scores or values. */
    private static List<Reply> drawElements(List<byte[]> cmd, Reply r) {
        List<Reply> out = new ArrayList<>();
        boolean flatPairs = withPairs(cmd) && !r.items.isEmpty() && !r.items.get(0).isArray();
        for (int i = 0; i < r.items.size(); i += flatPairs ? 2 : 1) {
            out.add(flatPairs ? Reply.array(r.items.subList(i, Math.min(i + 2, r.items.size()))) : r.items.get(i));
        }
        return out;
    }

    /** The names drawn: the members or fields, without their scores or values. */
    private static List<Reply> drawNames(List<byte[]> cmd, Reply r) {
        List<Reply> out = new ArrayList<>();
        for (Reply e : drawElements(cmd, r)) {
            out.add(e.isArray() && !e.items.isEmpty() ? e.items.get(0) : e);
        }
        return out;
    }

    /** The reply type, and whether it is nil: what a shape-only rule compares. */
    static String type(Reply r) {
        return r.isNil() ? r.type + "nil" : String.valueOf(r.type);
    }

    /** An array (or set, or map) sorted in groups of {@code group} elements, of the same type; anything else as it is. */
    static Reply sorted(Reply r, int group) {
        if (!r.isArray()) {
            return r;
        }
        List<List<Reply>> groups = new ArrayList<>();
        for (int i = 0; i + group <= r.items.size(); i += group) {
            groups.add(r.items.subList(i, i + group));
        }
        groups.sort(Comparator.comparing(g -> Reply.array(g).bytes(), Arrays::compare));
        List<Reply> flat = new ArrayList<>();
        groups.forEach(flat::addAll);
        if (r.items.size() % group != 0) {
            flat.addAll(r.items.subList(r.items.size() - r.items.size() % group, r.items.size()));
        }
        return Reply.aggregate(r.type, flat);
    }

    /**
     * Redis 7.0's SORT reads {@code errno} after {@code strtod} without clearing it first, so an ERANGE left by an
     * earlier command of the same thread (a {@code 1e400} or a cursor past 2^64 parsed anywhere) fails a sort of
     * plain integers: true for Redis' error against Tandem's sorted collection of integers, or a LIMIT's slice of
     * it ({@link Rule#SORT_ERRNO}; a key whose elements do not all parse is sorted without LIMIT often enough).
     */
    static boolean staleErange(List<byte[]> cmd, Reply redis, Reply tandem) {
        String n = name(cmd);
        if (!(n.equals("sort") || n.equals("sort_ro")) || !redis.isError() || !tandem.isArray()
                || !"ERR One or more scores can't be converted into double".equals(redis.text())) {
            return false;
        }
        for (int j = 2; j < cmd.size(); j++) {
            String a = arg(cmd, j);
            if (a.equals("limit") && j + 2 < cmd.size()) {
                j += 2;
            } else if (!a.equals("asc") && !a.equals("desc")) {
                return false; // BY, GET, ALPHA, STORE: the reply would not be the collection's own elements
            }
        }
        if (tandem.items.isEmpty() && !Sort.of(cmd).limit()) {
            return false;
        }
        for (Reply e : tandem.items) {
            if (!e.isBulk() || !e.text().matches("-?[0-9]{1,15}")) {
                return false;
            }
        }
        return true;
    }

    /**
     * What SORT/SORT_RO asks for, read as Redis parses it: whether it sorts at all (a BY pattern without '*' does
     * not), whether it stores, has a LIMIT, and how many GET patterns (each element answers one value per GET).
     */
    record Sort(boolean nosort, boolean store, boolean limit, int gets) {

        static Sort of(List<byte[]> cmd) {
            boolean nosort = false;
            boolean store = false;
            boolean limit = false;
            int gets = 0;
            for (int j = 2; j < cmd.size(); j++) {
                String a = arg(cmd, j);
                int left = cmd.size() - j - 1;
                if (a.equals("by") && left >= 1) {
                    nosort = !Commands.s(cmd.get(++j)).contains("*");
                } else if (a.equals("store") && left >= 1) {
                    store = true;
                    j++;
                } else if (a.equals("get") && left >= 1) {
                    gets++;
                    j++;
                } else if (a.equals("limit") && left >= 2) {
                    limit = true;
                    j += 2;
                }
            }
            return new Sort(nosort, store, limit, gets);
        }

        /** Whether Redis answers the elements in the key's own order: a set's is its encoding's, never Tandem's. */
        boolean unsorted() {
            return nosort && !store; // with STORE, Redis sorts a set anyway (ALPHA)
        }
    }

    /** SORT … BY nosort of what may be a set: the same elements, or with LIMIT the same number. */
    private static boolean unsorted(Sort sort, Reply redis, Reply tandem) {
        if (!redis.isArray() || !tandem.isArray()) {
            return false;
        }
        if (sort.limit()) {
            return redis.items.size() == tandem.items.size();
        }
        int group = Math.max(1, sort.gets());
        return sorted(redis, group).equals(sorted(tandem, group));
    }

    /** The position of the cursor in a scan command (SCAN's first argument, the others' second). */
    static int cursorAt(List<byte[]> cmd) {
        return name(cmd).equals("scan") ? 1 : 2;
    }

    /** Whether a scan command answers pairs (HSCAN: field and value; ZSCAN: member and score). */
    static boolean pairs(List<byte[]> cmd) {
        return name(cmd).equals("hscan") || name(cmd).equals("zscan");
    }

    private static boolean scanPage(List<byte[]> cmd, Reply redis, Reply tandem) {
        boolean pairs = pairs(cmd);
        if (!page(redis, pairs) || !page(tandem, pairs) || cmd.size() <= cursorAt(cmd)) {
            return redis.equals(tandem);
        }
        String cursorArg = Commands.s(cmd.get(cursorAt(cmd)));
        boolean complete = cursorArg.equals("0") && redis.items.get(0).text().equals("0")
                && tandem.items.get(0).text().equals("0");
        int group = pairs ? 2 : 1;
        return !complete || sorted(redis.items.get(1), group).equals(sorted(tandem.items.get(1), group));
    }

    /** [cursor digits, [bulk…]] with pairs for HSCAN and ZSCAN. */
    private static boolean page(Reply r, boolean pairs) {
        if (!r.isArray() || r.items.size() != 2 || !r.items.get(0).isBulk() || !r.items.get(1).isArray()) {
            return false;
        }
        if (!r.items.get(0).text().matches("\\d+")) {
            return false;
        }
        for (Reply e : r.items.get(1).items) {
            if (!e.isBulk()) {
                return false;
            }
        }
        return !pairs || r.items.get(1).items.size() % 2 == 0;
    }

    private static boolean time(Reply r) {
        return r.isArray() && r.items.size() == 2 && r.items.get(0).isBulk() && r.items.get(1).isBulk()
                && r.items.get(0).text().matches("\\d+") && r.items.get(1).text().matches("\\d{1,6}");
    }

    private static boolean help(Reply r) {
        if (!r.isArray()) {
            return false;
        }
        for (Reply e : r.items) {
            if (e.type != '+') {
                return false;
            }
        }
        return true;
    }

    /** A flat map reply with the values after {@code keys} replaced. */
    private static Reply masked(Reply r, Set<String> keys) {
        if (!r.isArray()) {
            return r;
        }
        List<Reply> out = new ArrayList<>(r.items);
        for (int i = 0; i + 1 < out.size(); i += 2) {
            if (out.get(i).isBulk() && keys.contains(out.get(i).text())) {
                out.set(i + 1, Reply.bulk("<masked>"));
            }
        }
        return Reply.aggregate(r.type, out);
    }

    private Reply config(Reply r) {
        if (!r.isArray()) {
            return r;
        }
        List<Reply> kept = new ArrayList<>();
        for (int i = 0; i + 1 < r.items.size(); i += 2) {
            String name = r.items.get(i).text();
            if (name != null && commonConfig.contains(name)) {
                kept.add(r.items.get(i));
                kept.add(OWN_VALUES.contains(name) ? Reply.bulk("<own>") : r.items.get(i + 1));
            }
        }
        return sorted(Reply.aggregate(r.type, kept), 2);
    }

    private static boolean ttl(String name, Reply redis, Reply tandem) {
        Long a = redis.type == ':' ? redis.asLong() : null;
        Long b = tandem.type == ':' ? tandem.asLong() : null;
        if (a == null || b == null || a < 0 || b < 0) {
            return redis.equals(tandem);
        }
        long tolerance = name.startsWith("p") ? 2000 : 2;
        return Math.abs(a - b) <= tolerance;
    }

    /**
     * The commands whose description differs from Redis's on purpose: MEMORY and LATENCY list only the subcommands
     * Tandem has, SENTINEL is Tandem's own (Redis has it in sentinel mode only).
     */
    private static final Set<String> OWN_DESCRIPTION = Set.of("memory", "latency", "sentinel");

    /**
     * {@code COMMAND}, {@code COMMAND INFO|DOCS|LIST|COUNT}: Tandem has fewer commands than Redis, and describes each
     * it has as Redis does. So every entry Tandem lists is Redis's own, byte for byte (MEMORY and SENTINEL aside),
     * an entry asked for by name is the same on both, and COMMAND COUNT is an integer on both.
     */
    private static boolean command(List<byte[]> cmd, Reply redis, Reply tandem) {
        String sub = arg(cmd, 1);
        boolean named = cmd.size() > 2 && !sub.equals("list");
        if (sub.equals("count") || !type(redis).equals(type(tandem))) {
            return type(redis).equals(type(tandem));
        }
        if (sub.equals("list")) {
            Set<Reply> all = new java.util.HashSet<>(redis.items);
            return tandem.items.stream().filter(n -> !own(n.text())).allMatch(all::contains);
        }
        if (sub.equals("docs")) {
            // a map of name -> docs: Redis leaves out a name it does not know, and so does Tandem
            java.util.Map<String, String> r = new java.util.HashMap<>();
            for (int i = 0; i + 1 < redis.items.size(); i += 2) {
                r.put(redis.items.get(i).text(), canonical(redis.items.get(i + 1)));
            }
            for (int i = 0; i + 1 < tandem.items.size(); i += 2) {
                String name = tandem.items.get(i).text();
                if (!own(name) && !canonical(tandem.items.get(i + 1)).equals(r.get(name))) {
                    return false;
                }
            }
            return true;
        }
        // COMMAND, COMMAND INFO [name...]: arrays of entries (nil for an unknown name)
        if (named) {
            if (redis.items.size() != tandem.items.size()) {
                return false;
            }
            for (int i = 0; i < redis.items.size(); i++) {
                Reply t = tandem.items.get(i);
                if (!(t.isArray() && own(t.items.get(0).text()))
                        && !canonical(t).equals(canonical(redis.items.get(i)))) {
                    return false;
                }
            }
            return true;
        }
        Set<String> all = new java.util.HashSet<>();
        redis.items.forEach(e -> all.add(canonical(e)));
        return tandem.items.stream().filter(e -> !own(e.items.get(0).text())).allMatch(e -> all.contains(canonical(e)));
    }

    /** @return whether {@code name} ({@code memory}, {@code sentinel|get-master-addr-by-name}) is described apart */
    private static boolean own(String name) {
        return name != null && OWN_DESCRIPTION.contains(name.split("\\|")[0]);
    }

    /**
     * A COMMAND INFO entry or COMMAND DOCS map as text, with a container's subcommands (and every set) in sorted
     * order: Redis lists them in the order of a hash table, which differs between two Redis processes.
     */
    static String canonical(Reply r) {
        if (!r.isArray()) {
            return r.type + String.valueOf(r.text()); // whole: toString() shortens
        }
        List<String> items = new ArrayList<>();
        for (Reply item : r.items) {
            items.add(canonical(item));
        }
        boolean entry = r.items.size() == 10 && r.items.get(0).isBulk() && r.items.get(1).type == ':'
                && r.items.get(9).isArray();
        if (entry) {
            List<String> subs = new ArrayList<>();
            r.items.get(9).items.forEach(x -> subs.add(canonical(x)));
            java.util.Collections.sort(subs);
            items.set(9, subs.toString());
        }
        for (int i = 0; i + 1 < r.items.size(); i++) {
            if ("subcommands".equals(r.items.get(i).text()) && r.items.get(i + 1).isArray()) {
                List<String> pairs = new ArrayList<>();
                List<Reply> subs = r.items.get(i + 1).items;
                for (int j = 0; j + 1 < subs.size(); j += 2) {
                    pairs.add(canonical(subs.get(j)) + canonical(subs.get(j + 1)));
                }
                java.util.Collections.sort(pairs);
                items.set(i + 1, pairs.toString());
            }
        }
        if (r.type == '~') {
            java.util.Collections.sort(items);
        }
        return r.type + items.toString();
    }

    /**
     * DUMP: the bytes where Redis's depend on the value alone (a string, an intset, a sorted set, a list); a hash
     * or a hashtable set comes in Tandem's field order, so there the object type and the length (the same fields
     * and values, in another order).
     */
    private static boolean dump(Reply redis, Reply tandem) {
        if (!redis.isBulk() || !tandem.isBulk() || redis.equals(tandem)) {
            return redis.equals(tandem);
        }
        byte[] r = redis.text().getBytes(java.nio.charset.StandardCharsets.ISO_8859_1);
        byte[] t = tandem.text().getBytes(java.nio.charset.StandardCharsets.ISO_8859_1);
        int type = r.length > 0 ? r[0] & 0xff : -1;
        // set, hash, hash listpack; a stream (listpacks 2, of Redis 7.0), whose groups hold times
        boolean ordered = type == 2 || type == 4 || type == 16 || type == 19;
        return ordered && r.length == t.length && t.length > 0 && t[0] == r[0];
    }

    /** A time masked: an integer still, so that a reply of another type differs. */
    private static final Reply MASKED_TIME = Reply.integer(0);

    /**
     * The reply with the times of a stream's groups masked ({@link Rule#STREAM_TIMES}): XPENDING's extended form
     * answers [id, consumer, idle, deliveries] entries; XINFO CONSUMERS a map per consumer with {@code idle}; XINFO
     * STREAM FULL a map whose {@code groups} each have a {@code pending} of [id, consumer, delivery-time, deliveries]
     * and {@code consumers} with {@code seen-time} and a {@code pending} of [id, delivery-time, deliveries].
     */
    static Reply streamTimes(List<byte[]> cmd, Reply r) {
        if (!r.isArray()) {
            return r;
        }
        return switch (name(cmd)) {
            case "xpending" -> each(r, e -> maskAt(e, 2));
            case "xinfo" -> arg(cmd, 1).equals("consumers") ? each(r, c -> maskKey(c, "idle", Compare::maskTime))
                    : maskKey(r, "groups", groups -> each(groups, g -> maskKey(maskKey(g, "pending",
                            pel -> each(pel, e -> maskAt(e, 2))), "consumers", consumers -> each(consumers,
                            c -> maskKey(maskKey(c, "seen-time", Compare::maskTime), "pending",
                                    pel -> each(pel, e -> maskAt(e, 1)))))));
            default -> r;
        };
    }

    /** An integer masked; anything else as it is. */
    private static Reply maskTime(Reply r) {
        return r.type == ':' ? MASKED_TIME : r;
    }

    private static Reply each(Reply r, java.util.function.UnaryOperator<Reply> f) {
        if (!r.isArray()) {
            return r;
        }
        List<Reply> out = new ArrayList<>();
        for (Reply e : r.items) {
            out.add(f.apply(e));
        }
        return Reply.aggregate(r.type, out);
    }

    /** An array with its integer at {@code i} masked. */
    private static Reply maskAt(Reply r, int i) {
        if (!r.isArray() || r.items.size() <= i || r.items.get(i).type != ':') {
            return r;
        }
        List<Reply> out = new ArrayList<>(r.items);
        out.set(i, MASKED_TIME);
        return Reply.aggregate(r.type, out);
    }

    /** A flat map (RESP2 array or RESP3 map) with the value after {@code key} passed through {@code f}. */
    private static Reply maskKey(Reply r, String key, java.util.function.UnaryOperator<Reply> f) {
        if (!r.isArray()) {
            return r;
        }
        List<Reply> out = new ArrayList<>(r.items);
        for (int i = 0; i + 1 < out.size(); i += 2) {
            if (out.get(i).isBulk() && key.equals(out.get(i).text())) {
                out.set(i + 1, f.apply(out.get(i + 1)));
            }
        }
        return Reply.aggregate(r.type, out);
    }
}
