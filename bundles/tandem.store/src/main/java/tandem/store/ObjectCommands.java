package tandem.store;

import java.util.List;

import tandem.api.store.Reply;
import tandem.store.Tx.Rec;

/**
 * OBJECT and MEMORY, the introspection commands over one key, answered as Redis 7.0 with its default configuration
 * ({@code maxmemory 0}, policy {@code noeviction}, the default listpack thresholds) would answer them.
 *
 * <p>Both are containers in Redis: an unknown subcommand is refused before the arity of a known one is checked, and
 * each subcommand has its own arity, named {@code object|encoding} in the error.
 */
final class ObjectCommands {

    /** {@code OBJ_ENCODING_EMBSTR_SIZE_LIMIT}: a string made from its bytes this long or shorter is "embstr". */
    static final int EMBSTR_SIZE_LIMIT = 44;
    /** {@code OBJ_SHARED_INTEGERS}: the integers 0..9999 are shared objects in Redis. */
    static final long SHARED_INTEGERS = 10000;
    /** {@code OBJ_SHARED_REFCOUNT}, the reference count of a shared object. */
    static final long SHARED_REFCOUNT = Integer.MAX_VALUE;

    private static final List<String> OBJECT_HELP = List.of(
            "ENCODING <key>",
            "    Return the kind of internal representation used in order to store the value",
            "    associated with a <key>.",
            "FREQ <key>",
            "    Return the access frequency index of the <key>. The returned integer is",
            "    proportional to the logarithm of the recent access frequency of the key.",
            "IDLETIME <key>",
            "    Return the idle time of the <key>, that is the approximated number of",
            "    seconds elapsed since the last access to the key.",
            "REFCOUNT <key>",
            "    Return the number of references of the value associated with the specified",
            "    <key>.");

    private static final List<String> MEMORY_HELP = List.of(
            "DOCTOR",
            "    Return memory problems reports.",
            "MALLOC-STATS",
            "    Return internal statistics report from the memory allocator.",
            "PURGE",
            "    Attempt to purge dirty pages for reclamation by the allocator.",
            "STATS",
            "    Return information about the memory usage of the server.",
            "USAGE <key> [SAMPLES <count>]",
            "    Return memory in bytes used by <key> and its value. Nested values are",
            "    sampled up to <count> times (default: 5, 0 means sample all).");

    private ObjectCommands() {
    }

    /** Redis' {@code OBJECT ENCODING} of a record, from its bytes and its encoding flags. */
    static String encoding(Rec rec) {
        if (rec.isSet()) {
            return Sets.encodingName(rec);
        }
        if (rec.isList()) {
            return "quicklist"; // Redis 7.0 keeps every list as a quicklist
        }
        if (rec.isZset()) {
            return Zsets.encodingName(rec);
        }
        if (rec.isStream()) {
            return "stream";
        }
        if (rec.isHash()) {
            // the count also tells for a hash stored before the flag existed
            return rec.has(Tx.ENC_RAW) || rec.fieldCount() > HashCommands.SMALL_HASH ? "hashtable" : "listpack";
        }
        if (rec.has(Tx.ENC_RAW)) {
            return "raw";
        }
        byte[] v = rec.value();
        // tryObjectEncoding: an integer of at most 20 characters that string2l takes back exactly
        if (!rec.has(Tx.ENC_PLAIN) && v.length <= 20 && Numbers.isLong(v)) {
            return "int";
        }
        return v.length <= EMBSTR_SIZE_LIMIT ? "embstr" : "raw";
    }

    /** OBJECT ENCODING|FREQ|IDLETIME|REFCOUNT key, OBJECT HELP. */
    static void object(Tx tx, byte[][] a, Reply r) {
        byte[] sub = a[1];
        if (Args.is(sub, "help")) {
            arity(a, 2, "object|help");
            help(r, "OBJECT", OBJECT_HELP);
            return;
        }
        String name = Args.is(sub, "encoding") ? "encoding" : Args.is(sub, "freq") ? "freq"
                : Args.is(sub, "idletime") ? "idletime" : Args.is(sub, "refcount") ? "refcount" : null;
        if (name == null) {
            throw unknownSubcommand(sub, "OBJECT");
        }
        arity(a, 3, "object|" + name);
        Rec rec = tx.lookupQuietly(a[2]); // LOOKUP_NONOTIFY
        if (rec == null) {
            r.nullBulk();
            return;
        }
        switch (name) {
            case "encoding" -> r.bulk(Args.ascii(encoding(rec)));
            case "refcount" -> r.integer(sharedInteger(rec) ? SHARED_REFCOUNT : 1);
            // Tandem does not track access times (a read never writes): every key reads as just used
            case "idletime" -> r.integer(0);
            default -> throw new CommandError("ERR An LFU maxmemory policy is not selected, access frequency not "
                    + "tracked. Please note that when switching between policies at runtime LRU and LFU data will "
                    + "take some time to adjust.");
        }
    }

    /** Redis shares the objects of the integers 0..9999 (with maxmemory 0) among every key holding one. */
    private static boolean sharedInteger(Rec rec) {
        if (!encoding(rec).equals("int")) {
            return false;
        }
        long v = Numbers.parseLong(rec.value());
        return v >= 0 && v < SHARED_INTEGERS;
    }

    /** MEMORY USAGE key [SAMPLES count], MEMORY HELP. */
    static void memory(Tx tx, byte[][] a, Reply r) {
        byte[] sub = a[1];
        if (Args.is(sub, "help")) {
            arity(a, 2, "memory|help");
            help(r, "MEMORY", MEMORY_HELP);
            return;
        }
        if (!Args.is(sub, "usage")) {
            throw unknownSubcommand(sub, "MEMORY");
        }
        if (a.length < 3) {
            throw CommandError.arity("memory|usage");
        }
        long samples = 5; // OBJ_COMPUTE_SIZE_DEF_SAMPLES
        for (int j = 3; j < a.length; j++) {
            if (Args.is(a[j], "samples") && j + 1 < a.length) {
                samples = Numbers.parseLong(a[++j]);
                if (samples < 0) {
                    throw new CommandError(CommandError.SYNTAX);
                }
                if (samples == 0) {
                    samples = Long.MAX_VALUE;
                }
            } else {
                throw new CommandError(CommandError.SYNTAX);
            }
        }
        // Redis looks the key up in its dict without the expiry check: a key past its deadline that no Tick has
        // removed yet is measured too, as DBSIZE counts it
        Rec rec = tx.raw(a[2]);
        if (rec == null) {
            r.nullBulk();
            return;
        }
        r.integer(usage(tx, a[2], rec, samples));
    }

    static void arity(byte[][] a, int arity, String fullName) {
        if (a.length != arity) {
            throw CommandError.arity(fullName);
        }
    }

    static CommandError unknownSubcommand(byte[] sub, String command) {
        String name = Args.text(sub);
        if (name.length() > 128) {
            name = name.substring(0, 128); // %.128s
        }
        return new CommandError("ERR unknown subcommand '" + name + "'. Try " + command + " HELP.");
    }

    /** {@code addReplyHelp}: a header, the lines, then HELP's own two, all as status replies. */
    static void help(Reply r, String command, List<String> lines) {
        r.array(lines.size() + 3);
        r.simple(command + " <subcommand> [<arg> [value] [opt] ...]. Subcommands are:");
        lines.forEach(r::simple);
        r.simple("HELP");
        r.simple("    Prints this help.");
    }

    // ---------------------------------------------------------------- MEMORY USAGE

    private static final long ROBJ = 16;       // sizeof(robj)
    private static final long DICT_ENTRY = 24; // sizeof(dictEntry)
    private static final long DICT = 56;       // sizeof(dict)

    /**
     * An estimate of what Redis 7.0 with jemalloc answers, by its own formula ({@code objectComputeSize} plus the
     * key's sds and its dict entry) over the value as Redis would hold it: exact for "int" and "embstr" strings and
     * for listpack hashes; a "raw" string is counted without the spare room Redis' greedy growth leaves, and a
     * hashtable with the smallest table that holds its fields, sampled in field order.
     */
    static long usage(Tx tx, byte[] key, Rec rec, long samples) {
        long usage = sdsAllocation(key.length) + DICT_ENTRY;
        if (rec.isString()) {
            int length = rec.value().length;
            return usage + switch (encoding(rec)) {
                case "int" -> ROBJ;
                case "embstr" -> allocation(ROBJ + 3 + length + 1); // robj and sdshdr8 in one allocation
                default -> ROBJ + sdsAllocation(length);
            };
        }
        if (rec.isStream()) {
            return usage + streamUsage(new Streams.Stream(tx, key, rec), samples);
        }
        if (encoding(rec).equals("listpack")) {
            long bytes = 6 + 1; // header and end byte
            for (byte[][] pair : tx.fields(key)) {
                bytes += Listpack.entrySize(pair[0]) + Listpack.entrySize(pair[1]);
            }
            return usage + ROBJ + allocation(bytes);
        }
        long count = rec.fieldCount();
        long slots = Math.max(4, Long.highestOneBit(count - 1) << 1);
        long size = ROBJ + DICT + 8 * slots;
        long sampled = 0;
        long elements = 0;
        for (byte[][] pair : tx.fieldsAfter(key, null, (int) Math.min(samples, Integer.MAX_VALUE))) {
            elements += sdsAllocation(pair[0].length) + sdsAllocation(pair[1].length) + DICT_ENTRY;
            sampled++;
        }
        if (sampled > 0) {
            size = (long) (size + (double) elements / sampled * count);
        }
        return usage + size;
    }

    /**
     * {@code objectComputeSize} of a stream: the object and {@code struct stream}, the radix tree by Redis's own
     * rough formula, the listpacks (the first {@code samples} measured, the rest taken as their average, the last
     * measured), and the groups' and consumers' PELs. Each listpack is counted as jemalloc would allocate its bytes,
     * the last at least the 4096 bytes Redis allocates a new node with: an estimate, since Redis measures what its
     * allocations became.
     */
    private static long streamUsage(Streams.Stream s, long samples) {
        long size = ROBJ + 80; // sizeof(stream)
        List<byte[]> keys = s.nodeKeys();
        size += raxUsage(keys.size(), Streams.raxNodes(keys));
        List<Streams.Node> nodes = s.nodes(Integer.MAX_VALUE);
        long sampled = 0;
        long bytes = 0;
        for (Streams.Node n : nodes) {
            if (sampled >= samples) {
                break;
            }
            bytes += listpackAllocation(n, n == nodes.get(nodes.size() - 1));
            sampled++;
        }
        if (nodes.size() <= sampled) {
            size += bytes;
        } else {
            if (sampled > 0) {
                bytes /= sampled;
            }
            size += bytes * (nodes.size() - 1) + listpackAllocation(nodes.get(nodes.size() - 1), true);
        }
        for (Streams.Group g : s.groups()) {
            size += 40; // sizeof(streamCG)
            List<byte[]> pel = new java.util.ArrayList<>();
            s.pending(g, StreamId.MIN, StreamId.MAX, Long.MAX_VALUE).forEach(n -> pel.add(n.id.encode()));
            size += raxUsage(pel.size(), Streams.raxNodes(pel)) + 24L * pel.size(); // sizeof(streamNACK)
            for (Streams.Consumer c : s.consumers(g)) {
                size += 24 + c.name.length; // sizeof(streamConsumer), its name
                List<byte[]> own = new java.util.ArrayList<>();
                s.consumerPending(g, c.name, StreamId.MIN, StreamId.MAX, Long.MAX_VALUE)
                        .forEach(id -> own.add(id.encode()));
                size += raxUsage(own.size(), Streams.raxNodes(own));
            }
        }
        return size;
    }

    /** {@code streamRadixTreeMemoryUsage}, its overwritten first term included. */
    private static long raxUsage(long elements, long nodes) {
        return elements * 16 + nodes * 4 + nodes * 8 * 30;
    }

    private static long listpackAllocation(Streams.Node n, boolean last) {
        long bytes = n.listpackBytes();
        return allocation(last ? Math.max(bytes, 4096) : bytes);
    }

    /** jemalloc's size class for {@code n} bytes: 8, then multiples of 16 up to 128, then four classes a doubling. */
    static long allocation(long n) {
        if (n <= 8) {
            return 8;
        }
        if (n <= 128) {
            return (n + 15) & ~15L;
        }
        long step = Long.highestOneBit(n - 1) / 4;
        return (n + step - 1) / step * step;
    }

    /** An sds of {@code length} bytes as {@code sdsnewlen} allocates it: the header for that length, the bytes, NUL. */
    static long sdsAllocation(long length) {
        int header = length < 1 << 5 ? 1 : length < 1 << 8 ? 3 : length < 1 << 16 ? 5 : length < 1L << 32 ? 9 : 17;
        return allocation(header + length + 1);
    }
}
