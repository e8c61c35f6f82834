package tandem.server.command;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

import tandem.server.resp.RespWriter;

/**
 * What Redis 7.0.15 answers to {@code COMMAND INFO} and {@code COMMAND DOCS}, kept as it sent them in RESP3
 * ({@code redis-7.0-commands.resp}, written by {@code redis-command-table.py} from a real redis-server), so that
 * Tandem describes each command it shares with Redis exactly as Redis does: flags, key positions and key specs, ACL
 * categories, tips, arguments, history. Written back in the client's protocol; a container's subcommands are those
 * Tandem has. The key specs also answer {@code COMMAND GETKEYS}.
 */
public final class RedisCommandTable {

    /** A RESP3 value as Redis sent it. */
    public sealed interface Value permits Items, Text, Number {
    }

    /**
     * An aggregate: {@code *} array, {@code %} map (keys and values alternating), {@code ~} set.
     */
    public record Items(char type, List<Value> items) implements Value {

        /** @return the value under {@code key} in a map, or null */
        public Value get(String key) {
            for (int i = 0; i + 1 < items.size(); i += 2) {
                if (items.get(i) instanceof Text t && t.text().equals(key)) {
                    return items.get(i + 1);
                }
            }
            return null;
        }
    }

    /** {@code +} simple or {@code $} bulk string. */
    public record Text(char type, String text) implements Value {
    }

    public record Number(long value) implements Value {
    }

    private static volatile RedisCommandTable loaded;

    /** Top-level command name to its COMMAND INFO entry and its COMMAND DOCS map. */
    private final Map<String, Items> info = new java.util.LinkedHashMap<>();
    private final Map<String, Items> docs = new HashMap<>();

    private RedisCommandTable(byte[] resp) {
        int[] p = {0};
        for (Value entry : ((Items) parse(resp, p)).items()) {
            Items e = (Items) entry;
            info.put(((Text) e.items().get(0)).text(), e);
        }
        Items all = (Items) parse(resp, p);
        for (int i = 0; i < all.items().size(); i += 2) {
            docs.put(((Text) all.items().get(i)).text(), (Items) all.items().get(i + 1));
        }
    }

    /** @return the table, read once from the bundle */
    public static RedisCommandTable get() {
        RedisCommandTable t = loaded;
        if (t == null) {
            try (InputStream in = RedisCommandTable.class.getResourceAsStream("redis-7.0-commands.resp")) {
                t = new RedisCommandTable(in.readAllBytes());
            } catch (IOException e) {
                throw new UncheckedIOException("the bundle's redis-7.0-commands.resp cannot be read", e);
            }
            loaded = t;
        }
        return t;
    }

    /** @return every top-level COMMAND INFO entry, in the order the table holds them */
    public java.util.Collection<Items> entries() {
        return java.util.Collections.unmodifiableCollection(info.values());
    }

    /** @return the name of an INFO entry ({@code get}, {@code client|info}) */
    public static String name(Items entry) {
        return ((Text) entry.items().get(0)).text();
    }

    /** @return the subcommands' INFO entries of a container's entry, none for another */
    public static List<Items> subcommands(Items entry) {
        List<Items> out = new ArrayList<>();
        for (Value v : ((Items) entry.items().get(9)).items()) {
            out.add((Items) v);
        }
        return out;
    }

    /** @return whether an INFO entry has key specs (Redis's {@code doesCommandHaveKeys}) */
    public static boolean hasKeys(Items entry) {
        return !((Items) entry.items().get(8)).items().isEmpty();
    }

    /** @return Redis's COMMAND INFO entry of {@code fullName} ({@code get}, {@code client|info}), or null */
    public Items info(String fullName) {
        int bar = fullName.indexOf('|');
        Items top = info.get(bar < 0 ? fullName : fullName.substring(0, bar));
        if (top == null || bar < 0) {
            return top;
        }
        for (Value sub : ((Items) top.items().get(9)).items()) {
            if (((Text) ((Items) sub).items().get(0)).text().equals(fullName)) {
                return (Items) sub;
            }
        }
        return null;
    }

    /** @return Redis's COMMAND DOCS map of {@code fullName}, or null */
    Items docs(String fullName) {
        int bar = fullName.indexOf('|');
        Items top = docs.get(bar < 0 ? fullName : fullName.substring(0, bar));
        if (top == null || bar < 0) {
            return top;
        }
        Value subs = top.get("subcommands");
        return subs == null ? null : (Items) ((Items) subs).get(fullName);
    }

    /** An INFO entry with only the subcommands {@code keep} accepts (by full name). */
    static Items infoWithSubcommands(Items entry, Predicate<String> keep) {
        List<Value> items = new ArrayList<>(entry.items());
        List<Value> subs = new ArrayList<>();
        for (Value sub : ((Items) items.get(9)).items()) {
            if (keep.test(((Text) ((Items) sub).items().get(0)).text())) {
                subs.add(sub);
            }
        }
        items.set(9, new Items('*', subs));
        return new Items(entry.type(), items);
    }

    /** A DOCS map with only the subcommands {@code keep} accepts. */
    static Items docsWithSubcommands(Items doc, Predicate<String> keep) {
        List<Value> items = new ArrayList<>(doc.items());
        for (int i = 0; i + 1 < items.size(); i += 2) {
            if (items.get(i) instanceof Text t && t.text().equals("subcommands")) {
                List<Value> subs = new ArrayList<>();
                List<Value> all = ((Items) items.get(i + 1)).items();
                for (int j = 0; j + 1 < all.size(); j += 2) {
                    if (keep.test(((Text) all.get(j)).text())) {
                        subs.add(all.get(j));
                        subs.add(all.get(j + 1));
                    }
                }
                items.set(i + 1, new Items('%', subs));
            }
        }
        return new Items(doc.type(), items);
    }

    /** @return the command flags of an INFO entry ({@code readonly}, {@code no_mandatory_keys}…) */
    public static List<String> flags(Items entry) {
        List<String> out = new ArrayList<>();
        for (Value v : ((Items) entry.items().get(2)).items()) {
            out.add(((Text) v).text());
        }
        return out;
    }

    /** @return the ACL categories of an INFO entry, without their {@code @} */
    public static List<String> categories(Items entry) {
        List<String> out = new ArrayList<>();
        for (Value v : ((Items) entry.items().get(6)).items()) {
            out.add(((Text) v).text().substring(1));
        }
        return out;
    }

    /** Writes {@code v} in the client's protocol, as Redis would have written it there. */
    static void write(RespWriter r, Value v) {
        if (v instanceof Items i) {
            if (i.type() == '%') {
                r.map(i.items().size() / 2);
            } else if (i.type() == '~') {
                r.set(i.items().size());
            } else {
                r.array(i.items().size());
            }
            i.items().forEach(x -> write(r, x));
        } else if (v instanceof Text t) {
            if (t.type() == '+') {
                r.simple(t.text());
            } else {
                r.bulk(t.text().getBytes(StandardCharsets.ISO_8859_1));
            }
        } else {
            r.integer(((Number) v).value());
        }
    }

    /** One RESP3 value of the types COMMAND INFO and DOCS use. */
    private static Value parse(byte[] b, int[] p) {
        char type = (char) b[p[0]];
        int eol = p[0];
        while (b[eol] != '\r') {
            eol++;
        }
        String line = new String(b, p[0] + 1, eol - p[0] - 1, StandardCharsets.ISO_8859_1);
        p[0] = eol + 2;
        switch (type) {
            case '+':
                return new Text('+', line);
            case ':':
                return new Number(Long.parseLong(line));
            case '$': {
                int n = Integer.parseInt(line);
                String s = new String(b, p[0], n, StandardCharsets.ISO_8859_1);
                p[0] += n + 2;
                return new Text('$', s);
            }
            case '*', '~', '%': {
                int n = Integer.parseInt(line) * (type == '%' ? 2 : 1);
                List<Value> items = new ArrayList<>(n);
                for (int i = 0; i < n; i++) {
                    items.add(parse(b, p));
                }
                return new Items(type, items);
            }
            default:
                throw new IllegalStateException("redis-7.0-commands.resp: a value of type " + type
                        + " the table does not expect");
        }
    }

    // ---------------------------------------------------------------- COMMAND GETKEYS

    /** The order in which Redis names key-spec flags ({@code addReplyFlagsForKeyArgs}). */
    static final List<String> KEY_FLAGS = List.of("RO", "RW", "OW", "RM", "access", "update", "insert", "delete",
            "not_key", "incomplete", "variable_flags");

    /** One key {@code COMMAND GETKEYS} found: its argument index and its flags, in Redis's order. */
    public record Key(int position, List<String> flags) {
    }

    /**
     * The keys of {@code args} (the command and its arguments) by {@code getKeysFromCommandWithSpecs}: the entry's
     * key specs when they are complete and their flags fixed, else the command's own rules (SORT, MIGRATE, SET,
     * BITFIELD: the ones Tandem has).
     *
     * @return the keys, or null when the specs do not apply to these arguments
     */
    public static List<Key> keys(Items entry, byte[][] args) {
        String name = ((Text) entry.items().get(0)).text();
        List<Items> specs = new ArrayList<>();
        boolean variable = false;
        boolean anyKey = false;
        for (Value s : ((Items) entry.items().get(8)).items()) {
            Items spec = (Items) s;
            specs.add(spec);
            List<String> flags = keyFlags(spec);
            variable |= flags.contains("variable_flags");
            anyKey |= !flags.contains("not_key");
        }
        if (anyKey && !variable) {
            List<Key> keys = bySpecs(specs, args, ((Number) entry.items().get(1)).value());
            if (keys != null) {
                return keys;
            }
        }
        return switch (name) {
            case "sort" -> sortKeys(args);
            case "sort_ro" -> List.of(new Key(1, List.of("RO", "access")));
            case "migrate" -> migrateKeys(args);
            case "set" -> List.of(new Key(1, hasGet(args) ? List.of("RW", "access", "update")
                    : List.of("OW", "update")));
            case "bitfield" -> List.of(new Key(1, bitfieldReadOnly(args) ? List.of("RO", "access")
                    : List.of("RW", "access", "update")));
            default -> List.of();
        };
    }

    private static List<String> keyFlags(Items spec) {
        List<String> out = new ArrayList<>();
        for (Value v : ((Items) spec.get("flags")).items()) {
            out.add(((Text) v).text());
        }
        return out;
    }

    private static long number(Items map, String key) {
        return ((Number) map.get(key)).value();
    }

    /** {@code getKeysUsingKeySpecs}. */
    private static List<Key> bySpecs(List<Items> specs, byte[][] argv, long arity) {
        int argc = argv.length;
        List<Key> keys = new ArrayList<>();
        for (Items spec : specs) {
            List<String> flags = keyFlags(spec);
            if (flags.contains("not_key")) {
                continue;
            }
            Items begin = (Items) spec.get("begin_search");
            Items bs = (Items) begin.get("spec");
            int first = 0;
            switch (((Text) begin.get("type")).text()) {
                case "index" -> first = (int) number(bs, "index");
                case "keyword" -> {
                    String keyword = ((Text) bs.get("keyword")).text();
                    int from = (int) number(bs, "startfrom");
                    int start = from > 0 ? from : argc + from;
                    int end = from > 0 ? argc - 1 : 1;
                    for (int i = start; i != end; i = start <= end ? i + 1 : i - 1) {
                        if (i >= argc || i < 1) {
                            break;
                        }
                        if (new String(argv[i], StandardCharsets.ISO_8859_1).equalsIgnoreCase(keyword)) {
                            first = i + 1;
                            break;
                        }
                    }
                    if (first == 0) {
                        continue; // the keyword is not there: no keys of this spec
                    }
                }
                default -> {
                    return null;
                }
            }
            Items find = (Items) spec.get("find_keys");
            Items fk = (Items) find.get("spec");
            int last;
            int step;
            switch (((Text) find.get("type")).text()) {
                case "range" -> {
                    step = (int) number(fk, "keystep");
                    int lastkey = (int) number(fk, "lastkey");
                    int limit = (int) number(fk, "limit");
                    last = lastkey >= 0 ? first + lastkey
                            : limit == 0 ? argc + lastkey : first + ((argc - first) / limit + lastkey);
                }
                case "keynum" -> {
                    step = (int) number(fk, "keystep");
                    int keynumidx = (int) number(fk, "keynumidx");
                    if (keynumidx >= argc || first + keynumidx >= argc) {
                        return null;
                    }
                    long numkeys;
                    try {
                        numkeys = tandem.protocol.command.String2ll.parse(argv[first + keynumidx]);
                    } catch (NumberFormatException e) {
                        return null;
                    }
                    if (numkeys < 0 || numkeys > argc) {
                        return null;
                    }
                    first += (int) number(fk, "firstkey");
                    last = first + (int) numkeys - 1;
                }
                default -> {
                    return null;
                }
            }
            if (last >= argc || last < first || first >= argc) {
                return null;
            }
            for (int i = first; i <= last; i += step) {
                if (i >= argc || i < first) {
                    if (arity < 0) {
                        continue;
                    }
                    return null;
                }
                keys.add(new Key(i, flags));
            }
            if (flags.contains("incomplete")) {
                return null;
            }
        }
        return keys;
    }

    private static boolean is(byte[] arg, String word) {
        return new String(arg, StandardCharsets.ISO_8859_1).equalsIgnoreCase(word);
    }

    /** {@code sortGetKeys}: the sorted key, and the last STORE's target. */
    private static List<Key> sortKeys(byte[][] argv) {
        List<Key> keys = new ArrayList<>(List.of(new Key(1, List.of("RO", "access"))));
        int store = -1;
        for (int i = 2; i < argv.length; i++) {
            if (is(argv[i], "limit")) {
                i += 2;
            } else if (is(argv[i], "get") || is(argv[i], "by")) {
                i += 1;
            } else if (is(argv[i], "store") && i + 1 < argv.length) {
                store = i + 1;
            }
        }
        if (store > 0) {
            keys.add(new Key(store, List.of("OW", "update")));
        }
        return keys;
    }

    /** {@code migrateGetKeys}: the key, or those after KEYS. */
    private static List<Key> migrateKeys(byte[][] argv) {
        int first = 3;
        int num = 1;
        if (argv.length > 6) {
            for (int i = 6; i < argv.length; i++) {
                if (is(argv[i], "keys")) {
                    if (argv[3].length > 0) {
                        num = 0;
                    } else {
                        first = i + 1;
                        num = argv.length - first;
                    }
                    break;
                }
                if (is(argv[i], "auth")) {
                    i += 1;
                } else if (is(argv[i], "auth2")) {
                    i += 2;
                }
            }
        }
        List<Key> keys = new ArrayList<>();
        for (int i = 0; i < num; i++) {
            keys.add(new Key(first + i, List.of("RW", "access", "delete")));
        }
        return keys;
    }

    private static boolean hasGet(byte[][] argv) {
        for (int i = 3; i < argv.length; i++) {
            if (argv[i].length == 3 && is(argv[i], "get")) {
                return true;
            }
        }
        return false;
    }

    /** {@code bitfieldGetKeys}: read-only while every operation is a GET (or OVERFLOW). */
    private static boolean bitfieldReadOnly(byte[][] argv) {
        for (int i = 2; i < argv.length; i++) {
            int rest = argv.length - i - 1;
            if (is(argv[i], "get") && rest >= 2) {
                i += 2;
            } else if ((is(argv[i], "set") || is(argv[i], "incrby")) && rest >= 3) {
                return false;
            } else if (is(argv[i], "overflow") && rest >= 1) {
                i += 1;
            } else {
                return false;
            }
        }
        return true;
    }
}
