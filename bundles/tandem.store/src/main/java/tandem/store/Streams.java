package tandem.store;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.rocksdb.RocksIterator;

import tandem.api.store.KeyspaceEvents;
import tandem.store.Tx.Rec;

/**
 * The records of a stream, and the operations of Redis 7.0's {@code t_stream.c} over them.
 *
 * <h2>Layout</h2>
 * The key record holds the stream's metadata; everything else is a record of its own in the {@code fields} family,
 * under the key's prefix {@code P = [key_len u32 BE][key]} and a one-byte sub-space, so that appending, reading a
 * range, acknowledging or claiming touch only the records they name, however long the stream:
 * <pre>
 * keys    key -&gt; [type 6][expiry_ms i64][length u64]                          (Tx's collection header)
 *                 [last_id 16][first_id 16][max_deleted_id 16]
 *                 [entries_added u64][groups u64][nodes u64][has_tail u8][tail_node_id 16]   ({@link Meta})
 * fields  P 0x00 id(16)                  -&gt; entry: [flags u8][pairs u32] then per pair
 *                                           [field_len u32][field][value_len u32][value]
 *         P 0x01 master_id(16)           -&gt; node:  [live u64][deleted u64][body u64][last_id 16][fields u32]
 *                                           then per master field [len u32][bytes]
 *         P 0x02 group                   -&gt; group: [last_id 16][entries_read i64, -1 unknown][pel u64][consumers u64]
 *         P 0x03 [group_len u32] group id(16)          -&gt; pending entry: [delivery_ms i64][deliveries u64][consumer]
 *         P 0x04 [group_len u32] group consumer        -&gt; consumer: [seen_ms i64][pel u64]
 *         P 0x05 [group_len u32] group [consumer_len u32] consumer id(16) -&gt; empty (the consumer's own PEL)
 * </pre>
 * An ID is {@link StreamId}'s 16 big-endian bytes, so record order is ID order; groups and consumers sort by name
 * bytes, as Redis's radix trees do.
 *
 * <h2>Nodes</h2>
 * Redis keeps entries in listpacks of at most 100 entries or 4096 bytes ({@code stream-node-max-entries},
 * {@code stream-node-max-bytes}, their defaults, fixed here), each keyed by the ID of its first entry (the master
 * ID) and holding the field names of that entry once (the master fields). Which entries share a node shows: the
 * approximate trims ({@code ~}) remove whole nodes only, and XINFO STREAM counts nodes. So every node has a record
 * with what decides where the next entry goes: its live and deleted entry counts, its listpack's size (kept as the
 * {@code body}: every element but the live and deleted counts, whose size changes with their value), its last
 * entry and its master fields. Entries deleted by XDEL or an exact trim stay as tombstones ({@link #DELETED}) until
 * their node goes, as in Redis: they count towards the node's 100 and keep its bytes.
 */
final class Streams {

    static final byte ENTRY = 0;
    static final byte NODE = 1;
    static final byte GROUP = 2;
    static final byte NACK = 3;
    static final byte CONSUMER = 4;
    static final byte CONSUMER_PEL = 5;

    /** {@code STREAM_ITEM_FLAG_DELETED}: a tombstone. */
    static final int DELETED = 1;
    /** {@code STREAM_ITEM_FLAG_SAMEFIELDS}: the entry's fields are its node's master fields. */
    static final int SAMEFIELDS = 2;
    /** Redis's default {@code stream-node-max-bytes}. */
    static final long NODE_MAX_BYTES = 4096;
    /** Redis's default {@code stream-node-max-entries}. */
    static final long NODE_MAX_ENTRIES = 100;
    /** {@code STREAM_LISTPACK_MAX_SIZE}: more field and value bytes than this in one entry are refused. */
    static final long LISTPACK_MAX_SIZE = 1L << 30;
    /** {@code SCG_INVALID_ENTRIES_READ}. */
    static final long INVALID_ENTRIES_READ = -1;

    private Streams() {
    }

    // ---------------------------------------------------------------- metadata

    /** What the key record holds of a stream, beyond the header: {@code struct stream} without its trees. */
    static final class Meta {
        long length;
        StreamId lastId = StreamId.MIN;
        StreamId firstId = StreamId.MIN;
        StreamId maxDeletedId = StreamId.MIN;
        long entriesAdded;
        long groups;
        /** The nodes (Redis's radix tree keys). */
        long nodes;
        /** The last node's master ID, or null without nodes. */
        StreamId tailNode;
        /**
         * The first node's master ID, or null without nodes: where a walk from the head seeks to, rather than to the
         * start of the stream's node records, which trims leave behind them as RocksDB tombstones until compaction.
         */
        StreamId headNode;

        static final int TAIL_BYTES = 3 * StreamId.BYTES + 3 * 8 + 1 + 2 * StreamId.BYTES;

        static Meta of(Rec rec) {
            Meta m = new Meta();
            m.length = rec.fieldCount();
            byte[] t = rec.value();
            ByteBuffer b = ByteBuffer.wrap(t);
            m.lastId = StreamId.decode(t, 0);
            m.firstId = StreamId.decode(t, 16);
            m.maxDeletedId = StreamId.decode(t, 32);
            b.position(48);
            m.entriesAdded = b.getLong();
            m.groups = b.getLong();
            m.nodes = b.getLong();
            boolean hasNodes = b.get() != 0;
            m.tailNode = hasNodes ? StreamId.decode(t, 73) : null;
            m.headNode = hasNodes ? StreamId.decode(t, 89) : null;
            return m;
        }

        byte[] tail() {
            byte[] t = new byte[TAIL_BYTES];
            lastId.put(t, 0);
            firstId.put(t, 16);
            maxDeletedId.put(t, 32);
            ByteBuffer b = ByteBuffer.wrap(t);
            b.position(48);
            b.putLong(entriesAdded).putLong(groups).putLong(nodes).put((byte) (tailNode == null ? 0 : 1));
            if (tailNode != null) {
                tailNode.put(t, 73);
                headNode.put(t, 89);
            }
            return t;
        }
    }

    /** One entry: its ID, flags and field-value pairs ({@code pairs[2i]} a field, {@code pairs[2i+1]} its value). */
    record Entry(StreamId id, int flags, byte[][] pairs) {

        boolean deleted() {
            return (flags & DELETED) != 0;
        }

        int fieldCount() {
            return pairs.length / 2;
        }

        byte[] encode() {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            out.write(flags);
            writeInt(out, pairs.length / 2);
            for (byte[] p : pairs) {
                writeInt(out, p.length);
                out.writeBytes(p);
            }
            return out.toByteArray();
        }

        static Entry decode(StreamId id, byte[] v) {
            ByteBuffer b = ByteBuffer.wrap(v);
            int flags = b.get() & 0xff;
            int n = b.getInt();
            byte[][] pairs = new byte[n * 2][];
            for (int i = 0; i < pairs.length; i++) {
                pairs[i] = new byte[b.getInt()];
                b.get(pairs[i]);
            }
            return new Entry(id, flags, pairs);
        }
    }

    /** A node (Redis's listpack): see the class comment. */
    static final class Node {
        final StreamId masterId;
        long live;
        long deleted;
        /** The listpack's bytes but for its header, end byte and the two counts. */
        long body;
        StreamId lastId;
        final byte[][] masterFields;

        Node(StreamId masterId, long live, long deleted, long body, StreamId lastId, byte[][] masterFields) {
            this.masterId = masterId;
            this.live = live;
            this.deleted = deleted;
            this.body = body;
            this.lastId = lastId;
            this.masterFields = masterFields;
        }

        /** {@code lpBytes}: header, the counts, the body, the end byte. */
        long listpackBytes() {
            return 6 + intEntry(live) + intEntry(deleted) + body + 1;
        }

        byte[] encode() {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            writeLong(out, live);
            writeLong(out, deleted);
            writeLong(out, body);
            out.writeBytes(lastId.encode());
            writeInt(out, masterFields.length);
            for (byte[] f : masterFields) {
                writeInt(out, f.length);
                out.writeBytes(f);
            }
            return out.toByteArray();
        }

        static Node decode(StreamId masterId, byte[] v) {
            ByteBuffer b = ByteBuffer.wrap(v);
            long live = b.getLong();
            long deleted = b.getLong();
            long body = b.getLong();
            StreamId last = StreamId.decode(v, 24);
            b.position(40);
            byte[][] fields = new byte[b.getInt()][];
            for (int i = 0; i < fields.length; i++) {
                fields[i] = new byte[b.getInt()];
                b.get(fields[i]);
            }
            return new Node(masterId, live, deleted, body, last, fields);
        }
    }

    /** A consumer group: {@code streamCG} without its trees. */
    static final class Group {
        final byte[] name;
        StreamId lastId;
        long entriesRead;
        long pending;
        long consumers;

        Group(byte[] name, StreamId lastId, long entriesRead, long pending, long consumers) {
            this.name = name;
            this.lastId = lastId;
            this.entriesRead = entriesRead;
            this.pending = pending;
            this.consumers = consumers;
        }

        byte[] encode() {
            return ByteBuffer.allocate(16 + 24).put(lastId.encode()).putLong(entriesRead).putLong(pending)
                    .putLong(consumers).array();
        }

        static Group decode(byte[] name, byte[] v) {
            ByteBuffer b = ByteBuffer.wrap(v);
            b.position(16);
            return new Group(name, StreamId.decode(v, 0), b.getLong(), b.getLong(), b.getLong());
        }
    }

    /** A pending entry of a group: {@code streamNACK}, its consumer by name. */
    static final class Nack {
        final StreamId id;
        long deliveryMs;
        long deliveries;
        byte[] consumer;

        Nack(StreamId id, long deliveryMs, long deliveries, byte[] consumer) {
            this.id = id;
            this.deliveryMs = deliveryMs;
            this.deliveries = deliveries;
            this.consumer = consumer;
        }

        byte[] encode() {
            return ByteBuffer.allocate(16 + consumer.length).putLong(deliveryMs).putLong(deliveries).put(consumer)
                    .array();
        }

        static Nack decode(StreamId id, byte[] v) {
            ByteBuffer b = ByteBuffer.wrap(v);
            return new Nack(id, b.getLong(), b.getLong(), Arrays.copyOfRange(v, 16, v.length));
        }
    }

    /** A consumer: {@code streamConsumer}, its PEL apart. */
    static final class Consumer {
        final byte[] name;
        long seenMs;
        long pending;

        Consumer(byte[] name, long seenMs, long pending) {
            this.name = name;
            this.seenMs = seenMs;
            this.pending = pending;
        }

        byte[] encode() {
            return ByteBuffer.allocate(16).putLong(seenMs).putLong(pending).array();
        }

        static Consumer decode(byte[] name, byte[] v) {
            ByteBuffer b = ByteBuffer.wrap(v);
            return new Consumer(name, b.getLong(), b.getLong());
        }
    }

    // ---------------------------------------------------------------- listpack sizes

    /** The size of an integer's listpack element, its back-length (one byte for these) included. */
    static long intEntry(long v) {
        int size = v >= 0 && v <= 127 ? 1 : v >= -4096 && v <= 4095 ? 2 : v >= -32768 && v <= 32767 ? 3
                : v >= -8388608 && v <= 8388607 ? 4 : v >= Integer.MIN_VALUE && v <= Integer.MAX_VALUE ? 5 : 9;
        return size + 1;
    }

    /** A new node's master entry: {@code [fields][field...][0]}, the counts apart. */
    static long masterBytes(byte[][] fields) {
        long n = intEntry(fields.length) + intEntry(0);
        for (byte[] f : fields) {
            n += Listpack.entrySize(f);
        }
        return n;
    }

    /** What an entry adds to its node's listpack ({@code [flags][ms-diff][seq-diff][fields]…[lp-count]}). */
    static long entryBytes(Entry e, StreamId master) {
        boolean same = (e.flags & SAMEFIELDS) != 0;
        int n = e.fieldCount();
        long bytes = intEntry(e.flags) + intEntry(e.id.ms() - master.ms()) + intEntry(e.id.seq() - master.seq());
        if (!same) {
            bytes += intEntry(n);
        }
        for (int i = 0; i < n; i++) {
            if (!same) {
                bytes += Listpack.entrySize(e.pairs[2 * i]);
            }
            bytes += Listpack.entrySize(e.pairs[2 * i + 1]);
        }
        return bytes + intEntry(n + 3 + (same ? 0 : n + 1));
    }

    // ---------------------------------------------------------------- one stream

    /** The live stream at {@code key}, or null; WRONGTYPE for another type. */
    static Stream lookup(Tx tx, byte[] key) {
        Rec rec = tx.typed(key, Tx.STREAM);
        return rec == null ? null : new Stream(tx, key, rec);
    }

    /** A new, empty stream at {@code key} (absent): written now, raising {@code new}, as Redis's dbAdd. */
    static Stream create(Tx tx, byte[] key) {
        Stream s = new Stream(tx, key, null);
        s.save();
        return s;
    }

    /** A stream's records, through one apply's view. */
    static final class Stream {
        final Tx tx;
        final byte[] key;
        final Meta meta;
        private final byte[] prefix;
        private Rec rec;

        Stream(Tx tx, byte[] key, Rec rec) {
            this.tx = tx;
            this.key = key;
            this.rec = rec;
            this.meta = rec == null ? new Meta() : Meta.of(rec);
            this.prefix = Tx.fieldPrefix(key);
        }

        /** Writes the key record with {@link #meta}, keeping the deadline. */
        void save() {
            long expiry = rec == null ? Tx.NO_EXPIRY : rec.expiryMs();
            byte[] tail = meta.tail();
            tx.putCollection(key, rec, Tx.STREAM, meta.length, 0, expiry, 0, tail);
            rec = new Rec(Tx.STREAM, 0, expiry, tail, meta.length, 0);
        }

        private byte[] space(byte sub) {
            byte[] s = Arrays.copyOf(prefix, prefix.length + 1);
            s[prefix.length] = sub;
            return s;
        }

        private byte[] name(byte sub, byte[]... parts) {
            int n = prefix.length + 1;
            for (byte[] p : parts) {
                n += p.length;
            }
            byte[] k = Arrays.copyOf(prefix, n);
            k[prefix.length] = sub;
            int at = prefix.length + 1;
            for (byte[] p : parts) {
                System.arraycopy(p, 0, k, at, p.length);
                at += p.length;
            }
            return k;
        }

        private static byte[] sized(byte[] name) {
            return ByteBuffer.allocate(4 + name.length).putInt(name.length).put(name).array();
        }

        private byte[] get(byte[] recordKey) {
            return tx.record(recordKey, new byte[0]);
        }

        private void put(byte[] recordKey, byte[] value) {
            tx.putRecord(recordKey, new byte[0], value);
        }

        private void remove(byte[] recordKey) {
            tx.deleteRecord(recordKey, new byte[0]);
        }

        // ------------------------------------------------------------ entries

        Entry entry(StreamId id) {
            byte[] v = get(name(ENTRY, id.encode()));
            return v == null ? null : Entry.decode(id, v);
        }

        /** {@code streamEntryExists}: the entry is there and not deleted. */
        boolean exists(StreamId id) {
            Entry e = entry(id);
            return e != null && !e.deleted();
        }

        /**
         * The live entries with IDs from {@code start} to {@code end}, both included, in ID order ({@code rev}: from
         * the end), at most {@code count} of them (0: all).
         */
        List<Entry> range(StreamId start, StreamId end, long count, boolean rev) {
            List<Entry> out = new ArrayList<>();
            if (start.compareTo(end) > 0) {
                return out;
            }
            byte[] space = space(ENTRY);
            byte[] from = name(ENTRY, start.encode());
            byte[] to = name(ENTRY, end.encode());
            try (RocksIterator it = tx.fieldIterator()) {
                if (rev) {
                    it.seekForPrev(to);
                } else {
                    it.seek(from);
                }
                for (; it.isValid() && (count == 0 || out.size() < count); ) {
                    byte[] k = it.key();
                    if (!Tx.startsWith(k, space) || Arrays.compareUnsigned(k, rev ? from : to) * (rev ? -1 : 1) > 0) {
                        break;
                    }
                    if ((it.value()[0] & DELETED) == 0) {
                        out.add(Entry.decode(StreamId.decode(k, space.length), it.value()));
                    }
                    if (rev) {
                        it.prev();
                    } else {
                        it.next();
                    }
                }
            }
            return out;
        }

        /** {@code streamLastValidID}: the last live entry's ID, or null when none. */
        StreamId lastLiveId() {
            List<Entry> last = range(StreamId.MIN, StreamId.MAX, 1, true);
            return last.isEmpty() ? null : last.get(0).id();
        }

        /** {@code streamGetEdgeID(s, 1, 1, …)}: the first live entry's ID, or MAX when none. */
        StreamId firstLiveId() {
            // from the head node's master ID, at or before every entry: a seek from the start of the entries would
            // step over the RocksDB tombstones of every entry trimmed before it (one per XADD … MAXLEN ~ at steady
            // state)
            List<Entry> first = range(meta.headNode == null ? StreamId.MIN : meta.headNode, StreamId.MAX, 1, false);
            return first.isEmpty() ? StreamId.MAX : first.get(0).id();
        }

        /** The first entry's ID, tombstones included ({@code streamGetEdgeID(s, 1, 0, …)}), or MAX when none. */
        StreamId firstIdWithTombstones() {
            byte[] space = space(ENTRY);
            try (RocksIterator it = tx.fieldIterator()) {
                it.seek(space);
                if (it.isValid() && Tx.startsWith(it.key(), space)) {
                    return StreamId.decode(it.key(), space.length);
                }
            }
            return StreamId.MAX;
        }

        // ------------------------------------------------------------ nodes

        Node node(StreamId master) {
            byte[] v = get(name(NODE, master.encode()));
            return v == null ? null : Node.decode(master, v);
        }

        private void putNode(Node n) {
            put(name(NODE, n.masterId.encode()), n.encode());
        }

        /** The node an entry of ID {@code id} belongs to: the one with the greatest master ID not above it. */
        Node nodeOf(StreamId id) {
            byte[] space = space(NODE);
            try (RocksIterator it = tx.fieldIterator()) {
                it.seekForPrev(name(NODE, id.encode()));
                if (it.isValid() && Tx.startsWith(it.key(), space)) {
                    return Node.decode(StreamId.decode(it.key(), space.length), it.value());
                }
            }
            return null;
        }

        /** The first {@code limit} nodes, in order. */
        List<Node> nodes(int limit) {
            return nodesAfter(null, limit);
        }

        /** Up to {@code limit} nodes whose master ID is above {@code after} (null: from the first), in order. */
        List<Node> nodesAfter(StreamId after, int limit) {
            List<Node> out = new ArrayList<>();
            byte[] space = space(NODE);
            try (RocksIterator it = tx.fieldIterator()) {
                if (after == null) {
                    if (meta.headNode == null) {
                        return out;
                    }
                    it.seek(name(NODE, meta.headNode.encode()));
                } else {
                    StreamId next = after.next();
                    if (next == null) {
                        return out;
                    }
                    it.seek(name(NODE, next.encode()));
                }
                for (; it.isValid() && Tx.startsWith(it.key(), space) && out.size() < limit; it.next()) {
                    out.add(Node.decode(StreamId.decode(it.key(), space.length), it.value()));
                }
            }
            return out;
        }

        /** Every node's master ID, in order: Redis's radix tree keys. */
        List<byte[]> nodeKeys() {
            List<byte[]> out = new ArrayList<>();
            byte[] space = space(NODE);
            try (RocksIterator it = tx.fieldIterator()) {
                for (it.seek(space); it.isValid() && Tx.startsWith(it.key(), space); it.next()) {
                    out.add(Arrays.copyOfRange(it.key(), space.length, space.length + StreamId.BYTES));
                }
            }
            return out;
        }

        /** Deletes a node and every entry record it holds, tombstones included. */
        private void removeNode(Node n) {
            byte[] space = space(ENTRY);
            byte[] last = name(ENTRY, n.lastId.encode());
            List<byte[]> doomed = new ArrayList<>();
            try (RocksIterator it = tx.fieldIterator()) {
                for (it.seek(name(ENTRY, n.masterId.encode())); it.isValid(); it.next()) {
                    byte[] k = it.key();
                    if (!Tx.startsWith(k, space) || Arrays.compareUnsigned(k, last) > 0) {
                        break;
                    }
                    doomed.add(k);
                }
            }
            doomed.forEach(this::remove);
            remove(name(NODE, n.masterId.encode()));
            meta.nodes--;
            if (n.masterId.equals(meta.tailNode)) {
                meta.tailNode = lastNodeId();
            }
            if (n.masterId.equals(meta.headNode)) {
                List<Node> next = nodesAfter(n.masterId, 1);
                meta.headNode = next.isEmpty() ? null : next.get(0).masterId;
            }
        }

        private StreamId lastNodeId() {
            byte[] space = space(NODE);
            try (RocksIterator it = tx.fieldIterator()) {
                it.seekForPrev(name(NODE, StreamId.MAX.encode()));
                if (it.isValid() && Tx.startsWith(it.key(), space)) {
                    return StreamId.decode(it.key(), space.length);
                }
            }
            return null;
        }

        // ------------------------------------------------------------ append, delete, trim

        /**
         * Why {@link #append} refused: {@code EDOM}, an ID not above the last; {@code ERANGE}, too large; an
         * {@code <ms>-*} whose sequence is exhausted (no errno of its own in Redis).
         */
        enum AppendFailure { NOT_GREATER, TOO_LARGE, SEQUENCE_EXHAUSTED }

        /**
         * {@code streamAppendItem}: adds an entry of {@code pairs} with ID {@code useId} (null: from {@code nowMs}
         * and the last ID, as {@code streamNextID} does with the clock), its sequence chosen when not
         * {@code seqGiven}.
         *
         * @return the new entry's ID; or the reason it was refused
         */
        Object append(byte[][] pairs, StreamId useId, boolean seqGiven, long nowMs) {
            StreamId id;
            StreamId last = meta.lastId;
            if (useId != null) {
                if (seqGiven) {
                    id = useId;
                } else if (last.ms() == useId.ms()) {
                    if (last.seq() == -1L) {
                        return AppendFailure.SEQUENCE_EXHAUSTED;
                    }
                    id = new StreamId(last.ms(), last.seq() + 1);
                } else {
                    id = useId;
                }
            } else if (Long.compareUnsigned(nowMs, last.ms()) > 0) {
                id = new StreamId(nowMs, 0);
            } else {
                id = last.next();
                if (id == null) {
                    id = StreamId.MIN; // streamIncrID wraps, and the comparison below refuses it
                }
            }
            if (id.compareTo(last) <= 0) {
                return AppendFailure.NOT_GREATER;
            }
            long total = 0;
            for (byte[] p : pairs) {
                total += p.length;
            }
            if (total > LISTPACK_MAX_SIZE) {
                return AppendFailure.TOO_LARGE;
            }
            Node node = meta.tailNode == null ? null : node(meta.tailNode);
            if (node != null && (node.listpackBytes() + total >= NODE_MAX_BYTES
                    || node.live + node.deleted >= NODE_MAX_ENTRIES)) {
                node = null;
            }
            int n = pairs.length / 2;
            int flags = 0;
            if (node == null) {
                byte[][] fields = new byte[n][];
                for (int i = 0; i < n; i++) {
                    fields[i] = pairs[2 * i];
                }
                node = new Node(id, 0, 0, masterBytes(fields), id, fields);
                flags = SAMEFIELDS;
                meta.nodes++;
                meta.tailNode = id;
                if (meta.headNode == null) {
                    meta.headNode = id;
                }
            } else if (n == node.masterFields.length) {
                boolean same = true;
                for (int i = 0; i < n && same; i++) {
                    same = Arrays.equals(pairs[2 * i], node.masterFields[i]);
                }
                if (same) {
                    flags = SAMEFIELDS;
                }
            }
            Entry e = new Entry(id, flags, pairs);
            node.live++;
            node.body += entryBytes(e, node.masterId);
            node.lastId = id;
            putNode(node);
            put(name(ENTRY, id.encode()), e.encode());
            meta.length++;
            meta.entriesAdded++;
            meta.lastId = id;
            if (meta.length == 1) {
                meta.firstId = id;
            }
            return id;
        }

        /** {@code streamDeleteItem}: marks a live entry deleted (its node goes with its last live entry). */
        boolean delete(StreamId id) {
            Entry e = entry(id);
            if (e == null || e.deleted()) {
                return false;
            }
            Node node = nodeOf(id);
            if (node.live == 1) {
                removeNode(node);
            } else {
                put(name(ENTRY, id.encode()), new Entry(id, e.flags | DELETED, e.pairs).encode());
                node.live--;
                node.deleted++;
                putNode(node);
            }
            meta.length--;
            return true;
        }

        /**
         * {@code streamTrim}: by length ({@code minId} null) or by ID; {@code approx} removes whole nodes only;
         * {@code limit} caps the entries removed (0: none).
         *
         * @return the entries removed
         */
        long trim(long maxLen, StreamId minId, boolean approx, long limit) {
            long deleted = 0;
            boolean byLength = minId == null;
            // the nodes a few at a time, each batch sought from past the last one removed: a seek from the first
            // would step over every node record this trim has deleted so far
            List<Node> batch = List.of();
            int next = 0;
            StreamId removedUpTo = null;
            while (true) {
                if (byLength && meta.length <= maxLen) {
                    break;
                }
                if (next == batch.size()) {
                    // one node first: an approximate trim of a stream just past its bound stops at the head node
                    batch = nodesAfter(removedUpTo, removedUpTo == null ? 1 : 64);
                    next = 0;
                    if (batch.isEmpty()) {
                        break;
                    }
                }
                Node node = batch.get(next++);
                long entries = node.live;
                if (limit != 0 && deleted + entries > limit) {
                    break;
                }
                boolean whole = byLength ? meta.length - entries >= maxLen : node.lastId.compareTo(minId) < 0;
                if (whole) {
                    removeNode(node);
                    removedUpTo = node.masterId;
                    meta.length -= entries;
                    deleted += entries;
                    continue;
                }
                if (approx) {
                    break;
                }
                long fromNode = 0;
                for (Entry e : range(node.masterId, node.lastId, 0, false)) {
                    if (byLength ? meta.length <= maxLen : e.id().compareTo(minId) >= 0) {
                        break;
                    }
                    put(name(ENTRY, e.id().encode()), new Entry(e.id(), e.flags | DELETED, e.pairs).encode());
                    meta.length--;
                    fromNode++;
                }
                node.live -= fromNode;
                node.deleted += fromNode;
                putNode(node);
                deleted += fromNode;
                break;
            }
            if (meta.length == 0) {
                meta.firstId = StreamId.MIN;
            } else if (deleted > 0) {
                meta.firstId = firstLiveId();
            }
            return deleted;
        }

        // ------------------------------------------------------------ lag and read counters

        /** {@code streamRangeHasTombstones(s, start, NULL)}. */
        boolean tombstonesFrom(StreamId start) {
            if (meta.length == 0 || meta.maxDeletedId.isZero()) {
                return false;
            }
            if (meta.firstId.compareTo(meta.maxDeletedId) > 0) {
                return false;
            }
            return start.compareTo(meta.maxDeletedId) <= 0;
        }

        /** {@code streamEstimateDistanceFromFirstEverEntry}: {@link #INVALID_ENTRIES_READ} when unknown. */
        long distanceFromFirstEver(StreamId id) {
            return Streams.distanceFromFirstEver(meta, id);
        }

        /** {@code streamReplyWithCGLag}'s value, or null when it cannot be told. */
        Long lag(Group g) {
            if (meta.entriesAdded == 0) {
                return 0L;
            }
            if (g.entriesRead != INVALID_ENTRIES_READ && !tombstonesFrom(g.lastId)) {
                return meta.entriesAdded - g.entriesRead;
            }
            long read = distanceFromFirstEver(g.lastId);
            return read == INVALID_ENTRIES_READ ? null : meta.entriesAdded - read;
        }

        // ------------------------------------------------------------ groups

        Group group(byte[] name) {
            byte[] v = get(name(GROUP, name));
            return v == null ? null : Group.decode(name, v);
        }

        void putGroup(Group g) {
            put(name(GROUP, g.name), g.encode());
        }

        /** {@code streamCreateCG}: false when a group of that name exists. */
        boolean createGroup(byte[] name, StreamId lastId, long entriesRead) {
            if (group(name) != null) {
                return false;
            }
            putGroup(new Group(name, lastId, entriesRead, 0, 0));
            meta.groups++;
            return true;
        }

        List<Group> groups() {
            List<Group> out = new ArrayList<>();
            byte[] space = space(GROUP);
            try (RocksIterator it = tx.fieldIterator()) {
                for (it.seek(space); it.isValid() && Tx.startsWith(it.key(), space); it.next()) {
                    out.add(Group.decode(Arrays.copyOfRange(it.key(), space.length, it.key().length), it.value()));
                }
            }
            return out;
        }

        /** Deletes a group with its PEL and consumers. */
        void destroyGroup(Group g) {
            byte[] sized = sized(g.name);
            for (byte sub : new byte[] {NACK, CONSUMER, CONSUMER_PEL}) {
                removeAll(name(sub, sized));
            }
            remove(name(GROUP, g.name));
            meta.groups--;
        }

        private void removeAll(byte[] under) {
            List<byte[]> doomed = new ArrayList<>();
            try (RocksIterator it = tx.fieldIterator()) {
                for (it.seek(under); it.isValid() && Tx.startsWith(it.key(), under); it.next()) {
                    doomed.add(it.key());
                }
            }
            doomed.forEach(this::remove);
        }

        // ------------------------------------------------------------ pending entries

        Nack nack(Group g, StreamId id) {
            byte[] v = get(name(NACK, sized(g.name), id.encode()));
            return v == null ? null : Nack.decode(id, v);
        }

        void putNack(Group g, Nack n) {
            put(name(NACK, sized(g.name), n.id.encode()), n.encode());
        }

        /** The group's pending entries from {@code start} on, at most {@code limit}, in ID order. */
        List<Nack> pending(Group g, StreamId start, StreamId end, long limit) {
            List<Nack> out = new ArrayList<>();
            byte[] space = name(NACK, sized(g.name));
            byte[] to = name(NACK, sized(g.name), end.encode());
            try (RocksIterator it = tx.fieldIterator()) {
                for (it.seek(name(NACK, sized(g.name), start.encode())); it.isValid() && out.size() < limit;
                        it.next()) {
                    byte[] k = it.key();
                    if (!Tx.startsWith(k, space) || Arrays.compareUnsigned(k, to) > 0) {
                        break;
                    }
                    out.add(Nack.decode(StreamId.decode(k, space.length), it.value()));
                }
            }
            return out;
        }

        /** The last pending entry of the group, or null. */
        StreamId lastPending(Group g) {
            byte[] space = name(NACK, sized(g.name));
            try (RocksIterator it = tx.fieldIterator()) {
                it.seekForPrev(name(NACK, sized(g.name), StreamId.MAX.encode()));
                if (it.isValid() && Tx.startsWith(it.key(), space)) {
                    return StreamId.decode(it.key(), space.length);
                }
            }
            return null;
        }

        /** The IDs of a consumer's pending entries from {@code start} to {@code end}, at most {@code limit}. */
        List<StreamId> consumerPending(Group g, byte[] consumer, StreamId start, StreamId end, long limit) {
            List<StreamId> out = new ArrayList<>();
            byte[] space = name(CONSUMER_PEL, sized(g.name), sized(consumer));
            byte[] to = name(CONSUMER_PEL, sized(g.name), sized(consumer), end.encode());
            try (RocksIterator it = tx.fieldIterator()) {
                for (it.seek(name(CONSUMER_PEL, sized(g.name), sized(consumer), start.encode()));
                        it.isValid() && out.size() < limit; it.next()) {
                    byte[] k = it.key();
                    if (!Tx.startsWith(k, space) || Arrays.compareUnsigned(k, to) > 0) {
                        break;
                    }
                    out.add(StreamId.decode(k, space.length));
                }
            }
            return out;
        }

        private void ownedBy(Group g, byte[] consumer, StreamId id, boolean owned) {
            byte[] k = name(CONSUMER_PEL, sized(g.name), sized(consumer), id.encode());
            if (owned) {
                put(k, new byte[0]);
            } else {
                remove(k);
            }
        }

        /**
         * Gives the pending entry {@code n} (stored or new) to consumer {@code c}, taking it from its owner's PEL;
         * writes the entry, and the consumers whose counts changed (the group's count is the caller's).
         */
        void assign(Group g, Nack n, Consumer c) {
            if (n.consumer != null && !Arrays.equals(n.consumer, c.name)) {
                Consumer before = consumer(g, n.consumer);
                ownedBy(g, n.consumer, n.id, false);
                before.pending--;
                putConsumer(g, before);
                n.consumer = null;
            }
            if (n.consumer == null) {
                ownedBy(g, c.name, n.id, true);
                c.pending++;
                n.consumer = c.name;
            }
            putConsumer(g, c);
            putNack(g, n);
        }

        /** Removes a pending entry from the group's PEL and its consumer's ({@code XACK}). */
        void acknowledge(Group g, Nack n) {
            remove(name(NACK, sized(g.name), n.id.encode()));
            ownedBy(g, n.consumer, n.id, false);
            Consumer c = consumer(g, n.consumer);
            c.pending--;
            putConsumer(g, c);
            g.pending--;
        }

        // ------------------------------------------------------------ consumers

        Consumer consumer(Group g, byte[] name) {
            byte[] v = get(name(CONSUMER, sized(g.name), name));
            return v == null ? null : Consumer.decode(name, v);
        }

        void putConsumer(Group g, Consumer c) {
            put(name(CONSUMER, sized(g.name), c.name), c.encode());
        }

        /** {@code streamLookupConsumer} with {@code SLC_DEFAULT}: its seen time becomes now. */
        Consumer seen(Group g, byte[] name, long nowMs) {
            Consumer c = consumer(g, name);
            if (c != null) {
                c.seenMs = nowMs;
                putConsumer(g, c);
            }
            return c;
        }

        /** {@code streamCreateConsumer}: null when it exists; raises {@code xgroup-createconsumer}. */
        Consumer createConsumer(Group g, byte[] name, long nowMs) {
            if (consumer(g, name) != null) {
                return null;
            }
            Consumer c = new Consumer(name, nowMs, 0);
            putConsumer(g, c);
            g.consumers++;
            tx.event(KeyspaceEvents.STREAM, "xgroup-createconsumer", key);
            return c;
        }

        /** The consumer, seen now, or created. */
        Consumer seenOrCreated(Group g, byte[] name, long nowMs) {
            Consumer c = seen(g, name, nowMs);
            return c != null ? c : createConsumer(g, name, nowMs);
        }

        List<Consumer> consumers(Group g) {
            List<Consumer> out = new ArrayList<>();
            byte[] space = name(CONSUMER, sized(g.name));
            try (RocksIterator it = tx.fieldIterator()) {
                for (it.seek(space); it.isValid() && Tx.startsWith(it.key(), space); it.next()) {
                    out.add(Consumer.decode(Arrays.copyOfRange(it.key(), space.length, it.key().length),
                            it.value()));
                }
            }
            return out;
        }

        /** {@code streamDelConsumer}: its pending entries leave the group's PEL too. */
        void deleteConsumer(Group g, Consumer c) {
            for (StreamId id : consumerPending(g, c.name, StreamId.MIN, StreamId.MAX, Long.MAX_VALUE)) {
                remove(name(NACK, sized(g.name), id.encode()));
                g.pending--;
            }
            removeAll(name(CONSUMER_PEL, sized(g.name), sized(c.name)));
            remove(name(CONSUMER, sized(g.name), c.name));
            g.consumers--;
        }
    }

    /** {@code streamEstimateDistanceFromFirstEverEntry} of a stream's metadata. */
    static long distanceFromFirstEver(Meta meta, StreamId id) {
        if (meta.entriesAdded == 0) {
            return 0;
        }
        if (meta.length == 0 && id.compareTo(meta.lastId) < 1) {
            return meta.entriesAdded;
        }
        int cmpLast = id.compareTo(meta.lastId);
        if (cmpLast == 0) {
            return meta.entriesAdded;
        } else if (cmpLast > 0) {
            return INVALID_ENTRIES_READ;
        }
        int cmpFirst = id.compareTo(meta.firstId);
        if (meta.maxDeletedId.isZero() || meta.maxDeletedId.compareTo(meta.firstId) < 0) {
            if (cmpFirst < 0) {
                return meta.entriesAdded - meta.length;
            } else if (cmpFirst == 0) {
                return meta.entriesAdded - meta.length + 1;
            }
        }
        return INVALID_ENTRIES_READ;
    }

    // ---------------------------------------------------------------- DUMP and RESTORE

    /** A node as a payload holds it: its master ID and its listpack's elements, integers as their text. */
    record DumpedNode(StreamId master, List<byte[]> listpack) {
    }

    /** A consumer of a payload: its name, seen time and the IDs it owns. */
    record DumpedConsumer(byte[] name, long seenMs, List<StreamId> pending) {
    }

    /** A group of a payload; its pending entries' consumers are filled in from the consumers' lists. */
    record DumpedGroup(byte[] name, StreamId lastId, long entriesRead, List<Nack> pending,
            List<DumpedConsumer> consumers) {
    }

    /** A whole stream as a payload holds it ({@code RDB_TYPE_STREAM_LISTPACKS_2}). */
    record Dumped(List<DumpedNode> nodes, Meta meta, List<DumpedGroup> groups) {
    }

    /** A stream read from a payload, checked: its nodes and their entries, ready for {@link #restore}. */
    record Restored(Dumped dumped, List<Node> nodes, List<List<Entry>> entries) {
    }

    /**
     * The elements of a node's listpack, as Redis lays them out: the master entry
     * {@code [live][deleted][fields][field…][0]}, then per entry, tombstones included,
     * {@code [flags][ms-diff][seq-diff]([fields][field value…] | [value…] with SAMEFIELDS)[lp-count]}.
     */
    static List<byte[]> listpack(Stream s, Node n) {
        List<byte[]> out = new ArrayList<>();
        out.add(Numbers.bytes(n.live));
        out.add(Numbers.bytes(n.deleted));
        out.add(Numbers.bytes(n.masterFields.length));
        out.addAll(Arrays.asList(n.masterFields));
        out.add(Numbers.bytes(0));
        byte[] space = s.space(ENTRY);
        byte[] last = s.name(ENTRY, n.lastId.encode());
        try (RocksIterator it = s.tx.fieldIterator()) {
            for (it.seek(s.name(ENTRY, n.masterId.encode())); it.isValid(); it.next()) {
                byte[] k = it.key();
                if (!Tx.startsWith(k, space) || Arrays.compareUnsigned(k, last) > 0) {
                    break;
                }
                Entry e = Entry.decode(StreamId.decode(k, space.length), it.value());
                boolean same = (e.flags & SAMEFIELDS) != 0;
                int fields = e.fieldCount();
                out.add(Numbers.bytes(e.flags));
                out.add(Numbers.bytes(e.id.ms() - n.masterId.ms()));
                out.add(Numbers.bytes(e.id.seq() - n.masterId.seq()));
                if (!same) {
                    out.add(Numbers.bytes(fields));
                }
                for (int i = 0; i < fields; i++) {
                    if (!same) {
                        out.add(e.pairs[2 * i]);
                    }
                    out.add(e.pairs[2 * i + 1]);
                }
                out.add(Numbers.bytes(fields + 3 + (same ? 0 : fields + 1)));
            }
        }
        return out;
    }

    /** The stream at {@code key} as a payload holds it. */
    static Dumped dumped(Stream s) {
        List<DumpedNode> nodes = new ArrayList<>();
        for (Node n : s.nodes(Integer.MAX_VALUE)) {
            nodes.add(new DumpedNode(n.masterId, listpack(s, n)));
        }
        List<DumpedGroup> groups = new ArrayList<>();
        for (Group g : s.groups()) {
            List<DumpedConsumer> consumers = new ArrayList<>();
            for (Consumer c : s.consumers(g)) {
                consumers.add(new DumpedConsumer(c.name, c.seenMs,
                        s.consumerPending(g, c.name, StreamId.MIN, StreamId.MAX, Long.MAX_VALUE)));
            }
            groups.add(new DumpedGroup(g.name, g.lastId, g.entriesRead,
                    s.pending(g, StreamId.MIN, StreamId.MAX, Long.MAX_VALUE), consumers));
        }
        return new Dumped(nodes, s.meta, groups);
    }

    /**
     * Reads a node's listpack elements as {@code streamValidateListpackIntegrity} does in its deep mode, and more:
     * flags of known bits only, IDs rising from the master ID and below {@code next} (the next node's, null for the
     * last), at least one entry.
     *
     * @return the node and its entries, or null when the elements are not a node
     */
    static Node node(StreamId master, List<byte[]> lp, long listpackBytes, StreamId after, StreamId next,
            List<Entry> entries) {
        int[] at = {0};
        Long live = integer(lp, at);
        Long deleted = integer(lp, at);
        Long fieldCount = integer(lp, at);
        if (live == null || deleted == null || fieldCount == null || live < 0 || deleted < 0 || fieldCount < 0
                || fieldCount > lp.size() || live + deleted == 0) {
            return null;
        }
        byte[][] masterFields = new byte[(int) (long) fieldCount][];
        for (int i = 0; i < masterFields.length; i++) {
            masterFields[i] = element(lp, at);
        }
        Long zero = integer(lp, at);
        if (zero == null || zero != 0) {
            return null;
        }
        long liveSeen = 0;
        StreamId previous = after;
        for (long n = live + deleted; n > 0; n--) {
            Long flags = integer(lp, at);
            Long msDiff = integer(lp, at);
            Long seqDiff = integer(lp, at);
            if (flags == null || msDiff == null || seqDiff == null || (flags & ~(long) (DELETED | SAMEFIELDS)) != 0) {
                return null;
            }
            boolean same = (flags & SAMEFIELDS) != 0;
            long fields = masterFields.length;
            if (!same) {
                Long f = integer(lp, at);
                if (f == null || f < 0 || f > lp.size()) {
                    return null;
                }
                fields = f;
            }
            byte[][] pairs = new byte[(int) fields * 2][];
            for (int i = 0; i < fields; i++) {
                pairs[2 * i] = same ? masterFields[i] : element(lp, at);
                pairs[2 * i + 1] = element(lp, at);
            }
            Long count = integer(lp, at);
            if (count == null || pairs.length > 0 && pairs[pairs.length - 1] == null
                    || count != fields + 3 + (same ? 0 : fields + 1)) {
                return null;
            }
            for (byte[] p : pairs) {
                if (p == null) {
                    return null;
                }
            }
            StreamId id = new StreamId(master.ms() + msDiff, master.seq() + seqDiff);
            if (id.compareTo(master) < 0 || previous != null && id.compareTo(previous) <= 0
                    || next != null && id.compareTo(next) >= 0) {
                return null;
            }
            previous = id;
            entries.add(new Entry(id, (int) (long) flags, pairs));
            if ((flags & DELETED) == 0) {
                liveSeen++;
            }
        }
        if (at[0] != lp.size() || liveSeen != live) {
            return null;
        }
        long body = listpackBytes - 7 - intEntry(live) - intEntry(deleted);
        return new Node(master, live, deleted, body, previous, masterFields);
    }

    /** The next element as an integer (a listpack integer, or text {@code string2ll} reads), or null. */
    private static Long integer(List<byte[]> lp, int[] at) {
        byte[] e = element(lp, at);
        if (e == null || !Numbers.isLong(e)) {
            return null;
        }
        return Numbers.parseLong(e);
    }

    private static byte[] element(List<byte[]> lp, int[] at) {
        return at[0] < lp.size() ? lp.get(at[0]++) : null;
    }

    /**
     * Writes a stream a payload held at the absent {@code key} (RESTORE): its nodes and entries as they were, its
     * metadata, groups, pending entries and consumers.
     */
    static void restore(Tx tx, byte[] key, Restored r, long deadline) {
        Dumped d = r.dumped();
        List<Node> nodes = r.nodes();
        List<List<Entry>> entries = r.entries();
        Stream s = new Stream(tx, key, null);
        for (int i = 0; i < nodes.size(); i++) {
            Node n = nodes.get(i);
            s.putNode(n);
            for (Entry e : entries.get(i)) {
                s.put(s.name(ENTRY, e.id.encode()), e.encode());
            }
        }
        for (DumpedGroup dg : d.groups()) {
            Group g = new Group(dg.name(), dg.lastId(), dg.entriesRead(), dg.pending().size(),
                    dg.consumers().size());
            s.putGroup(g);
            for (Nack n : dg.pending()) {
                s.putNack(g, n);
            }
            for (DumpedConsumer c : dg.consumers()) {
                s.putConsumer(g, new Consumer(c.name(), c.seenMs(), c.pending().size()));
                for (StreamId id : c.pending()) {
                    s.ownedBy(g, c.name(), id, true);
                }
            }
        }
        Meta m = d.meta();
        m.groups = d.groups().size();
        m.nodes = nodes.size();
        m.tailNode = nodes.isEmpty() ? null : nodes.get(nodes.size() - 1).masterId;
        m.headNode = nodes.isEmpty() ? null : nodes.get(0).masterId;
        tx.putCollection(key, null, Tx.STREAM, m.length, 0, deadline, 0, m.tail());
    }

    // ---------------------------------------------------------------- radix tree nodes

    /**
     * {@code rax->numnodes} of a radix tree holding these 16-byte keys (sorted, distinct): Redis's rax keeps its
     * nodes compressed after every insert and removal, so with keys of one length, none the prefix of another, the
     * count is that of the compressed trie: one node per maximal chain of single-child positions, one per branching
     * position, one per key (its empty leaf); an empty tree is its head alone.
     */
    static long raxNodes(List<byte[]> keys) {
        return keys.isEmpty() ? 1 : raxNodes(keys, 0, keys.size(), 0);
    }

    private static long raxNodes(List<byte[]> keys, int from, int to, int depth) {
        int len = StreamId.BYTES;
        if (depth == len) {
            return 1;
        }
        byte[] first = keys.get(from);
        byte[] last = keys.get(to - 1);
        int common = 0;
        while (depth + common < len && first[depth + common] == last[depth + common]) {
            common++;
        }
        if (common > 0) {
            return 1 + raxNodes(keys, from, to, depth + common);
        }
        long nodes = 1;
        int i = from;
        while (i < to) {
            int j = i + 1;
            while (j < to && keys.get(j)[depth] == keys.get(i)[depth]) {
                j++;
            }
            nodes += raxNodes(keys, i, j, depth + 1);
            i = j;
        }
        return nodes;
    }

    private static void writeInt(ByteArrayOutputStream out, int v) {
        out.write(v >>> 24);
        out.write(v >>> 16);
        out.write(v >>> 8);
        out.write(v);
    }

    private static void writeLong(ByteArrayOutputStream out, long v) {
        writeInt(out, (int) (v >>> 32));
        writeInt(out, (int) v);
    }
}
