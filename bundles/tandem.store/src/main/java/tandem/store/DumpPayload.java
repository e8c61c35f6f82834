package tandem.store;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import tandem.store.Tx.Rec;

/**
 * The value format of {@code DUMP} and {@code RESTORE}: one object as Redis 7.0 writes it into an RDB file, then
 * the RDB version and a CRC-64 ({@link Crc64}) of everything before it.
 *
 * <pre>
 * [type u8][object …][RDB version u16 LE = 10][CRC-64 u64 LE]
 * length:  00LLLLLL | 01LLLLLL LLLLLLLL (BE) | 0x80 u32 BE | 0x81 u64 BE
 * string:  length bytes | 0xC0 i8 | 0xC1 i16 LE | 0xC2 i32 LE (an integer's text) | 0xC3 clen len lzf-data
 * objects written:  0 string | 16 hash listpack | 4 hash: count, field, value… | 11 set intset | 2 set: count,
 *                   member… | 17 zset listpack | 5 zset: count, (member, score f64 LE)… from the highest score |
 *                   18 list: node count, (2, listpack)… as RPUSH would have filled the nodes
 * objects also read: 1 list, 3 zset with text scores, 10 list ziplist, 12 zset ziplist, 13 hash ziplist,
 *                   14 list of ziplists, 18 list with plain nodes (1, element)
 * </pre>
 *
 * A string is written as Redis's {@code rdbSaveRawString} writes it: an integer of at most 11 characters that fits
 * 32 bits in its integer form, one longer than 20 bytes LZF-compressed when that saves at least 4 bytes. The
 * encoding of a collection follows the key's ({@code OBJECT ENCODING}), so that a payload is Redis's own where Redis's
 * bytes depend on the value alone (strings, intsets, sorted sets, lists of one node); a hash or a hashtable set comes
 * in Tandem's order (field bytes), Redis's in its own, and either side reads the other's.
 *
 * <p>Reading checks every byte as Redis's deep sanitization would and more: lengths within the payload, blobs
 * valid, no duplicate, no empty collection, no NaN score, nothing after the object. A payload Redis would take only
 * without sanitization is "Bad data format" here: no input stops a node.
 */
final class DumpPayload {

    static final int RDB_VERSION = 10;
    static final String VERSION_OR_CHECKSUM = "ERR DUMP payload version or checksum are wrong";
    static final String BAD_FORMAT = "ERR Bad data format";

    static final int STRING = 0;
    static final int LIST = 1;
    static final int SET = 2;
    static final int ZSET = 3;
    static final int HASH = 4;
    static final int ZSET_2 = 5;
    static final int LIST_ZIPLIST = 10;
    static final int SET_INTSET = 11;
    static final int ZSET_ZIPLIST = 12;
    static final int HASH_ZIPLIST = 13;
    static final int LIST_QUICKLIST = 14;
    static final int STREAM_LISTPACKS = 15;
    static final int HASH_LISTPACK = 16;
    static final int ZSET_LISTPACK = 17;
    static final int LIST_QUICKLIST_2 = 18;
    static final int STREAM_LISTPACKS_2 = 19;

    private static final int NODE_PLAIN = 1;
    private static final int NODE_PACKED = 2;
    /** quicklist's {@code SIZE_SAFETY_LIMIT} with {@code list-max-listpack-size -2}: a node's 8 kB. */
    private static final int NODE_LIMIT = 8192;
    /** quicklist's {@code SIZE_ESTIMATE_OVERHEAD}. */
    private static final int NODE_OVERHEAD = 8;
    /** {@code proto-max-bulk-len}: no decompressed string is longer. */
    private static final long MAX_STRING = 512L * 1024 * 1024;

    private DumpPayload() {
    }

    // ---------------------------------------------------------------- DUMP

    /** The payload of the live key {@code key}, record {@code rec}. */
    static byte[] dump(Tx tx, byte[] key, Rec rec) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        if (rec.isString()) {
            out.write(STRING);
            string(out, rec.value());
        } else if (rec.isStream()) {
            stream(out, Streams.dumped(new Streams.Stream(tx, key, rec)));
        } else if (rec.isHash()) {
            List<byte[][]> pairs = tx.fields(key);
            if (ObjectCommands.encoding(rec).equals("listpack")) {
                out.write(HASH_LISTPACK);
                List<byte[]> flat = new ArrayList<>(pairs.size() * 2);
                for (byte[][] p : pairs) {
                    flat.add(p[0]);
                    flat.add(p[1]);
                }
                string(out, Listpack.encode(flat));
            } else {
                out.write(HASH);
                length(out, pairs.size());
                for (byte[][] p : pairs) {
                    string(out, p[0]);
                    string(out, p[1]);
                }
            }
        } else if (rec.isSet()) {
            List<byte[]> members = Sets.members(tx, key);
            if (Sets.encodingName(rec).equals("intset")) {
                out.write(SET_INTSET);
                string(out, Intset.encode(members));
            } else {
                out.write(SET);
                length(out, members.size());
                members.forEach(m -> string(out, m));
            }
        } else if (rec.isZset()) {
            List<Zsets.Entry> entries = Zsets.all(tx, key);
            if (!Zsets.skiplist(rec)) {
                out.write(ZSET_LISTPACK);
                List<byte[]> flat = new ArrayList<>(entries.size() * 2);
                for (Zsets.Entry e : entries) {
                    flat.add(e.member());
                    flat.add(Doubles.formatListpack(e.score()));
                }
                string(out, Listpack.encode(flat));
            } else {
                out.write(ZSET_2);
                length(out, entries.size());
                for (int i = entries.size() - 1; i >= 0; i--) { // from the skiplist's tail, as Redis saves it
                    string(out, entries.get(i).member());
                    long bits = Double.doubleToRawLongBits(entries.get(i).score());
                    for (int k = 0; k < 8; k++) {
                        out.write((int) (bits >>> (8 * k)) & 0xff);
                    }
                }
            }
        } else {
            out.write(LIST_QUICKLIST_2);
            List<byte[][]> elements = tx.fields(key);
            List<List<byte[]>> nodes = new ArrayList<>();
            long nodeBytes = 0;
            for (byte[][] e : elements) {
                byte[] element = e[1];
                if (nodes.isEmpty() || nodeBytes + element.length + NODE_OVERHEAD > NODE_LIMIT) {
                    nodes.add(new ArrayList<>());
                    nodeBytes = 7; // an empty listpack: header and end
                }
                nodes.get(nodes.size() - 1).add(element);
                nodeBytes += Listpack.entrySize(element);
            }
            length(out, nodes.size());
            for (List<byte[]> node : nodes) {
                length(out, NODE_PACKED);
                string(out, Listpack.encode(node));
            }
        }
        return seal(out);
    }

    /** {@code rdbSaveLen} of an unsigned 64-bit {@code n}. */
    private static void length(ByteArrayOutputStream out, long n) {
        if (Long.compareUnsigned(n, 1 << 6) < 0) {
            out.write((int) n);
        } else if (Long.compareUnsigned(n, 1 << 14) < 0) {
            out.write((int) (n >> 8) | 0x40);
            out.write((int) n & 0xff);
        } else if (Long.compareUnsigned(n, 0xffffffffL) <= 0) {
            out.write(0x80);
            for (int k = 3; k >= 0; k--) {
                out.write((int) (n >>> (8 * k)) & 0xff);
            }
        } else {
            out.write(0x81);
            for (int k = 7; k >= 0; k--) {
                out.write((int) (n >>> (8 * k)) & 0xff);
            }
        }
    }

    /**
     * {@code rdbSaveObject} of a stream, {@code RDB_TYPE_STREAM_LISTPACKS_2}: each node's master ID and listpack,
     * the metadata, then each group with its PEL ({@code [id 16][delivery ms i64 LE][deliveries]}) and its
     * consumers ({@code [name][seen ms i64 LE][ids]}).
     */
    private static void stream(ByteArrayOutputStream out, Streams.Dumped d) {
        out.write(STREAM_LISTPACKS_2);
        length(out, d.nodes().size());
        for (Streams.DumpedNode n : d.nodes()) {
            string(out, n.master().encode());
            string(out, Listpack.encode(n.listpack()));
        }
        Streams.Meta m = d.meta();
        length(out, m.length);
        for (StreamId id : List.of(m.lastId, m.firstId, m.maxDeletedId)) {
            length(out, id.ms());
            length(out, id.seq());
        }
        length(out, m.entriesAdded);
        length(out, d.groups().size());
        for (Streams.DumpedGroup g : d.groups()) {
            string(out, g.name());
            length(out, g.lastId().ms());
            length(out, g.lastId().seq());
            length(out, g.entriesRead());
            length(out, g.pending().size());
            for (Streams.Nack n : g.pending()) {
                out.writeBytes(n.id.encode());
                little(out, n.deliveryMs);
                length(out, n.deliveries);
            }
            length(out, g.consumers().size());
            for (Streams.DumpedConsumer c : g.consumers()) {
                string(out, c.name());
                little(out, c.seenMs());
                length(out, c.pending().size());
                c.pending().forEach(id -> out.writeBytes(id.encode()));
            }
        }
    }

    /** {@code rdbSaveMillisecondTime}: 8 bytes, little-endian. */
    private static void little(ByteArrayOutputStream out, long v) {
        for (int k = 0; k < 8; k++) {
            out.write((int) (v >>> (8 * k)) & 0xff);
        }
    }

    /** {@code rdbSaveRawString}: an integer's form, else LZF when it pays, else the bytes. */
    private static void string(ByteArrayOutputStream out, byte[] s) {
        if (s.length <= 11 && Numbers.isLong(s)) {
            long v = Numbers.parseLong(s);
            if (v >= -(1 << 7) && v <= (1 << 7) - 1) {
                out.write(0xc0);
                out.write((int) v & 0xff);
                return;
            }
            if (v >= -(1 << 15) && v <= (1 << 15) - 1) {
                out.write(0xc1);
                out.write((int) v & 0xff);
                out.write((int) (v >> 8) & 0xff);
                return;
            }
            if (v >= Integer.MIN_VALUE && v <= Integer.MAX_VALUE) {
                out.write(0xc2);
                for (int k = 0; k < 4; k++) {
                    out.write((int) (v >>> (8 * k)) & 0xff);
                }
                return;
            }
        }
        if (s.length > 20) {
            byte[] compressed = Lzf.compress(s, s.length - 4);
            if (compressed != null) {
                out.write(0xc3);
                length(out, compressed.length);
                length(out, s.length);
                out.writeBytes(compressed);
                return;
            }
        }
        length(out, s.length);
        out.writeBytes(s);
    }

    /** {@code RDB_OPCODE_FUNCTION2}: a library's whole code, shebang included, follows as a string. */
    static final int FUNCTION2 = 245;

    /**
     * {@code FUNCTION DUMP}: {@code [245][code as an RDB string]} per library, then the version and CRC64 as a key's
     * payload ends.
     */
    static byte[] functions(List<byte[]> codes) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] code : codes) {
            out.write(FUNCTION2);
            string(out, code);
        }
        return seal(out);
    }

    /** The version and the CRC64 of everything before it, appended. */
    private static byte[] seal(ByteArrayOutputStream out) {
        out.write(RDB_VERSION & 0xff);
        out.write(RDB_VERSION >> 8);
        byte[] body = out.toByteArray();
        long crc = Crc64.of(body, 0, body.length);
        byte[] payload = new byte[body.length + 8];
        System.arraycopy(body, 0, payload, 0, body.length);
        for (int k = 0; k < 8; k++) {
            payload[body.length + k] = (byte) (crc >>> (8 * k));
        }
        return payload;
    }

    /**
     * Reads a {@code FUNCTION DUMP} payload as {@code FUNCTION RESTORE} does.
     *
     * @return the libraries' codes, in order
     * @throws CommandError with Redis's words for what is wrong
     */
    static List<byte[]> functionCodes(byte[] payload) {
        int footer = footer(payload);
        Reader in = new Reader(payload, footer);
        List<byte[]> codes = new ArrayList<>();
        while (in.p < footer) {
            if (in.u8() != FUNCTION2) {
                throw new CommandError("ERR given type is not a function");
            }
            try {
                codes.add(in.string());
            } catch (Bad e) {
                throw new CommandError("ERR Failed loading library payload");
            }
        }
        return codes;
    }

    // ---------------------------------------------------------------- RESTORE

    /**
     * A value read from a payload, as RESTORE writes it: its type ({@link Tx#STRING}…), the string, or the elements
     * (a list's in order, a set's members, a hash's fields and values alternating), or the sorted set's entries; and
     * the encoding flags Redis's load would leave on it.
     */
    record Value(byte type, byte[] string, List<byte[]> elements, List<Zsets.Entry> entries, int flags,
            Streams.Restored stream) {

        Value(byte type, byte[] string, List<byte[]> elements, List<Zsets.Entry> entries, int flags) {
            this(type, string, elements, entries, flags, null);
        }
    }

    /**
     * Reads {@code payload} as RESTORE does: the version and CRC, then the object.
     *
     * @throws CommandError {@link #VERSION_OR_CHECKSUM} or {@link #BAD_FORMAT}, as Redis answers
     */
    static Value restore(byte[] payload) {
        int footer = footer(payload);
        Reader in = new Reader(payload, footer);
        try {
            Value v = in.object();
            if (in.p != footer) {
                throw Reader.BAD;
            }
            return v;
        } catch (Bad e) {
            throw new CommandError(e.getMessage() == null ? BAD_FORMAT : BAD_FORMAT + ": " + e.getMessage());
        }
    }

    /**
     * {@code verifyDumpPayload}: the version and the CRC64 at the end of {@code payload}.
     *
     * @return where they start
     * @throws CommandError {@link #VERSION_OR_CHECKSUM}
     */
    private static int footer(byte[] payload) {
        if (payload.length < 10) {
            throw new CommandError(VERSION_OR_CHECKSUM);
        }
        int footer = payload.length - 10;
        int version = (payload[footer] & 0xff) | (payload[footer + 1] & 0xff) << 8;
        long crc = Listpack.getLe(payload, footer + 2, 8);
        if (version > RDB_VERSION || crc != Crc64.of(payload, 0, footer + 2)) {
            throw new CommandError(VERSION_OR_CHECKSUM);
        }
        return footer;
    }

    /** A malformed payload, answered as {@link #BAD_FORMAT} (with a reason when Redis would have taken it). */
    private static final class Bad extends RuntimeException {
        Bad(String reason) {
            super(reason, null, false, false);
        }
    }

    private static final class Reader {
        static final Bad BAD = new Bad(null);

        final byte[] b;
        final int end;
        int p;

        Reader(byte[] b, int end) {
            this.b = b;
            this.end = end;
        }

        int u8() {
            if (p >= end) {
                throw BAD;
            }
            return b[p++] & 0xff;
        }

        /** {@code rdbLoadLen}; an encoded string's marker is not a length. */
        long length() {
            int first = u8();
            return switch (first >> 6) {
                case 0 -> first & 0x3f;
                case 1 -> ((first & 0x3f) << 8) | u8();
                case 2 -> {
                    int bytes = first == 0x80 ? 4 : first == 0x81 ? 8 : -1;
                    if (bytes < 0) {
                        throw BAD;
                    }
                    long n = 0;
                    for (int k = 0; k < bytes; k++) {
                        n = (n << 8) | u8();
                    }
                    yield n;
                }
                default -> throw BAD;
            };
        }

        /** A length that must fit what is left of the payload (a count of elements each at least a byte long). */
        int count() {
            long n = length();
            if (n < 0 || n > end - p) {
                throw BAD;
            }
            return (int) n;
        }

        byte[] bytes(long n) {
            if (n < 0 || n > end - p) {
                throw BAD;
            }
            byte[] s = Listpack.slice(b, p, (int) n);
            p += (int) n;
            return s;
        }

        long le(int bytes) {
            if (end - p < bytes) {
                throw BAD;
            }
            long v = Listpack.getLe(b, p, bytes);
            p += bytes;
            return v;
        }

        /** {@code rdbGenericLoadStringObject}. */
        byte[] string() {
            if (p >= end) {
                throw BAD;
            }
            int first = b[p] & 0xff;
            if (first >> 6 != 3) {
                return bytes(length());
            }
            p++;
            switch (first & 0x3f) {
                case 0 -> {
                    return Numbers.bytes((byte) le(1));
                }
                case 1 -> {
                    return Numbers.bytes((short) le(2));
                }
                case 2 -> {
                    return Numbers.bytes((int) le(4));
                }
                case 3 -> {
                    long clen = length();
                    long len = length();
                    // LZF yields at most 264 bytes for 3 of input: a longer claim is a lie, refused before allocating
                    if (clen > end - p || len > MAX_STRING || len > 88 * clen + 32) {
                        throw BAD;
                    }
                    byte[] out = Lzf.decompress(b, p, p + (int) clen, (int) len);
                    if (out == null) {
                        throw BAD;
                    }
                    p += (int) clen;
                    return out;
                }
                default -> throw BAD;
            }
        }

        double binaryDouble() {
            return Double.longBitsToDouble(le(8));
        }

        /** {@code rdbLoadDoubleValue}: a length byte (253 NaN, 254 +inf, 255 -inf), then the number's text. */
        double textDouble() {
            int n = u8();
            return switch (n) {
                case 253 -> Double.NaN;
                case 254 -> Double.POSITIVE_INFINITY;
                case 255 -> Double.NEGATIVE_INFINITY;
                default -> Doubles.parse(bytes(n), BAD_FORMAT);
            };
        }

        Value object() {
            int type = u8();
            return switch (type) {
                case STRING -> new Value(Tx.STRING, string(), null, null, 0);
                case LIST -> {
                    int n = count();
                    List<byte[]> elements = new ArrayList<>();
                    for (int i = 0; i < n; i++) {
                        elements.add(string());
                    }
                    yield list(elements);
                }
                case LIST_ZIPLIST -> list(blob(Ziplist.decode(string())));
                case LIST_QUICKLIST, LIST_QUICKLIST_2 -> {
                    int nodes = count();
                    List<byte[]> elements = new ArrayList<>();
                    for (int i = 0; i < nodes; i++) {
                        long container = type == LIST_QUICKLIST_2 ? length() : NODE_PACKED;
                        byte[] data = string();
                        if (data.length == 0) {
                            throw BAD;
                        }
                        if (container == NODE_PLAIN) {
                            elements.add(data);
                        } else if (container == NODE_PACKED) {
                            // an empty node is skipped, as Redis skips it
                            elements.addAll(blob(type == LIST_QUICKLIST_2 ? Listpack.decode(data)
                                    : Ziplist.decode(data)));
                        } else {
                            throw BAD;
                        }
                    }
                    yield list(elements);
                }
                case SET -> {
                    int n = count();
                    List<byte[]> members = new ArrayList<>();
                    for (int i = 0; i < n; i++) {
                        members.add(string());
                    }
                    yield set(members, Sets.encoding(0, members.size(), members));
                }
                case SET_INTSET -> {
                    List<byte[]> members = blob(Intset.decode(string()));
                    yield set(members, members.size() > Sets.MAX_INTSET ? Tx.ENC_RAW : 0);
                }
                case ZSET, ZSET_2 -> {
                    int n = count();
                    List<Zsets.Entry> entries = new ArrayList<>();
                    for (int i = 0; i < n; i++) {
                        byte[] member = string();
                        entries.add(new Zsets.Entry(member, type == ZSET_2 ? binaryDouble() : textDouble()));
                    }
                    boolean table = entries.size() > Zsets.MAX_LISTPACK;
                    for (Zsets.Entry e : entries) {
                        table |= e.member().length > Zsets.MAX_LISTPACK_VALUE;
                    }
                    yield zset(entries, table ? Tx.ENC_RAW : 0);
                }
                case ZSET_ZIPLIST, ZSET_LISTPACK -> {
                    List<byte[]> flat = pairs(type == ZSET_LISTPACK ? Listpack.decode(string())
                            : Ziplist.decode(string()));
                    List<Zsets.Entry> entries = new ArrayList<>();
                    for (int i = 0; i < flat.size(); i += 2) {
                        entries.add(new Zsets.Entry(flat.get(i), Doubles.parse(flat.get(i + 1), BAD_FORMAT)));
                    }
                    yield zset(entries, entries.size() > Zsets.MAX_LISTPACK ? Tx.ENC_RAW : 0);
                }
                case HASH -> {
                    int n = count();
                    List<byte[]> flat = new ArrayList<>();
                    boolean table = n > HashCommands.SMALL_HASH;
                    for (int i = 0; i < n; i++) {
                        byte[] field = string();
                        byte[] value = string();
                        table |= field.length > HashCommands.LISTPACK_VALUE || value.length > HashCommands.LISTPACK_VALUE;
                        flat.add(field);
                        flat.add(value);
                    }
                    yield hash(flat, table ? Tx.ENC_RAW : 0);
                }
                case HASH_ZIPLIST, HASH_LISTPACK -> {
                    List<byte[]> flat = pairs(type == HASH_LISTPACK ? Listpack.decode(string())
                            : Ziplist.decode(string()));
                    yield hash(flat, flat.size() / 2 > HashCommands.SMALL_HASH ? Tx.ENC_RAW : 0);
                }
                case STREAM_LISTPACKS, STREAM_LISTPACKS_2 -> stream(type == STREAM_LISTPACKS_2);
                default -> throw new Bad("object type " + type + " is not one Tandem reads");
            };
        }

        /**
         * A stream, as {@code rdbLoadObject} reads one, with every check of its deep sanitization and more
         * ({@link Streams#node}: entries in order within their nodes; the length the nodes' live entries; every
         * pending entry owned by exactly one consumer). {@code version2}: Redis 7's layout, with the first and
         * largest deleted IDs, the entries added and each group's entries read; an older one's are computed as
         * Redis computes them.
         */
        Value stream(boolean version2) {
            int count = count();
            List<StreamId> masters = new ArrayList<>();
            List<byte[]> listpacks = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                byte[] key = string();
                if (key.length != StreamId.BYTES) {
                    throw BAD;
                }
                StreamId master = StreamId.decode(key, 0);
                if (!masters.isEmpty() && master.compareTo(masters.get(masters.size() - 1)) <= 0) {
                    throw BAD;
                }
                masters.add(master);
                listpacks.add(string());
            }
            List<Streams.Node> nodes = new ArrayList<>();
            List<List<Streams.Entry>> entries = new ArrayList<>();
            long live = 0;
            StreamId previous = null;
            for (int i = 0; i < count; i++) {
                List<byte[]> elements = blob(Listpack.decode(listpacks.get(i)));
                List<Streams.Entry> held = new ArrayList<>();
                Streams.Node node = Streams.node(masters.get(i), elements, listpacks.get(i).length, previous,
                        i + 1 < count ? masters.get(i + 1) : null, held);
                if (node == null) {
                    throw BAD;
                }
                nodes.add(node);
                entries.add(held);
                live += node.live;
                previous = node.lastId;
            }
            Streams.Meta m = new Streams.Meta();
            m.length = length();
            m.lastId = new StreamId(length(), length());
            if (version2) {
                m.firstId = new StreamId(length(), length());
                m.maxDeletedId = new StreamId(length(), length());
                m.entriesAdded = length();
            } else {
                m.entriesAdded = m.length;
                m.firstId = StreamId.MAX; // streamGetEdgeID of no live entry
                for (List<Streams.Entry> held : entries) {
                    Streams.Entry first = held.stream().filter(e -> !e.deleted()).findFirst().orElse(null);
                    if (first != null) {
                        m.firstId = first.id();
                        break;
                    }
                }
            }
            if (m.length != live) {
                throw BAD;
            }
            int groupCount = count();
            List<Streams.DumpedGroup> groups = new ArrayList<>();
            Set<ByteBuffer> names = new HashSet<>();
            for (int g = 0; g < groupCount; g++) {
                byte[] name = string();
                if (!names.add(ByteBuffer.wrap(name))) {
                    throw BAD;
                }
                StreamId lastId = new StreamId(length(), length());
                long entriesRead = version2 ? length() : Streams.distanceFromFirstEver(m, lastId);
                int pelCount = count();
                java.util.TreeMap<StreamId, Streams.Nack> pel = new java.util.TreeMap<>();
                for (int i = 0; i < pelCount; i++) {
                    StreamId id = StreamId.decode(bytes(StreamId.BYTES), 0);
                    Streams.Nack nack = new Streams.Nack(id, le(8), 0, null);
                    nack.deliveries = length();
                    if (pel.put(id, nack) != null) {
                        throw BAD;
                    }
                }
                int consumerCount = count();
                List<Streams.DumpedConsumer> consumers = new ArrayList<>();
                Set<ByteBuffer> consumerNames = new HashSet<>();
                for (int c = 0; c < consumerCount; c++) {
                    byte[] consumer = string();
                    if (!consumerNames.add(ByteBuffer.wrap(consumer))) {
                        throw BAD;
                    }
                    long seen = le(8);
                    int owned = count();
                    List<StreamId> ids = new ArrayList<>();
                    for (int i = 0; i < owned; i++) {
                        StreamId id = StreamId.decode(bytes(StreamId.BYTES), 0);
                        Streams.Nack nack = pel.get(id);
                        if (nack == null || nack.consumer != null) {
                            throw BAD; // not in the group's PEL, or owned twice
                        }
                        nack.consumer = consumer;
                        ids.add(id);
                    }
                    ids.sort(null);
                    consumers.add(new Streams.DumpedConsumer(consumer, seen, ids));
                }
                for (Streams.Nack nack : pel.values()) {
                    if (nack.consumer == null) {
                        throw BAD; // a pending entry without a consumer
                    }
                }
                consumers.sort((x, y) -> java.util.Arrays.compareUnsigned(x.name(), y.name()));
                groups.add(new Streams.DumpedGroup(name, lastId, entriesRead, new ArrayList<>(pel.values()),
                        consumers));
            }
            Streams.Dumped d = new Streams.Dumped(null, m, groups);
            return new Value(Tx.STREAM, null, null, null, 0, new Streams.Restored(d, nodes, entries));
        }

        private static List<byte[]> blob(List<byte[]> decoded) {
            if (decoded == null) {
                throw BAD;
            }
            return decoded;
        }

        private static List<byte[]> pairs(List<byte[]> decoded) {
            if (blob(decoded).size() % 2 != 0) {
                throw BAD;
            }
            return decoded;
        }

        private static Value list(List<byte[]> elements) {
            if (elements.isEmpty()) {
                throw BAD;
            }
            return new Value(Tx.LIST, null, elements, null, 0);
        }

        private static Value set(List<byte[]> members, int flags) {
            distinct(members, 1);
            return new Value(Tx.SET, null, members, null, flags);
        }

        private static Value hash(List<byte[]> flat, int flags) {
            distinct(flat, 2);
            return new Value(Tx.HASH, null, flat, null, flags);
        }

        private static Value zset(List<Zsets.Entry> entries, int flags) {
            List<byte[]> members = new ArrayList<>(entries.size());
            for (Zsets.Entry e : entries) {
                if (Double.isNaN(e.score())) {
                    throw BAD;
                }
                members.add(e.member());
            }
            distinct(members, 1);
            return new Value(Tx.ZSET, null, null, entries, flags);
        }

        /** Every {@code step}-th element from the first must be distinct, and there must be one. */
        private static void distinct(List<byte[]> elements, int step) {
            if (elements.isEmpty()) {
                throw BAD;
            }
            Set<ByteBuffer> seen = new HashSet<>();
            for (int i = 0; i < elements.size(); i += step) {
                if (!seen.add(ByteBuffer.wrap(elements.get(i)))) {
                    throw BAD;
                }
            }
        }
    }
}
