package tandem.store;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

import tandem.api.store.BlockingWait;
import tandem.api.store.KeyspaceEvents;
import tandem.api.store.Reply;
import tandem.store.Streams.Consumer;
import tandem.store.Streams.Entry;
import tandem.store.Streams.Group;
import tandem.store.Streams.Nack;
import tandem.store.Streams.Stream;

/**
 * The stream commands as Redis 7.0.15's {@code t_stream.c} answers them: arguments checked in its order, its
 * replies and error texts. Every time a command reads — a generated ID, a delivery time, an idle time, a
 * consumer's seen time — is the entry's time ({@link Tx#nowMs}), never the clock: every replica and every replay
 * decides the same.
 *
 * <p>Blocking: XREAD and XREADGROUP with BLOCK answer a nil array when they find nothing, and the node parks them
 * ({@link #blockingWait}); their later tries run under the woken names ({@code xread|woken},
 * {@code xreadgroup|woken}), which serve as Redis serves a blocked client: only new entries, at most COUNT (1000
 * without it), from the first of the keys that has some. A first XREAD resolves {@code $} to the stream's last ID
 * and writes it into its arguments, so that the tries after it wait for what came after the command was received.
 */
final class StreamCommands {

    /**
     * The most bytes an allocation of XAUTOCLAIM's COUNT IDs gets in Redis on x86-64 Linux: the 47-bit user address
     * space (jemalloc maps without reserving, so the memory itself does not bound it).
     */
    static final long MAX_CLAIM_ALLOCATION = 1L << 47;

    /** {@code XREAD_BLOCKED_DEFAULT_COUNT}. */
    static final long BLOCKED_DEFAULT_COUNT = 1000;

    private StreamCommands() {
    }

    // ---------------------------------------------------------------- shared helpers

    /** {@code addReplyErrorFormat}: line breaks become spaces, so a name quoted in it cannot break the protocol. */
    static CommandError formatted(String message) {
        String s = message;
        int start = 0;
        int end = s.length();
        while (start < end && (s.charAt(start) == '\r' || s.charAt(start) == '\n')) {
            start++;
        }
        while (end > start && (s.charAt(end - 1) == '\r' || s.charAt(end - 1) == '\n')) {
            end--;
        }
        return new CommandError(s.substring(start, end).replace('\r', ' ').replace('\n', ' '));
    }

    /**
     * {@code lookupKeyRead} of a write command (XREADGROUP, XACK, XCLAIM, XAUTOCLAIM): a missing key raises
     * {@code keymiss}, as a read's does.
     */
    private static Stream readLookup(Tx tx, byte[] key) {
        Stream s = Streams.lookup(tx, key);
        if (s == null) {
            tx.readMiss(key);
        }
        return s;
    }

    private static String c(byte[] arg) {
        return Args.text(arg);
    }

    private static void entry(Reply r, Entry e) {
        r.array(2);
        r.bulk(e.id().bytes());
        r.array(e.pairs().length);
        for (byte[] p : e.pairs()) {
            r.bulk(p);
        }
    }

    private static void entries(Reply r, List<Entry> list) {
        r.array(list.size());
        list.forEach(e -> entry(r, e));
    }

    /** {@code streamParseIntervalIDOrReply}, with {@code streamIncrID}/{@code streamDecrID} for an open end. */
    private static StreamId interval(byte[] arg, long missingSeq, boolean start) {
        boolean exclusive = arg.length > 1 && arg[0] == '(';
        StreamId id = exclusive ? StreamId.parseOrError(Arrays.copyOfRange(arg, 1, arg.length), missingSeq, true)
                : StreamId.parseOrError(arg, missingSeq, false);
        if (exclusive) {
            id = start ? id.next() : id.previous();
            if (id == null) {
                throw new CommandError(start ? "ERR invalid start ID for the interval"
                        : "ERR invalid end ID for the interval");
            }
        }
        return id;
    }

    private static long longArg(byte[] arg, String error) {
        return Numbers.parseLong(arg, error == null ? CommandError.NOT_INTEGER : error);
    }

    private static CommandError subcommandSyntax(byte[][] a) {
        String sub = c(a[1]);
        if (sub.length() > 128) {
            sub = sub.substring(0, 128);
        }
        return formatted("ERR unknown subcommand or wrong number of arguments for '" + sub + "'. Try "
                + c(a[0]).toUpperCase(Locale.ROOT) + " HELP.");
    }

    // ---------------------------------------------------------------- XADD / XTRIM options

    /** {@code streamAddTrimArgs}, and where XADD's ID is. */
    record TrimArgs(int idPos, StreamId id, boolean idGiven, boolean seqGiven, boolean noMkstream, boolean trim,
            long maxLen, StreamId minId, boolean approx, long limit) {
    }

    /** {@code streamParseAddOrTrimArgsOrReply}. */
    static TrimArgs trimArgs(byte[][] a, boolean xadd) {
        int i = 2;
        boolean limitGiven = false;
        int strategy = 0; // 1 MAXLEN, 2 MINID
        boolean approx = false;
        long maxLen = 0;
        StreamId minId = null;
        long limit = 0;
        boolean noMkstream = false;
        StreamId.Parsed id = null;
        for (; i < a.length; i++) {
            int more = a.length - 1 - i;
            String opt = c(a[i]);
            if (xadd && opt.equals("*")) {
                break;
            } else if (opt.equalsIgnoreCase("maxlen") && more > 0) {
                if (strategy != 0) {
                    throw new CommandError(
                            "ERR syntax error, MAXLEN and MINID options at the same time are not compatible");
                }
                approx = false;
                String next = c(a[i + 1]);
                if (more >= 2 && next.equals("~")) {
                    approx = true;
                    i++;
                } else if (more >= 2 && next.equals("=")) {
                    i++;
                }
                maxLen = longArg(a[i + 1], null);
                if (maxLen < 0) {
                    throw new CommandError("ERR The MAXLEN argument must be >= 0.");
                }
                i++;
                strategy = 1;
            } else if (opt.equalsIgnoreCase("minid") && more > 0) {
                if (strategy != 0) {
                    throw new CommandError(
                            "ERR syntax error, MAXLEN and MINID options at the same time are not compatible");
                }
                approx = false;
                String next = c(a[i + 1]);
                if (more >= 2 && next.equals("~")) {
                    approx = true;
                    i++;
                } else if (more >= 2 && next.equals("=")) {
                    i++;
                }
                minId = StreamId.parseOrError(a[i + 1], 0, true);
                i++;
                strategy = 2;
            } else if (opt.equalsIgnoreCase("limit") && more > 0) {
                limit = longArg(a[i + 1], null);
                if (limit < 0) {
                    throw new CommandError("ERR The LIMIT argument must be >= 0.");
                }
                limitGiven = true;
                i++;
            } else if (xadd && opt.equalsIgnoreCase("nomkstream")) {
                noMkstream = true;
            } else if (xadd) {
                id = StreamId.parse(a[i], 0, true, true);
                if (id == null) {
                    throw new CommandError(StreamId.INVALID);
                }
                break;
            } else {
                throw new CommandError(CommandError.SYNTAX);
            }
        }
        if (limit != 0 && strategy == 0) {
            throw new CommandError("ERR syntax error, LIMIT cannot be used without specifying a trimming strategy");
        }
        if (!xadd && strategy == 0) {
            throw new CommandError("ERR syntax error, XTRIM must be called with a trimming strategy");
        }
        if (limitGiven) {
            if (!approx) {
                throw new CommandError("ERR syntax error, LIMIT cannot be used without the special ~ option");
            }
        } else {
            // 100 * stream-node-max-entries: the default bound of the work of an approximate trim
            limit = approx ? 100 * Streams.NODE_MAX_ENTRIES : 0;
        }
        return new TrimArgs(i, id == null ? null : id.id(), id != null, id == null || id.seqGiven(), noMkstream,
                strategy != 0, maxLen, strategy == 2 ? minId : null, approx, limit);
    }

    /** XADD's checks that do not depend on the keyspace: options, arity, 0-0. */
    static TrimArgs checkXadd(byte[][] a, long nowMs) {
        TrimArgs t = trimArgs(a, true);
        int fieldPos = t.idPos() + 1;
        if (a.length - fieldPos < 2 || (a.length - fieldPos) % 2 == 1) {
            throw CommandError.arity("xadd");
        }
        if (t.idGiven() && t.seqGiven() && t.id().isZero()) {
            throw new CommandError("ERR The ID specified in XADD must be greater than 0-0");
        }
        return t;
    }

    static void xadd(Tx tx, byte[][] a, Reply r) {
        TrimArgs t = tx.parsed instanceof TrimArgs p ? p : checkXadd(a, tx.nowMs);
        Stream s = Streams.lookup(tx, a[1]);
        if (s == null) {
            if (t.noMkstream()) {
                r.nullBulk();
                return;
            }
            s = Streams.create(tx, a[1]);
        }
        if (s.meta.lastId.isMax()) {
            throw new CommandError("ERR The stream has exhausted the last possible ID, unable to add more items");
        }
        byte[][] pairs = Arrays.copyOfRange(a, t.idPos() + 1, a.length);
        Object added = s.append(pairs, t.idGiven() ? t.id() : null, t.seqGiven(), tx.nowMs);
        if (added instanceof Stream.AppendFailure f) {
            // an <ms>-* whose sequence is exhausted fails without setting errno in Redis, which then answers from
            // whatever errno holds: "too large" unless an EDOM came just before in the same read (departures.md)
            throw new CommandError(f == Stream.AppendFailure.NOT_GREATER
                    ? "ERR The ID specified in XADD is equal or smaller than the target stream top item"
                    : "ERR Elements are too large to be stored");
        }
        r.bulk(((StreamId) added).bytes());
        tx.event(KeyspaceEvents.STREAM, "xadd", a[1]);
        if (t.trim() && s.trim(t.maxLen(), t.minId(), t.approx(), t.limit()) > 0) {
            tx.event(KeyspaceEvents.STREAM, "xtrim", a[1]);
        }
        s.save();
    }

    static TrimArgs checkXtrim(byte[][] a, long nowMs) {
        return trimArgs(a, false);
    }

    static void xtrim(Tx tx, byte[][] a, Reply r) {
        TrimArgs t = tx.parsed instanceof TrimArgs p ? p : checkXtrim(a, tx.nowMs);
        Stream s = Streams.lookup(tx, a[1]);
        if (s == null) {
            r.integer(0);
            return;
        }
        long deleted = s.trim(t.maxLen(), t.minId(), t.approx(), t.limit());
        if (deleted > 0) {
            tx.event(KeyspaceEvents.STREAM, "xtrim", a[1]);
        }
        s.save(); // even with nothing deleted, a node left empty by an exact MINID trim may have gone
        r.integer(deleted);
    }

    // ---------------------------------------------------------------- XRANGE, XREVRANGE, XLEN, XDEL

    static void xrange(Tx tx, byte[][] a, Reply r) {
        range(tx, a, false, r);
    }

    static void xrevrange(Tx tx, byte[][] a, Reply r) {
        range(tx, a, true, r);
    }

    private static void range(Tx tx, byte[][] a, boolean rev, Reply r) {
        StreamId start = interval(rev ? a[3] : a[2], 0, true);
        StreamId end = interval(rev ? a[2] : a[3], -1L, false);
        long count = -1;
        for (int j = 4; j < a.length; j++) {
            if (c(a[j]).equalsIgnoreCase("count") && a.length - j - 1 >= 1) {
                count = longArg(a[++j], null);
                if (count < 0) {
                    count = 0;
                }
            } else {
                throw new CommandError(CommandError.SYNTAX);
            }
        }
        Stream s = Streams.lookup(tx, a[1]);
        if (s == null) {
            r.array(0);
            return;
        }
        if (count == 0) {
            r.nullArray();
            return;
        }
        entries(r, s.range(start, end, count == -1 ? 0 : count, rev));
    }

    static void xlen(Tx tx, byte[][] a, Reply r) {
        Stream s = Streams.lookup(tx, a[1]);
        r.integer(s == null ? 0 : s.meta.length);
    }

    static void xdel(Tx tx, byte[][] a, Reply r) {
        Stream s = Streams.lookup(tx, a[1]);
        if (s == null) {
            r.integer(0);
            return;
        }
        List<StreamId> ids = new ArrayList<>();
        for (int j = 2; j < a.length; j++) {
            ids.add(StreamId.parseOrError(a[j], 0, true));
        }
        long deleted = 0;
        boolean first = false;
        for (StreamId id : ids) {
            if (s.delete(id)) {
                if (id.equals(s.meta.firstId)) {
                    first = true;
                }
                if (id.compareTo(s.meta.maxDeletedId) > 0) {
                    s.meta.maxDeletedId = id;
                }
                deleted++;
            }
        }
        if (deleted > 0) {
            if (s.meta.length == 0) {
                s.meta.firstId = StreamId.MIN;
            } else if (first) {
                s.meta.firstId = s.firstLiveId();
            }
            s.save();
            tx.event(KeyspaceEvents.STREAM, "xdel", a[1]);
        }
        r.integer(deleted);
    }

    // ---------------------------------------------------------------- XREAD, XREADGROUP

    /** XREAD's and XREADGROUP's options. */
    record ReadArgs(long timeout, long count, int streamsArg, int streams, boolean noack, byte[] group,
            byte[] consumer) {
    }

    /** The options before the keys, as {@code xreadCommand} parses them. */
    static ReadArgs readArgs(byte[][] a, boolean xreadgroup, boolean scripting) {
        long timeout = -1;
        long count = 0;
        int streamsArg = 0;
        int streams = 0;
        boolean noack = false;
        byte[] group = null;
        byte[] consumer = null;
        for (int i = 1; i < a.length; i++) {
            int more = a.length - i - 1;
            String o = c(a[i]);
            if (o.equalsIgnoreCase("block") && more > 0) {
                if (scripting) {
                    throw formatted("ERR " + c(a[0]) + " command is not allowed with BLOCK option from scripts");
                }
                i++;
                timeout = longArg(a[i], "ERR timeout is not an integer or out of range");
                if (timeout < 0) {
                    throw new CommandError("ERR timeout is negative");
                }
            } else if (o.equalsIgnoreCase("count") && more > 0) {
                i++;
                count = Math.max(0, longArg(a[i], null));
            } else if (o.equalsIgnoreCase("streams") && more > 0) {
                streamsArg = i + 1;
                streams = a.length - streamsArg;
                if (streams % 2 != 0) {
                    throw new CommandError("ERR Unbalanced XREAD list of streams: for each stream key an ID or '$' "
                            + "must be specified.");
                }
                streams /= 2;
                break;
            } else if (o.equalsIgnoreCase("group") && more >= 2) {
                if (!xreadgroup) {
                    throw new CommandError(
                            "ERR The GROUP option is only supported by XREADGROUP. You called XREAD instead.");
                }
                group = a[i + 1];
                consumer = a[i + 2];
                i += 2;
            } else if (o.equalsIgnoreCase("noack")) {
                if (!xreadgroup) {
                    throw new CommandError(
                            "ERR The NOACK option is only supported by XREADGROUP. You called XREAD instead.");
                }
                noack = true;
            } else {
                throw new CommandError(CommandError.SYNTAX);
            }
        }
        if (streamsArg == 0) {
            throw new CommandError(CommandError.SYNTAX);
        }
        if (xreadgroup && group == null) {
            throw new CommandError("ERR Missing GROUP option for XREADGROUP");
        }
        return new ReadArgs(timeout, count, streamsArg, streams, noack, group, consumer);
    }

    static ReadArgs checkXreadgroup(byte[][] a, long nowMs) {
        return readArgs(a, true, false);
    }

    static void xread(Tx tx, byte[][] a, Reply r) {
        read(tx, a, false, false, r);
    }

    static void xreadgroup(Tx tx, byte[][] a, Reply r) {
        read(tx, a, true, false, r);
    }

    static void xreadWoken(Tx tx, byte[][] a, Reply r) {
        read(tx, a, false, true, r);
    }

    static void xreadgroupWoken(Tx tx, byte[][] a, Reply r) {
        read(tx, a, true, true, r);
    }

    /** What one key of a read answers: its entries, or for a consumer's history an ID whose entry is gone (null). */
    private record Served(byte[] key, List<Object> items) {
    }

    private static void read(Tx tx, byte[][] a, boolean xreadgroup, boolean woken, Reply r) {
        ReadArgs o = readArgs(a, xreadgroup, tx.scripting);
        int n = o.streams();
        int keysAt = o.streamsArg();
        int idsAt = keysAt + n;
        if (woken) {
            served(tx, a, o, xreadgroup, r);
            return;
        }
        StreamId[] ids = new StreamId[n];
        for (int i = 0; i < n; i++) {
            byte[] key = a[keysAt + i];
            Stream s = readLookup(tx, key);
            if (xreadgroup && (s == null || s.group(o.group()) == null)) {
                throw formatted("NOGROUP No such key '" + c(key) + "' or consumer group '" + c(o.group())
                        + "' in XREADGROUP with GROUP option");
            }
            String arg = c(a[idsAt + i]);
            if (arg.equals("$")) {
                if (xreadgroup) {
                    throw new CommandError("ERR The $ ID is meaningless in the context of XREADGROUP: you want to "
                            + "read the history of this consumer by specifying a proper ID, or use the > ID to get "
                            + "new messages. The $ ID would just return an empty result set.");
                }
                ids[i] = s == null ? StreamId.MIN : s.meta.lastId;
            } else if (arg.equals(">")) {
                if (!xreadgroup) {
                    throw new CommandError("ERR The > ID can be specified only when calling XREADGROUP using the "
                            + "GROUP <group> <consumer> option.");
                }
                ids[i] = null;
            } else {
                ids[i] = StreamId.parseOrError(a[idsAt + i], 0, true);
            }
        }
        List<Served> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            byte[] key = a[keysAt + i];
            Stream s = readLookup(tx, key);
            if (s == null) {
                continue;
            }
            StreamId gt = ids[i];
            Group g = xreadgroup ? s.group(o.group()) : null;
            boolean history = false;
            boolean serve = false;
            if (g != null) {
                if (gt != null) {
                    serve = true;
                    history = true;
                } else if (s.meta.length > 0 && s.lastLiveId().compareTo(g.lastId) > 0) {
                    serve = true;
                    gt = g.lastId;
                }
            } else if (s.meta.length > 0 && s.lastLiveId().compareTo(gt) > 0) {
                serve = true;
            }
            if (!serve) {
                continue;
            }
            StreamId start = gt.next();
            if (start == null) {
                start = StreamId.MIN; // streamIncrID wraps
            }
            if (g == null) {
                out.add(new Served(key, new ArrayList<>(s.range(start, StreamId.MAX, o.count(), false))));
                continue;
            }
            Consumer consumer = s.seenOrCreated(g, o.consumer(), tx.nowMs);
            List<Object> items = history ? history(s, g, consumer, start, o.count(), tx.nowMs)
                    : deliver(s, g, consumer, start, o.count(), o.noack(), tx.nowMs);
            s.putGroup(g);
            out.add(new Served(key, items));
        }
        if (!out.isEmpty()) {
            reply(r, out);
            return;
        }
        if (!xreadgroup && o.timeout() != -1) {
            // the node parks this read: its later tries wait for what comes after the IDs it resolved now
            for (int i = 0; i < n; i++) {
                if (c(a[idsAt + i]).equals("$")) {
                    a[idsAt + i] = ids[i].bytes();
                }
            }
        }
        r.nullArray();
    }

    /** A blocked read's later try ({@code serveClientsBlockedOnStreamKey}): new entries of the first key that has. */
    private static void served(Tx tx, byte[][] a, ReadArgs o, boolean xreadgroup, Reply r) {
        int n = o.streams();
        int keysAt = o.streamsArg();
        long count = o.count() != 0 ? o.count() : BLOCKED_DEFAULT_COUNT;
        for (int i = 0; i < n; i++) {
            byte[] key = a[keysAt + i];
            tandem.store.Tx.Rec rec = tx.meta(key);
            if (xreadgroup && (rec == null || !rec.isStream())) {
                throw new CommandError("UNBLOCKED the stream key no longer exists");
            }
            if (rec == null || !rec.isStream()) {
                continue; // an XREAD waits through a key that holds another type, or none
            }
            Stream s = new Stream(tx, key, rec);
            StreamId gt;
            Group g = null;
            if (xreadgroup) {
                g = s.group(o.group());
                if (g == null) {
                    throw new CommandError("NOGROUP the consumer group this client was blocked on no longer exists");
                }
                gt = g.lastId;
            } else {
                String arg = c(a[keysAt + n + i]);
                gt = arg.equals("$") ? s.meta.lastId : StreamId.parseOrError(a[keysAt + n + i], 0, true);
            }
            if (s.meta.lastId.compareTo(gt) <= 0) {
                continue;
            }
            StreamId start = gt.next();
            List<Object> items;
            if (g == null) {
                items = new ArrayList<>(s.range(start, StreamId.MAX, count, false));
            } else {
                Consumer consumer = s.seenOrCreated(g, o.consumer(), tx.nowMs);
                items = deliver(s, g, consumer, start, count, o.noack(), tx.nowMs);
                s.putGroup(g);
            }
            reply(r, List.of(new Served(key, items)));
            return;
        }
        r.nullArray();
    }

    private static void reply(Reply r, List<Served> out) {
        boolean resp3 = r.protocol() >= 3;
        if (resp3) {
            r.map(out.size());
        } else {
            r.array(out.size());
        }
        for (Served sv : out) {
            if (!resp3) {
                r.array(2);
            }
            r.bulk(sv.key());
            r.array(sv.items().size());
            for (Object item : sv.items()) {
                if (item instanceof Entry e) {
                    entry(r, e);
                } else {
                    r.array(2);
                    r.bulk(((StreamId) item).bytes());
                    r.nullArray();
                }
            }
        }
    }

    /**
     * {@code streamReplyWithRange} with a group: the entries after {@code start}, delivered to {@code consumer}
     * (unless {@code noack}, each joins its PEL), moving the group's last ID and read counter.
     */
    private static List<Object> deliver(Stream s, Group g, Consumer consumer, StreamId start, long count,
            boolean noack, long nowMs) {
        List<Object> items = new ArrayList<>();
        for (Entry e : s.range(start, StreamId.MAX, count, false)) {
            StreamId id = e.id();
            if (id.compareTo(g.lastId) > 0) {
                if (g.entriesRead != Streams.INVALID_ENTRIES_READ && !s.tombstonesFrom(id)) {
                    g.entriesRead++;
                } else if (s.meta.entriesAdded != 0) {
                    g.entriesRead = s.distanceFromFirstEver(id);
                }
                g.lastId = id;
            }
            items.add(e);
            if (!noack) {
                Nack nack = s.nack(g, id);
                if (nack == null) {
                    nack = new Nack(id, nowMs, 1, null);
                    g.pending++;
                } else {
                    nack.deliveryMs = nowMs;
                    nack.deliveries = 1;
                }
                s.assign(g, nack, consumer);
            }
        }
        return items;
    }

    /** {@code streamReplyWithRangeFromConsumerPEL}: the consumer's pending entries from {@code start}. */
    private static List<Object> history(Stream s, Group g, Consumer consumer, StreamId start, long count,
            long nowMs) {
        List<Object> items = new ArrayList<>();
        for (StreamId id : s.consumerPending(g, consumer.name, start, StreamId.MAX,
                count == 0 ? Long.MAX_VALUE : count)) {
            Entry e = s.entry(id);
            if (e == null || e.deleted()) {
                items.add(id);
            } else {
                items.add(e);
                Nack nack = s.nack(g, id);
                nack.deliveryMs = nowMs;
                nack.deliveries++;
                s.putNack(g, nack);
            }
        }
        return items;
    }

    /**
     * What a blocking XREAD or XREADGROUP waits for: its keys and its BLOCK milliseconds; null without BLOCK, or
     * when its options do not parse (it is answered at once then).
     */
    static BlockingWait blockingWait(byte[][] a) {
        boolean group = Args.lower(a[0]).startsWith("xreadgroup");
        try {
            ReadArgs o = readArgs(a, group, false);
            if (o.timeout() == -1) {
                return null;
            }
            return new BlockingWait(Arrays.asList(a).subList(o.streamsArg(), o.streamsArg() + o.streams()),
                    o.timeout());
        } catch (CommandError e) {
            return null;
        }
    }

    // ---------------------------------------------------------------- XACK, XPENDING

    static void xack(Tx tx, byte[][] a, Reply r) {
        Stream s = readLookup(tx, a[1]);
        Group g = s == null ? null : s.group(a[2]);
        if (g == null) {
            r.integer(0);
            return;
        }
        List<StreamId> ids = new ArrayList<>();
        for (int j = 3; j < a.length; j++) {
            ids.add(StreamId.parseOrError(a[j], 0, true));
        }
        long acknowledged = 0;
        for (StreamId id : ids) {
            Nack n = s.nack(g, id);
            if (n != null) {
                s.acknowledge(g, n);
                acknowledged++;
            }
        }
        if (acknowledged > 0) {
            s.putGroup(g);
        }
        r.integer(acknowledged);
    }

    static void xpending(Tx tx, byte[][] a, Reply r) {
        boolean summary = a.length == 3;
        if (a.length != 3 && (a.length < 6 || a.length > 9)) {
            throw new CommandError(CommandError.SYNTAX);
        }
        StreamId start = null;
        StreamId end = null;
        long count = 0;
        long minIdle = 0;
        byte[] consumerName = null;
        if (a.length >= 6) {
            int at = 3;
            if (c(a[3]).equalsIgnoreCase("idle")) {
                minIdle = longArg(a[4], null);
                if (a.length < 8) {
                    throw new CommandError(CommandError.SYNTAX);
                }
                at += 2;
            }
            count = Math.max(0, longArg(a[at + 2], null));
            start = interval(a[at], 0, true);
            end = interval(a[at + 1], -1L, false);
            if (at + 3 < a.length) {
                consumerName = a[at + 3];
            }
        }
        Stream s = Streams.lookup(tx, a[1]);
        Group g = s == null ? null : s.group(a[2]);
        if (g == null) {
            throw formatted("NOGROUP No such key '" + c(a[1]) + "' or consumer group '" + c(a[2]) + "'");
        }
        if (summary) {
            r.array(4);
            r.integer(g.pending);
            if (g.pending == 0) {
                r.nullBulk();
                r.nullBulk();
                r.nullArray();
                return;
            }
            r.bulk(s.pending(g, StreamId.MIN, StreamId.MAX, 1).get(0).id.bytes());
            r.bulk(s.lastPending(g).bytes());
            List<Consumer> owning = new ArrayList<>();
            for (Consumer c : s.consumers(g)) {
                if (c.pending > 0) {
                    owning.add(c);
                }
            }
            r.array(owning.size());
            for (Consumer c : owning) {
                r.array(2);
                r.bulk(c.name);
                r.bulk(Numbers.bytes(c.pending));
            }
            return;
        }
        List<Nack> chosen = new ArrayList<>();
        if (consumerName != null) {
            if (s.consumer(g, consumerName) == null) {
                r.array(0);
                return;
            }
            for (StreamId id : s.consumerPending(g, consumerName, start, end, Long.MAX_VALUE)) {
                if (chosen.size() >= count) {
                    break;
                }
                Nack n = s.nack(g, id);
                if (minIdle == 0 || tx.nowMs - n.deliveryMs >= minIdle) {
                    chosen.add(n);
                }
            }
        } else if (count > 0) {
            if (minIdle == 0) {
                chosen = s.pending(g, start, end, count);
            } else {
                for (Nack n : s.pending(g, start, end, Long.MAX_VALUE)) {
                    if (chosen.size() >= count) {
                        break;
                    }
                    if (tx.nowMs - n.deliveryMs >= minIdle) {
                        chosen.add(n);
                    }
                }
            }
        }
        r.array(chosen.size());
        for (Nack n : chosen) {
            r.array(4);
            r.bulk(n.id.bytes());
            r.bulk(n.consumer);
            r.integer(Math.max(0, tx.nowMs - n.deliveryMs));
            r.integer(n.deliveries);
        }
    }

    // ---------------------------------------------------------------- XCLAIM, XAUTOCLAIM

    static void xclaim(Tx tx, byte[][] a, Reply r) {
        Stream s = readLookup(tx, a[1]);
        Group g = s == null ? null : s.group(a[2]);
        if (g == null) {
            throw formatted("NOGROUP No such key '" + c(a[1]) + "' or consumer group '" + c(a[2]) + "'");
        }
        long minIdle = Math.max(0, longArg(a[4], "ERR Invalid min-idle-time argument for XCLAIM"));
        List<StreamId> ids = new ArrayList<>();
        int j = 5;
        for (; j < a.length; j++) {
            StreamId.Parsed p = StreamId.parse(a[j], 0, true, false);
            if (p == null) {
                break;
            }
            ids.add(p.id());
        }
        long now = tx.nowMs;
        long retryCount = -1;
        long deliveryTime = -1;
        boolean force = false;
        boolean justId = false;
        StreamId lastId = StreamId.MIN;
        for (; j < a.length; j++) {
            int more = a.length - 1 - j;
            String opt = c(a[j]);
            if (opt.equalsIgnoreCase("force")) {
                force = true;
            } else if (opt.equalsIgnoreCase("justid")) {
                justId = true;
            } else if (opt.equalsIgnoreCase("idle") && more > 0) {
                deliveryTime = now - longArg(a[++j], "ERR Invalid IDLE option argument for XCLAIM");
            } else if (opt.equalsIgnoreCase("time") && more > 0) {
                deliveryTime = longArg(a[++j], "ERR Invalid TIME option argument for XCLAIM");
            } else if (opt.equalsIgnoreCase("retrycount") && more > 0) {
                retryCount = longArg(a[++j], "ERR Invalid RETRYCOUNT option argument for XCLAIM");
            } else if (opt.equalsIgnoreCase("lastid") && more > 0) {
                lastId = StreamId.parseOrError(a[++j], 0, true);
            } else {
                throw formatted("ERR Unrecognized XCLAIM option '" + opt + "'");
            }
        }
        if (lastId.compareTo(g.lastId) > 0) {
            g.lastId = lastId;
        }
        if (deliveryTime == -1 || deliveryTime < 0 || deliveryTime > now) {
            // a bogus time becomes now, as does no IDLE or TIME at all
            deliveryTime = now;
        }
        Consumer consumer = null;
        List<Object> claimed = new ArrayList<>();
        for (StreamId id : ids) {
            Nack nack = s.nack(g, id);
            Entry e = s.entry(id);
            if (e == null || e.deleted()) {
                if (nack != null) {
                    if (consumer != null && Arrays.equals(nack.consumer, consumer.name)) {
                        consumer.pending--;
                    }
                    s.acknowledge(g, nack);
                }
                continue;
            }
            if (force && nack == null) {
                nack = new Nack(id, now, 1, null);
                g.pending++;
            }
            if (nack == null) {
                continue;
            }
            if (nack.consumer != null && minIdle != 0 && now - nack.deliveryMs < minIdle) {
                continue;
            }
            if (consumer == null) {
                consumer = s.seenOrCreated(g, a[3], now);
            }
            nack.deliveryMs = deliveryTime;
            if (retryCount >= 0) {
                nack.deliveries = retryCount;
            } else if (!justId) {
                nack.deliveries++;
            }
            s.assign(g, nack, consumer);
            claimed.add(justId ? id : e);
        }
        s.putGroup(g); // its last ID, pending count or consumer count may have changed
        r.array(claimed.size());
        for (Object o : claimed) {
            if (o instanceof Entry e) {
                entry(r, e);
            } else {
                r.bulk(((StreamId) o).bytes());
            }
        }
    }

    static void xautoclaim(Tx tx, byte[][] a, Reply r) {
        long minIdle = Math.max(0, longArg(a[4], "ERR Invalid min-idle-time argument for XAUTOCLAIM"));
        StreamId start = interval(a[5], 0, true);
        long count = 100;
        boolean justId = false;
        for (int j = 6; j < a.length; j++) {
            int more = a.length - 1 - j;
            String opt = c(a[j]);
            if (opt.equalsIgnoreCase("count") && more > 0) {
                count = longArg(a[j + 1], "ERR COUNT must be > 0");
                if (count < 1 || count > Long.MAX_VALUE / 16) {
                    throw new CommandError("ERR COUNT must be > 0");
                }
                j++;
            } else if (opt.equalsIgnoreCase("justid")) {
                justId = true;
            } else {
                throw new CommandError(CommandError.SYNTAX);
            }
        }
        Stream s = readLookup(tx, a[1]);
        Group g = s == null ? null : s.group(a[2]);
        if (g == null) {
            throw formatted("NOGROUP No such key '" + c(a[1]) + "' or consumer group '" + c(a[2]) + "'");
        }
        if (count > MAX_CLAIM_ALLOCATION / StreamId.BYTES) {
            // Redis allocates COUNT IDs up front; past the address space that fails (Tandem allocates nothing)
            throw new CommandError("ERR Insufficient memory, failed allocating transient memory, COUNT too high.");
        }
        long attempts = count * 10;
        long now = tx.nowMs;
        List<Nack> pel = s.pending(g, start, StreamId.MAX, attempts + 1);
        List<Object> claimed = new ArrayList<>();
        List<StreamId> deleted = new ArrayList<>();
        Consumer consumer = null;
        int i = 0;
        while (attempts-- != 0 && count != 0 && i < pel.size()) {
            Nack nack = pel.get(i++);
            Entry e = s.entry(nack.id);
            if (e == null || e.deleted()) {
                if (consumer != null && Arrays.equals(nack.consumer, consumer.name)) {
                    consumer.pending--;
                }
                s.acknowledge(g, nack);
                deleted.add(nack.id);
                count--;
                continue;
            }
            if (minIdle != 0 && now - nack.deliveryMs < minIdle) {
                continue;
            }
            if (consumer == null) {
                consumer = s.seenOrCreated(g, a[3], now);
            }
            nack.deliveryMs = now;
            if (!justId) {
                nack.deliveries++;
            }
            s.assign(g, nack, consumer);
            claimed.add(justId ? nack.id : e);
            count--;
        }
        s.putGroup(g);
        r.array(3);
        r.bulk((i < pel.size() ? pel.get(i).id : StreamId.MIN).bytes());
        r.array(claimed.size());
        for (Object o : claimed) {
            if (o instanceof Entry e) {
                entry(r, e);
            } else {
                r.bulk(((StreamId) o).bytes());
            }
        }
        r.array(deleted.size());
        deleted.forEach(id -> r.bulk(id.bytes()));
    }

    // ---------------------------------------------------------------- XSETID

    /** XSETID's arguments: the ID, ENTRIESADDED (-1: not given), MAXDELETEDID (0-0: not given). */
    record SetIdArgs(StreamId id, long entriesAdded, StreamId maxDeleted) {
    }

    static SetIdArgs checkXsetid(byte[][] a, long nowMs) {
        StreamId id = StreamId.parseOrError(a[2], 0, true);
        long entriesAdded = -1;
        StreamId maxDeleted = StreamId.MIN;
        for (int i = 3; i < a.length; ) {
            int more = a.length - 1 - i;
            String opt = c(a[i]);
            if (opt.equalsIgnoreCase("entriesadded") && more > 0) {
                entriesAdded = longArg(a[i + 1], null);
                if (entriesAdded < 0) {
                    throw new CommandError("ERR entries_added must be positive");
                }
                i += 2;
            } else if (opt.equalsIgnoreCase("maxdeletedid") && more > 0) {
                maxDeleted = StreamId.parseOrError(a[i + 1], 0, true);
                if (id.compareTo(maxDeleted) < 0) {
                    throw new CommandError(
                            "ERR The ID specified in XSETID is smaller than the provided max_deleted_entry_id");
                }
                i += 2;
            } else {
                throw new CommandError(CommandError.SYNTAX);
            }
        }
        return new SetIdArgs(id, entriesAdded, maxDeleted);
    }

    static void xsetid(Tx tx, byte[][] a, Reply r) {
        SetIdArgs o = tx.parsed instanceof SetIdArgs p ? p : checkXsetid(a, tx.nowMs);
        Stream s = Streams.lookup(tx, a[1]);
        if (s == null) {
            throw new CommandError("ERR no such key");
        }
        if (s.meta.length > 0) {
            if (o.id().compareTo(s.lastLiveId()) < 0) {
                throw new CommandError("ERR The ID specified in XSETID is smaller than the target stream top item");
            }
            if (o.entriesAdded() != -1 && Long.compareUnsigned(s.meta.length, o.entriesAdded()) > 0) {
                throw new CommandError(
                        "ERR The entries_added specified in XSETID is smaller than the target stream length");
            }
        }
        s.meta.lastId = o.id();
        if (o.entriesAdded() != -1) {
            s.meta.entriesAdded = o.entriesAdded();
        }
        if (!o.maxDeleted().isZero()) {
            s.meta.maxDeletedId = o.maxDeleted();
        }
        s.save();
        r.simple("OK");
        tx.event(KeyspaceEvents.STREAM, "xsetid", a[1]);
    }

    // ---------------------------------------------------------------- XGROUP

    private static final List<String> XGROUP_HELP = List.of(
            "CREATE <key> <groupname> <id|$> [option]",
            "    Create a new consumer group. Options are:",
            "    * MKSTREAM",
            "      Create the empty stream if it does not exist.",
            "    * ENTRIESREAD entries_read",
            "      Set the group's entries_read counter (internal use).",
            "CREATECONSUMER <key> <groupname> <consumer>",
            "    Create a new consumer in the specified group.",
            "DELCONSUMER <key> <groupname> <consumer>",
            "    Remove the specified consumer.",
            "DESTROY <key> <groupname>",
            "    Remove the specified group.",
            "SETID <key> <groupname> <id|$> [ENTRIESREAD entries_read]",
            "    Set the current group ID and entries_read counter.");

    private static final List<String> XINFO_HELP = List.of(
            "CONSUMERS <key> <groupname>",
            "    Show consumers of <groupname>.",
            "GROUPS <key>",
            "    Show the stream consumer groups.",
            "STREAM <key> [FULL [COUNT <count>]",
            "    Show information about the stream.");

    /** The subcommand a container command names, its arity checked as Redis's command table checks it. */
    private static String subcommand(byte[][] a, String container, String[] names, int[] arities) {
        for (int i = 0; i < names.length; i++) {
            if (Args.is(a[1], names[i])) {
                int arity = arities[i];
                if (arity > 0 ? a.length != arity : a.length < -arity) {
                    throw CommandError.arity(container + "|" + names[i]);
                }
                return names[i];
            }
        }
        throw ObjectCommands.unknownSubcommand(a[1], c(a[0]).toUpperCase(Locale.ROOT));
    }

    private static final String[] XGROUP_SUBCOMMANDS = {"create", "setid", "destroy", "createconsumer",
        "delconsumer", "help"};
    private static final int[] XGROUP_ARITIES = {-5, -5, 4, 5, 5, 2};

    static void xgroup(Tx tx, byte[][] a, Reply r) {
        String sub = subcommand(a, "xgroup", XGROUP_SUBCOMMANDS, XGROUP_ARITIES);
        if (sub.equals("help")) {
            ObjectCommands.help(r, c(a[0]).toUpperCase(Locale.ROOT), XGROUP_HELP);
            return;
        }
        boolean mkstream = false;
        long entriesRead = Streams.INVALID_ENTRIES_READ;
        boolean create = sub.equals("create");
        boolean setid = sub.equals("setid");
        for (int i = 5; i < a.length; ) {
            if (create && Args.is(a[i], "mkstream")) {
                mkstream = true;
                i++;
            } else if ((create || setid) && Args.is(a[i], "entriesread") && i + 1 < a.length) {
                entriesRead = longArg(a[i + 1], null);
                if (entriesRead < 0 && entriesRead != Streams.INVALID_ENTRIES_READ) {
                    throw new CommandError("ERR value for ENTRIESREAD must be positive or -1");
                }
                i += 2;
            } else {
                throw subcommandSyntax(a);
            }
        }
        Stream s = Streams.lookup(tx, a[2]);
        byte[] name = a[3];
        Group g = null;
        if (!mkstream) {
            if (s == null) {
                throw new CommandError("ERR The XGROUP subcommand requires the key to exist. Note that for CREATE "
                        + "you may want to use the MKSTREAM option to create an empty stream automatically.");
            }
            g = s.group(name);
            if (g == null && (setid || sub.equals("createconsumer") || sub.equals("delconsumer"))) {
                throw formatted("NOGROUP No such consumer group '" + c(name) + "' for key name '" + c(a[2]) + "'");
            }
        }
        switch (sub) {
            case "create" -> {
                if (a.length > 8) {
                    throw subcommandSyntax(a);
                }
                StreamId id;
                if (c(a[4]).equals("$")) {
                    id = s == null ? StreamId.MIN : s.meta.lastId;
                } else {
                    id = StreamId.parseOrError(a[4], 0, true);
                }
                if (s == null) {
                    s = Streams.create(tx, a[2]);
                }
                if (!s.createGroup(name, id, entriesRead)) {
                    throw new CommandError("BUSYGROUP Consumer Group name already exists");
                }
                s.save();
                r.simple("OK");
                tx.event(KeyspaceEvents.STREAM, "xgroup-create", a[2]);
            }
            case "setid" -> {
                if (a.length != 5 && a.length != 7) {
                    throw subcommandSyntax(a);
                }
                StreamId id = c(a[4]).equals("$") ? s.meta.lastId : StreamId.parseOrError(a[4], 0, false);
                g.lastId = id;
                g.entriesRead = entriesRead;
                s.putGroup(g);
                r.simple("OK");
                tx.event(KeyspaceEvents.STREAM, "xgroup-setid", a[2]);
            }
            case "destroy" -> {
                if (g == null) {
                    r.integer(0);
                    return;
                }
                s.destroyGroup(g);
                s.save();
                r.integer(1);
                tx.event(KeyspaceEvents.STREAM, "xgroup-destroy", a[2]);
            }
            case "createconsumer" -> {
                Consumer created = s.createConsumer(g, a[4], tx.nowMs);
                if (created != null) {
                    s.putGroup(g);
                }
                r.integer(created == null ? 0 : 1);
            }
            default -> { // delconsumer
                Consumer consumer = s.consumer(g, a[4]);
                long pending = 0;
                if (consumer != null) {
                    pending = consumer.pending;
                    s.deleteConsumer(g, consumer);
                    s.putGroup(g);
                    tx.event(KeyspaceEvents.STREAM, "xgroup-delconsumer", a[2]);
                }
                r.integer(pending);
            }
        }
    }

    /** XGROUP's checks that need no keyspace: the container's subcommand and its arity. */
    static void checkXgroup(byte[][] a, long nowMs) {
        subcommand(a, "xgroup", XGROUP_SUBCOMMANDS, XGROUP_ARITIES);
    }

    // ---------------------------------------------------------------- XINFO

    private static final String[] XINFO_SUBCOMMANDS = {"consumers", "groups", "stream", "help"};
    private static final int[] XINFO_ARITIES = {4, 3, -3, 2};

    static void xinfo(Tx tx, byte[][] a, Reply r) {
        String sub = subcommand(a, "xinfo", XINFO_SUBCOMMANDS, XINFO_ARITIES);
        if (sub.equals("help")) {
            ObjectCommands.help(r, c(a[0]).toUpperCase(Locale.ROOT), XINFO_HELP);
            return;
        }
        Stream s = Streams.lookup(tx, a[2]);
        if (s == null) {
            throw new CommandError("ERR no such key");
        }
        switch (sub) {
            case "consumers" -> {
                Group g = s.group(a[3]);
                if (g == null) {
                    throw formatted("NOGROUP No such consumer group '" + c(a[3]) + "' for key name '" + c(a[2])
                            + "'");
                }
                List<Consumer> consumers = s.consumers(g);
                r.array(consumers.size());
                for (Consumer consumer : consumers) {
                    r.map(3);
                    r.bulk(Args.ascii("name")).bulk(consumer.name);
                    r.bulk(Args.ascii("pending")).integer(consumer.pending);
                    r.bulk(Args.ascii("idle")).integer(Math.max(0, tx.nowMs - consumer.seenMs));
                }
            }
            case "groups" -> {
                List<Group> groups = s.groups();
                r.array(groups.size());
                for (Group g : groups) {
                    r.map(6);
                    r.bulk(Args.ascii("name")).bulk(g.name);
                    r.bulk(Args.ascii("consumers")).integer(g.consumers);
                    r.bulk(Args.ascii("pending")).integer(g.pending);
                    r.bulk(Args.ascii("last-delivered-id")).bulk(g.lastId.bytes());
                    r.bulk(Args.ascii("entries-read"));
                    integerOrNil(r, g.entriesRead == Streams.INVALID_ENTRIES_READ ? null : g.entriesRead);
                    r.bulk(Args.ascii("lag"));
                    integerOrNil(r, s.lag(g));
                }
            }
            default -> streamInfo(tx, s, a, r);
        }
    }

    private static void integerOrNil(Reply r, Long v) {
        if (v == null) {
            r.nullBulk();
        } else {
            r.integer(v);
        }
    }

    /** {@code xinfoReplyWithStreamInfo}. */
    private static void streamInfo(Tx tx, Stream s, byte[][] a, Reply r) {
        boolean full = a.length > 3;
        long count = 10;
        if (full) {
            int options = a.length - 3;
            if (options != 1 && options != 3) {
                throw subcommandSyntax(a);
            }
            if (!Args.is(a[3], "full")) {
                throw subcommandSyntax(a);
            }
            if (options == 3) {
                if (!Args.is(a[4], "count")) {
                    throw subcommandSyntax(a);
                }
                count = longArg(a[5], null);
                if (count < 0) {
                    count = 10;
                }
            }
        }
        Streams.Meta m = s.meta;
        r.map(full ? 9 : 10);
        r.bulk(Args.ascii("length")).integer(m.length);
        r.bulk(Args.ascii("radix-tree-keys")).integer(m.nodes);
        r.bulk(Args.ascii("radix-tree-nodes")).integer(Streams.raxNodes(s.nodeKeys()));
        r.bulk(Args.ascii("last-generated-id")).bulk(m.lastId.bytes());
        r.bulk(Args.ascii("max-deleted-entry-id")).bulk(m.maxDeletedId.bytes());
        r.bulk(Args.ascii("entries-added")).integer(m.entriesAdded);
        r.bulk(Args.ascii("recorded-first-entry-id")).bulk(m.firstId.bytes());
        if (!full) {
            r.bulk(Args.ascii("groups")).integer(m.groups);
            List<Entry> first = s.range(StreamId.MIN, StreamId.MAX, 1, false);
            r.bulk(Args.ascii("first-entry"));
            if (first.isEmpty()) {
                r.nullBulk();
            } else {
                entry(r, first.get(0));
            }
            List<Entry> last = s.range(StreamId.MIN, StreamId.MAX, 1, true);
            r.bulk(Args.ascii("last-entry"));
            if (last.isEmpty()) {
                r.nullBulk();
            } else {
                entry(r, last.get(0));
            }
            return;
        }
        long limit = count == 0 ? Long.MAX_VALUE : count;
        r.bulk(Args.ascii("entries"));
        entries(r, s.range(StreamId.MIN, StreamId.MAX, count, false));
        r.bulk(Args.ascii("groups"));
        List<Group> groups = s.groups();
        r.array(groups.size());
        for (Group g : groups) {
            r.map(7);
            r.bulk(Args.ascii("name")).bulk(g.name);
            r.bulk(Args.ascii("last-delivered-id")).bulk(g.lastId.bytes());
            r.bulk(Args.ascii("entries-read"));
            integerOrNil(r, g.entriesRead == Streams.INVALID_ENTRIES_READ ? null : g.entriesRead);
            r.bulk(Args.ascii("lag"));
            integerOrNil(r, s.lag(g));
            r.bulk(Args.ascii("pel-count")).integer(g.pending);
            r.bulk(Args.ascii("pending"));
            List<Nack> pel = s.pending(g, StreamId.MIN, StreamId.MAX, limit);
            r.array(pel.size());
            for (Nack n : pel) {
                r.array(4);
                r.bulk(n.id.bytes());
                r.bulk(n.consumer);
                r.integer(n.deliveryMs);
                r.integer(n.deliveries);
            }
            r.bulk(Args.ascii("consumers"));
            List<Consumer> consumers = s.consumers(g);
            r.array(consumers.size());
            for (Consumer consumer : consumers) {
                r.map(4);
                r.bulk(Args.ascii("name")).bulk(consumer.name);
                r.bulk(Args.ascii("seen-time")).integer(consumer.seenMs);
                r.bulk(Args.ascii("pel-count")).integer(consumer.pending);
                r.bulk(Args.ascii("pending"));
                List<StreamId> own = s.consumerPending(g, consumer.name, StreamId.MIN, StreamId.MAX, limit);
                r.array(own.size());
                for (StreamId id : own) {
                    Nack n = s.nack(g, id);
                    r.array(3);
                    r.bulk(id.bytes());
                    r.integer(n.deliveryMs);
                    r.integer(n.deliveries);
                }
            }
        }
    }

    /** XINFO's checks that need no keyspace: the container's subcommand and its arity. */
    static void checkXinfo(byte[][] a) {
        subcommand(a, "xinfo", XINFO_SUBCOMMANDS, XINFO_ARITIES);
    }
}
