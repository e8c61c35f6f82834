package tandem.store;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;

import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.WriteBatchWithIndex;

import tandem.api.store.KeyspaceEvents;

/**
 * The view one apply (a command, a transaction or a Tick) has of the keyspace: reads go through the pending batch
 * to the database, so a transaction's later commands see its earlier writes, and every write goes to that one
 * batch, which {@link RocksKeyspace} then writes together with the applied sequence.
 *
 * <p>Design note: this class is the only place that knows the record layout (see {@link RocksKeyspace} for it), so
 * that the deadline index and the key counters cannot drift from the records: every write of a key record goes
 * through {@link #putString}, {@link #putHash} (any type whose elements are apart: {@link #putCollection}),
 * {@link #setExpiry} or {@link #delete}, which keep them in step.
 * The type byte of a key record carries, above the type code, the encoding flags that OBJECT ENCODING needs to answer
 * as Redis (how the value was made, which its bytes alone do not tell); {@link #decode} splits them, so that a type
 * is only ever compared without them.
 *
 * <p>Expired keys: {@link #lookup} decides with {@link #nowMs}, the entry's timestamp. A key whose deadline is at
 * or before it reads as absent; while a write command runs ({@link #mutating}), its stale records are also deleted
 * in the same batch, so that the write that follows starts from nothing. Read-only commands never write.
 */
final class Tx {

    static final byte STRING = 0; // Redis' OBJ_STRING
    static final byte LIST = 1;   // Redis' OBJ_LIST
    static final byte SET = 2;    // Redis' OBJ_SET
    static final byte ZSET = 3;   // Redis' OBJ_ZSET
    static final byte HASH = 4;   // Redis' OBJ_HASH
    static final byte STREAM = 6; // Redis' OBJ_STREAM
    /** The type code's bits in the stored type byte; the bits above it are encoding flags. */
    static final int TYPE_MASK = 0x0f;
    /**
     * Encoding flag: a string Redis holds "raw" whatever its length, because it was built in place (APPEND to an
     * existing value, SETRANGE, SETBIT, BITOP, BITFIELD); a hash Redis has converted to a "hashtable", for good.
     */
    static final int ENC_RAW = 0x80;
    /**
     * Encoding flag, strings only: Redis made the value from its bytes without trying an integer (INCRBYFLOAT), so
     * it is "embstr" up to 44 bytes and "raw" beyond, never "int".
     */
    static final int ENC_PLAIN = 0x40;
    static final long NO_EXPIRY = -1;

    /**
     * A decoded key record: {@code value} for a string, {@code fieldCount} for every other type (a hash's fields, a
     * set's or sorted set's members, a list's elements, a stream's entries), {@code head} for a list (the position of
     * its first element; 0 for other types); for a stream, {@code value} is the rest of its metadata
     * ({@link Streams.Meta}), always held in memory. {@code type} is the type code alone; {@code flags} holds the encoding flags
     * ({@link #ENC_RAW}, {@link #ENC_PLAIN}), which only OBJECT and MEMORY read.
     */
    record Rec(byte type, int flags, long expiryMs, byte[] value, long fieldCount, long head) {

        /**
         * A string's bytes. A record from {@link Tx#meta} holds a long string without them: asking for them then is
         * a bug, which throws rather than answering with nothing.
         */
        @Override
        public byte[] value() {
            if (value == null && type == STRING) {
                throw new IllegalStateException("the value of a string looked up without it (Tx.meta) was read");
            }
            return value;
        }

        boolean isHash() {
            return type == HASH;
        }

        boolean isList() {
            return type == LIST;
        }

        boolean isSet() {
            return type == SET;
        }

        boolean isZset() {
            return type == ZSET;
        }

        boolean isString() {
            return type == STRING;
        }

        boolean isStream() {
            return type == STREAM;
        }

        /**
         * Whether the key's elements are records of their own in the {@code fields} family (a hash's fields, a set's
         * or sorted set's members, a list's elements), with their count in the key record: every type but a string.
         */
        boolean hasFields() {
            return type != STRING;
        }

        boolean has(int flag) {
            return (flags & flag) != 0;
        }

        boolean hasExpiry() {
            return expiryMs != NO_EXPIRY;
        }

        /** Expired iff deadline_ms <= now_ms (Redis decides with <: a departure at the exact millisecond). */
        boolean expiredAt(long nowMs) {
            return expiryMs != NO_EXPIRY && expiryMs <= nowMs;
        }
    }

    private final RocksDB db;
    /** The sixteen databases; {@link #current} is the one the running command works in. */
    final Databases databases;
    Database current;
    /** The {@code SELECT} index of {@link #current}. */
    int currentIndex;
    /** The column families and memory of {@link #current}. */
    private ColumnFamilyHandle keys;
    private ColumnFamilyHandle fields;
    private ColumnFamilyHandle deadlines;
    private final ColumnFamilyHandle meta;
    private final ReadOptions readOptions;
    /**
     * The writes of every apply since the last {@link RocksKeyspace} commit: a round of applies is written to
     * RocksDB at once. Each apply sets a save point first, so that a failing one is taken back alone.
     */
    WriteBatchWithIndex batch = new WriteBatchWithIndex(true); // true: a later write of a key replaces it
    /**
     * Waits until the rounds handed to the store's writer are in the database: every read of RocksDB waits for it
     * first (reads of the in-memory index never do), so that a read sees every earlier round.
     */
    private final Runnable written;
    final ScanCursors cursors;
    /** Every key's header, and short strings' values: the pending batch included, so always this thread's view. */
    private KeyIndex index;
    /**
     * What is known in memory of some collection keys ({@link Memo}: stretches of their records that pops and draws
     * found empty, a rank index): never persisted; dropped with the key, on any failed apply and at FLUSHALL, and
     * learnt again when needed.
     */
    private HashMap<ByteBuffer, Memo> memos;
    /**
     * The index entries the running apply replaced, database, key and entry (null: the key was absent), to take it
     * back.
     */
    private Object[] undo = new Object[24];
    private int undone;
    /** The databases the running apply changed: their counters' deltas are folded in, or dropped. */
    private final List<Database> touched = new ArrayList<>();
    /** The SWAPDBs of the running apply, pairs of indexes, to take them back. */
    private final List<int[]> swaps = new ArrayList<>();
    /** What the running apply changed outside RocksDB and the index (the functions' libraries), to take it back. */
    private final List<Runnable> undoOutside = new ArrayList<>();
    /** What to finish once the running apply is kept (freeing what it replaced). */
    private final List<Runnable> afterKeep = new ArrayList<>();

    /** "now" of the entry being applied, in milliseconds since the epoch. */
    long nowMs;
    /**
     * The entry's timestamp in nanoseconds (a read's time for a read): with the command's arguments, the seed of
     * every random choice a write makes, so that each replica of either protocol makes the same one.
     */
    long timestampNs;
    /**
     * What the command's check parsed before it was sequenced, on the node that sequenced it ({@link
     * Commands.Parse}); null on a replica, in a replay and for a command whose check returns nothing.
     */
    Object parsed;

    /** The store's scripts, for {@code SCRIPT LOAD|EXISTS|FLUSH}. */
    LuaScripts scripts;
    /** The store's function libraries, for {@code FUNCTION}. */
    Functions functions;
    /**
     * How long a library's code may run while it is loaded, in milliseconds, 0 for no limit: set on the node that
     * decides writes (Redis's 500), none when a journaled load is applied, as a Redis replica obeys its primary.
     */
    long loadTimeoutMillis;
    /** True while a write command runs: expired keys met are deleted. */
    boolean mutating;
    /** True while a script's commands run: XREAD and XREADGROUP refuse BLOCK there, as Redis does. */
    boolean scripting;
    /**
     * True while a read runs or a refused write is answered ({@link RocksKeyspace#refuse}): any write is a bug, and
     * throws before it touches the batch or the index.
     */
    boolean refusing;
    /** True while the batch holds writes: reads must then look through it. */
    boolean wrote;
    /** The keyspace notification classes wanted during this apply ({@link KeyspaceEvents}); 0: none is recorded. */
    int eventClasses;
    /** The events this apply raised, in Redis's order, handed to the sink once it has succeeded. */
    final List<Event> events = new ArrayList<>();

    /** One keyspace notification: its class ({@link KeyspaceEvents}), its name, its key, its database. */
    record Event(int type, String name, byte[] key, int db) {
    }

    Tx(RocksDB db, Databases databases, ColumnFamilyHandle meta, ReadOptions readOptions, ScanCursors cursors,
            Runnable written) {
        this.written = written;
        this.db = db;
        this.databases = databases;
        this.meta = meta;
        this.readOptions = readOptions;
        this.cursors = cursors;
        select(0);
    }

    /** Begins an apply or a read, in database 0 until {@link #select}. */
    void begin(long nowMs) {
        events.clear(); // a failed apply's: never handed over
        this.nowMs = nowMs;
        this.mutating = false;
        for (Database d : touched) {
            d.forgetDeltas();
        }
        touched.clear();
        swaps.clear();
        undoOutside.clear();
        afterKeep.clear();
        clearUndo();
        select(0);
    }

    /** Makes database {@code index} the one the next commands work in. */
    void select(int index) {
        Database d = databases.get(index);
        current = d;
        currentIndex = index;
        keys = d.keys;
        fields = d.fields;
        deadlines = d.deadlines;
        this.index = d.index;
        memos = d.memos;
    }

    /** The current database is changed by the running apply: its counters' deltas count from now on. */
    private Database changing() {
        Database d = current;
        if (!d.touched) {
            d.touched = true;
            touched.add(d);
        }
        return d;
    }

    /**
     * SWAPDB: indexes {@code a} and {@code b} name each other's database from now on, recorded in the apply's
     * batch.
     */
    void swap(int a, int b) {
        databases.swap(a, b);
        swaps.add(new int[] {a, b});
        put(meta, Databases.MAPPING, databases.mapping());
        select(currentIndex); // as in Redis: a client stays on its index, which names the other database now
    }

    /** An apply that writes begins: marks where its writes start in the batch. */
    void beginWrites() {
        batch.setSavePoint();
    }

    /** The apply succeeded: its writes stay in the batch with the round's. */
    void keepWrites() {
        try {
            batch.popSavePoint();
        } catch (RocksDBException e) {
            throw new IllegalStateException("RocksDB save point: " + e.getMessage(), e);
        }
        clearUndo();
        for (Database d : touched) {
            d.fold();
        }
        touched.clear();
        swaps.clear();
        undoOutside.clear();
        for (Runnable r : afterKeep) {
            r.run();
        }
        afterKeep.clear();
    }

    /**
     * The apply failed: its writes are taken out of the batch and its index changes undone, in reverse; the
     * applies before it in the round stay.
     */
    void dropWrites() {
        try {
            batch.rollbackToSavePoint();
        } catch (RocksDBException e) {
            throw new IllegalStateException("RocksDB save point: " + e.getMessage(), e);
        }
        for (int i = undone - 3; i >= 0; i -= 3) {
            Database d = (Database) undo[i];
            byte[] key = (byte[]) undo[i + 1];
            KeyIndex.Entry previous = (KeyIndex.Entry) undo[i + 2];
            if (previous == null) {
                d.index.remove(key);
            } else {
                d.index.put(previous);
            }
        }
        clearUndo();
        for (Database d : touched) {
            d.forgetDeltas();
            d.deadlineKnown = false;
            d.deadlineFloor = null; // an entry this apply deleted before it may be back
            d.memos.clear(); // what this apply found empty may hold its records again
        }
        touched.clear();
        for (int i = swaps.size() - 1; i >= 0; i--) {
            databases.swap(swaps.get(i)[0], swaps.get(i)[1]);
        }
        swaps.clear();
        for (int i = undoOutside.size() - 1; i >= 0; i--) {
            undoOutside.get(i).run();
        }
        undoOutside.clear();
        afterKeep.clear();
    }

    /**
     * Records a change the running apply made outside RocksDB and the index: {@code undo} takes it back if the apply
     * is dropped, {@code kept} finishes it once the apply is kept.
     */
    void outside(Runnable undo, Runnable kept) {
        if (refusing) {
            throw new WriteWhileRefusing();
        }
        undoOutside.add(undo);
        afterKeep.add(kept);
    }

    /** Writes a record of the {@code meta} family (the functions' libraries) in the apply's batch. */
    void putMeta(byte[] key, byte[] value) {
        put(meta, key, value);
    }

    /** Deletes a record of the {@code meta} family in the apply's batch. */
    void deleteMeta(byte[] key) {
        remove(meta, key);
    }

    /**
     * The round's batch goes to the store's writer: the next round starts with {@code empty}.
     *
     * @return the round's batch
     */
    WriteBatchWithIndex hand(WriteBatchWithIndex empty) {
        WriteBatchWithIndex full = batch;
        batch = empty;
        wrote = false;
        return full;
    }

    /** The earliest deadline of any key of the current database, pending writes included (Long.MAX_VALUE: none). */
    long nextDeadlineMs() {
        Database d = current;
        if (!d.deadlineKnown) {
            try (RocksIterator it = iterator(deadlines)) {
                seekFirstDeadline(it);
                d.nextDeadlineMs = it.isValid() ? ByteBuffer.wrap(it.key()).getLong() : Long.MAX_VALUE;
            }
            d.deadlineKnown = true;
        }
        return d.nextDeadlineMs;
    }

    /** Up to {@code limit} deadline entries ({@code [deadline_ms][key]}) due at {@link #nowMs}, earliest first. */
    List<byte[]> dueDeadlines(int limit) {
        List<byte[]> due = new ArrayList<>();
        try (RocksIterator it = iterator(deadlines)) {
            for (seekFirstDeadline(it); it.isValid() && due.size() < limit; it.next()) {
                byte[] k = it.key();
                if (ByteBuffer.wrap(k).getLong() > nowMs) {
                    break;
                }
                due.add(k);
            }
        }
        return due;
    }

    /** Positions {@code it} at the first live deadline entry, from the database's floor, which moves to it. */
    private void seekFirstDeadline(RocksIterator it) {
        // Ticks delete from the front of the index, and RocksDB keeps those deletions until compaction: a seek from
        // the floor steps over the last tick's, not all
        Database d = current;
        if (d.deadlineFloor == null) {
            it.seekToFirst();
        } else {
            it.seek(d.deadlineFloor);
        }
        if (it.isValid()) {
            d.deadlineFloor = it.key();
        }
    }

    /** @return keys stored now in the current database, this apply's pending changes included (expired ones too) */
    long storedKeys() {
        return current.storedKeys();
    }

    /** Raises a keyspace notification, when its class is wanted ({@code notifyKeyspaceEvent}). */
    void event(int type, String name, byte[] key) {
        if ((eventClasses & type) != 0) {
            events.add(new Event(type, name, key, currentIndex));
        }
    }

    /** Takes back the last event of class {@code type} raised for {@code key} in this apply, if any. */
    void unraise(int type, byte[] key) {
        for (int i = events.size() - 1; i >= 0; i--) {
            Event e = events.get(i);
            if (e.type() == type && e.db() == currentIndex && Arrays.equals(e.key(), key)) {
                events.remove(i);
                return;
            }
        }
    }

    /**
     * A write command's {@code lookupKeyRead} of a key it only reads (a source of SINTERSTORE, BITOP, SORT…) found
     * nothing: {@code keymiss}, as a read's miss raises it ({@link #live} raises it for reads).
     */
    void readMiss(byte[] key) {
        if (mutating) {
            event(KeyspaceEvents.KEY_MISS, "keymiss", key);
        }
    }

    /**
     * Raises {@code name}, then {@code del} when the command left {@code key} without elements (Redis's order: a
     * pop, removal or trim that empties a collection deletes the key after its own event).
     */
    void eventThenDelIfGone(int type, String name, byte[] key) {
        event(type, name, key);
        if (eventClasses != 0 && index.get(key) == null) {
            event(KeyspaceEvents.GENERIC, "del", key);
        }
    }

    // ---------------------------------------------------------------- key records

    /** The stored record of {@code key}, expired or not, or null. */
    Rec raw(byte[] key) {
        return record(key, true);
    }

    /**
     * The record of {@code key} from the index, expired or not; a long string's value is read from RocksDB only
     * when {@code withValue}.
     */
    private Rec record(byte[] key, boolean withValue) {
        KeyIndex.Entry e = index.get(key);
        if (e == null) {
            return null;
        }
        int typeByte = e.typeByte() & 0xff;
        byte type = (byte) (typeByte & TYPE_MASK);
        int flags = typeByte & ~TYPE_MASK;
        if (type != STRING) {
            return new Rec(type, flags, e.expiryMs(), type == STREAM ? e.value() : null, e.fieldCount(), e.head());
        }
        byte[] value = e.value();
        if (value == null && withValue) {
            byte[] stored = get(keys, key);
            if (stored == null) {
                throw new IllegalStateException("the index holds a key RocksDB does not");
            }
            value = Arrays.copyOfRange(stored, 9, stored.length);
        }
        return new Rec(type, flags, e.expiryMs(), value, 0, 0);
    }

    /** The live record of {@code key}, or null when absent or expired (then deleted if a write command runs). */
    Rec lookup(byte[] key) {
        return live(key, record(key, true));
    }

    /** As {@link #lookup}, raising no {@code keymiss}: Redis's {@code LOOKUP_NONOTIFY} (OBJECT). */
    Rec lookupQuietly(byte[] key) {
        int classes = eventClasses;
        eventClasses = classes & ~KeyspaceEvents.KEY_MISS;
        try {
            return lookup(key);
        } finally {
            eventClasses = classes;
        }
    }

    /**
     * As {@link #lookup}, without reading a long string's value from RocksDB: for a command that only needs to know
     * whether the key exists, its type and its deadline (its {@link Rec#value()} then throws when not in memory).
     */
    Rec meta(byte[] key) {
        return live(key, record(key, false));
    }

    private Rec live(byte[] key, Rec r) {
        if (r != null && r.expiredAt(nowMs)) {
            if (mutating) {
                delete(key, r);
                event(KeyspaceEvents.EXPIRED, "expired", key);
            }
            r = null;
        }
        if (r == null && !mutating) {
            event(KeyspaceEvents.KEY_MISS, "keymiss", key); // lookupKeyRead's miss
        }
        return r;
    }

    /** The live string at {@code key}, or null; WRONGTYPE when it holds another type. */
    Rec string(byte[] key) {
        Rec r = lookup(key);
        if (r != null && !r.isString()) {
            throw new CommandError(CommandError.WRONGTYPE);
        }
        return r;
    }

    /** The live hash at {@code key}, or null; WRONGTYPE when it holds another type. */
    Rec hash(byte[] key) {
        return typed(key, HASH);
    }

    /** The live key of type {@code type} at {@code key}, or null; WRONGTYPE when it holds another type. */
    Rec typed(byte[] key, byte type) {
        Rec r = meta(key);
        if (r != null && r.type() != type) {
            throw new CommandError(CommandError.WRONGTYPE);
        }
        return r;
    }

    /**
     * Stores a string as Redis' {@code tryObjectEncoding} leaves it (no encoding flag); {@code old} is the key's live
     * record (or null) as returned by {@link #lookup}.
     */
    void putString(byte[] key, Rec old, byte[] value, long expiryMs) {
        putString(key, old, value, expiryMs, 0);
    }

    /** Stores a string with encoding flags {@code flags} ({@link #ENC_RAW}, {@link #ENC_PLAIN} or 0). */
    void putString(byte[] key, Rec old, byte[] value, long expiryMs, int flags) {
        if (old != null && old.hasFields()) {
            deleteFields(key);
        }
        if (old == null) {
            event(KeyspaceEvents.NEW, "new", key);
        }
        reindex(key, old, expiryMs);
        put(keys, key, encodeString(expiryMs, value, flags));
        indexed(key, (byte) (STRING | flags), expiryMs, 0, 0,
                value.length <= KeyIndex.INLINE_VALUE ? value.clone() : null);
    }

    /** Rewrites a hash's record with {@code count} fields, or deletes the key when it has none left. */
    void putHash(byte[] key, Rec old, long count) {
        putHash(key, old, count, old == null ? NO_EXPIRY : old.expiryMs(), old == null ? 0 : old.flags());
    }

    /**
     * Writes a hash's record with {@code count} fields, deadline {@code expiry} and encoding flags {@code flags}
     * ({@link #ENC_RAW} for a hashtable, or 0); its fields are written apart.
     */
    void putHash(byte[] key, Rec old, long count, long expiry, int flags) {
        if (count == 0) {
            if (old != null) {
                delete(key, old);
            }
            return;
        }
        putCollection(key, old, HASH, count, expiry, flags);
    }

    /**
     * Writes the record of a key of type {@code type} whose {@code count} elements are written apart in the
     * {@code fields} family (a hash's fields), with deadline {@code expiry} and encoding flags {@code flags}.
     */
    void putCollection(byte[] key, Rec old, byte type, long count, long expiry, int flags) {
        putCollection(key, old, type, count, 0, expiry, flags);
    }

    /**
     * As above, for a list: {@code head} is the position of its first element. A stream keeps the rest of its
     * metadata ({@code old}'s value).
     */
    void putCollection(byte[] key, Rec old, byte type, long count, long head, long expiry, int flags) {
        putCollection(key, old, type, count, head, expiry, flags, type == STREAM && old != null ? old.value : null);
    }

    /**
     * As above, with the bytes a stream's record holds after its entry count ({@link Streams.Meta}); null for any
     * other type.
     */
    void putCollection(byte[] key, Rec old, byte type, long count, long head, long expiry, int flags, byte[] tail) {
        if ((type == STREAM) != (tail != null)) {
            throw new IllegalStateException("a stream's record needs its metadata, and only a stream's has it");
        }
        if (old == null) {
            event(KeyspaceEvents.NEW, "new", key);
            if (!memos.isEmpty()) {
                memos.remove(ByteBuffer.wrap(key)); // a new key: nothing is known of its records
            }
        }
        reindex(key, old, expiry);
        byte[] record = encodeCollection(type, expiry, count, head, flags);
        put(keys, key, tail == null ? record : concat(record, tail));
        indexed(key, (byte) (type | flags), expiry, count, head, tail == null ? null : tail.clone());
    }

    /**
     * Rewrites the record of a set, sorted set or list with {@code count} elements (a list's first at {@code head}),
     * keeping its deadline, with encoding flags {@code flags}; deletes the key when none is left.
     */
    void putElements(byte[] key, Rec old, byte type, long count, long head, int flags) {
        if (count == 0) {
            if (old != null) {
                delete(key, old);
            }
            return;
        }
        putCollection(key, old, type, count, head, old == null ? NO_EXPIRY : old.expiryMs(), flags);
    }

    /** Changes the deadline of a live key ({@link #NO_EXPIRY} removes it); its value and encoding stay. */
    void setExpiry(byte[] key, Rec old, long expiryMs) {
        if (old.isString() && old.value == null) {
            old = record(key, true); // from meta(): the record is rewritten whole
        }
        if (old.hasFields()) {
            putCollection(key, old, old.type(), old.fieldCount(), old.head(), expiryMs, old.flags());
        } else {
            reindex(key, old, expiryMs);
            byte[] value = old.value();
            put(keys, key, encodeString(expiryMs, value, old.flags()));
            indexed(key, (byte) (STRING | old.flags()), expiryMs, 0, 0,
                    value.length <= KeyIndex.INLINE_VALUE ? value : null);
        }
    }

    /** Deletes a key and everything it owns (hash fields, deadline entry). */
    void delete(byte[] key, Rec old) {
        if (old.hasFields()) {
            deleteFields(key);
            if (!memos.isEmpty()) {
                memos.remove(ByteBuffer.wrap(key));
            }
        }
        if (old.hasExpiry()) {
            Database d = changing();
            remove(deadlines, deadlineKey(old.expiryMs(), key));
            d.expiringDelta--;
            d.deadlineSecondsDelta -= seconds(old.expiryMs());
            if (old.expiryMs() <= d.nextDeadlineMs) {
                d.deadlineKnown = false;
            }
        }
        remove(keys, key);
        changing().keyDelta--;
        KeyIndex.Entry previous = index.remove(key);
        remember(previous == null ? key : previous.key(), previous);
    }

    /** Remembers that the index held {@code previous} (null: nothing) for {@code key} before this apply. */
    private void remember(byte[] key, KeyIndex.Entry previous) {
        if (undone + 3 > undo.length) {
            undo = Arrays.copyOf(undo, undo.length * 2);
        }
        undo[undone++] = current;
        undo[undone++] = key;
        undo[undone++] = previous;
    }

    private void clearUndo() {
        Arrays.fill(undo, 0, undone, null);
        undone = 0;
    }

    /** Records a key's new header in the index (the batch got its record), remembering the old one for undo. */
    private void indexed(byte[] key, byte typeByte, long expiryMs, long fieldCount, long head, byte[] value) {
        KeyIndex.Entry current = index.get(key);
        byte[] k = current == null ? key.clone() : current.key();
        int hash = current == null ? index.hash(k) : current.hash();
        index.put(new KeyIndex.Entry(k, hash, typeByte, expiryMs, fieldCount, head, value));
        remember(k, current);
    }

    private void reindex(byte[] key, Rec old, long expiryMs) {
        Database d = changing();
        if (old == null) {
            d.keyDelta++;
        }
        long before = old == null ? NO_EXPIRY : old.expiryMs();
        if (before == expiryMs) {
            return;
        }
        if (before != NO_EXPIRY) {
            remove(deadlines, deadlineKey(before, key));
            d.expiringDelta--;
            d.deadlineSecondsDelta -= seconds(before);
            if (before <= d.nextDeadlineMs) {
                d.deadlineKnown = false;
            }
        }
        if (expiryMs != NO_EXPIRY) {
            put(deadlines, deadlineKey(expiryMs, key), new byte[0]);
            d.expiringDelta++;
            d.deadlineSecondsDelta += seconds(expiryMs);
            if (d.deadlineKnown && expiryMs < d.nextDeadlineMs) {
                d.nextDeadlineMs = expiryMs;
            }
        }
    }

    /** What is known in memory of the collection at {@code key}, or null. */
    Memo memo(byte[] key) {
        return memos.isEmpty() ? null : memos.get(ByteBuffer.wrap(key));
    }

    /** What is known in memory of the collection at {@code key}, remembered from now on. */
    Memo memoOrNew(byte[] key) {
        return memos.computeIfAbsent(ByteBuffer.wrap(key.clone()), k -> new Memo());
    }

    /** A deadline in whole seconds: the unit of the deadline sum, which a long holds for billions of keys. */
    static long seconds(long deadlineMs) {
        return Math.floorDiv(deadlineMs, 1000L);
    }

    // ---------------------------------------------------------------- hash fields

    byte[] field(byte[] key, byte[] field) {
        return get(fields, fieldKey(key, field));
    }

    void putField(byte[] key, byte[] field, byte[] value) {
        put(fields, fieldKey(key, field), value);
    }

    void deleteField(byte[] key, byte[] field) {
        remove(fields, fieldKey(key, field));
    }

    /** Every field of a hash as {field, value} pairs, in field byte order. */
    List<byte[][]> fields(byte[] key) {
        return fieldsAfter(key, null, Integer.MAX_VALUE);
    }

    /** Every element record under {@code prefix} (its bytes after the prefix), in byte order, without values. */
    List<byte[]> names(byte[] prefix) {
        List<byte[]> out = new ArrayList<>();
        for (byte[][] pair : recordsAfter(prefix, null, Integer.MAX_VALUE, Long.MAX_VALUE, false)) {
            out.add(pair[0]);
        }
        return out;
    }

    /** Up to {@code limit} {field, value} pairs whose field sorts after {@code after} (null: from the first). */
    List<byte[][]> fieldsAfter(byte[] key, byte[] after, int limit) {
        return fieldsAfter(key, after, limit, Long.MAX_VALUE, true);
    }

    /**
     * Up to {@code limit} {field, value} pairs whose field sorts after {@code after} (null: from the first), stopping
     * once they hold {@code maxBytes} (at least one pair); without {@code values}, each pair's value is null.
     */
    List<byte[][]> fieldsAfter(byte[] key, byte[] after, int limit, long maxBytes, boolean values) {
        return recordsAfter(fieldPrefix(key), after, limit, maxBytes, values);
    }

    /**
     * Up to {@code limit} {name, value} pairs of the {@code fields} records under {@code prefix} (a key's
     * {@link #fieldPrefix}, or one of its sub-spaces), whose name (the bytes after the prefix) sorts after
     * {@code after} (null: from the first), stopping once they hold {@code maxBytes}.
     */
    List<byte[][]> recordsAfter(byte[] prefix, byte[] after, int limit, long maxBytes, boolean values) {
        List<byte[][]> out = new ArrayList<>();
        try (RocksIterator it = iterator(fields)) {
            if (after == null) {
                it.seek(prefix);
            } else {
                byte[] from = concat(prefix, after);
                it.seek(from);
                if (it.isValid() && Arrays.equals(it.key(), from)) {
                    it.next();
                }
            }
            long bytes = 0;
            while (it.isValid() && out.size() < limit && bytes < maxBytes) {
                byte[] k = it.key();
                if (!startsWith(k, prefix)) {
                    break;
                }
                byte[] v = values ? it.value() : null;
                out.add(new byte[][] {Arrays.copyOfRange(k, prefix.length, k.length), v});
                bytes += k.length + (v == null ? 0 : v.length);
                it.next();
            }
        }
        return out;
    }

    /**
     * How many records, and about how many bytes, a bulk operation holds on the heap at a time: its memory stays flat
     * however big the hash or the keyspace, and however large its values.
     */
    static final int CHUNK = 1024;
    static final long CHUNK_BYTES = 8L * 1024 * 1024;

    /** Deletes every field of a hash, a chunk at a time (each chunk starts after the last field deleted). */
    private void deleteFields(byte[] key) {
        byte[] after = null;
        for (List<byte[][]> chunk = fieldsAfter(key, null, CHUNK, CHUNK_BYTES, false); !chunk.isEmpty();
                chunk = fieldsAfter(key, after, CHUNK, CHUNK_BYTES, false)) {
            for (byte[][] pair : chunk) {
                deleteField(key, pair[0]);
            }
            after = chunk.get(chunk.size() - 1)[0];
        }
    }

    /**
     * Copies every record under the prefix of {@code from} (a hash's fields, a set's or sorted set's members, a
     * list's elements) to {@code to} in database {@code toIndex}, a chunk at a time; returns how many records.
     */
    long copyFields(byte[] from, int toIndex, byte[] to) {
        int here = currentIndex;
        long n = 0;
        byte[] after = null;
        for (List<byte[][]> chunk = fieldsAfter(from, null, CHUNK, CHUNK_BYTES, true); !chunk.isEmpty();
                chunk = fieldsAfter(from, after, CHUNK, CHUNK_BYTES, true)) {
            select(toIndex);
            for (byte[][] pair : chunk) {
                putField(to, pair[0], pair[1]);
            }
            select(here);
            n += chunk.size();
            after = chunk.get(chunk.size() - 1)[0];
        }
        return n;
    }

    // ---------------------------------------------------------------- raw access

    /** An iterator over a column family as this apply sees it (the database with the pending batch on top). */
    RocksIterator iterator(ColumnFamilyHandle cf) {
        written.run();
        return batch.newIteratorWithBase(cf, db.newIterator(cf, readOptions), readOptions);
    }

    RocksIterator keyIterator() {
        return iterator(keys);
    }

    private byte[] get(ColumnFamilyHandle cf, byte[] key) {
        written.run();
        try {
            // the batch is empty until this apply writes: a plain get is then the same read at less than half
            // the cost of merging with the batch
            return wrote ? batch.getFromBatchAndDB(db, cf, readOptions, key) : db.get(cf, readOptions, key);
        } catch (RocksDBException e) {
            throw new IllegalStateException("RocksDB read failed: " + e.getMessage(), e);
        }
    }

    /** A refused write tried to write: its check refused a command that would have succeeded. */
    static final class WriteWhileRefusing extends RuntimeException {
        private static final long serialVersionUID = 1L;

        WriteWhileRefusing() {
            super("a refused write tried to write", null, false, false);
        }
    }

    private void put(ColumnFamilyHandle cf, byte[] key, byte[] value) {
        if (refusing) {
            throw new WriteWhileRefusing();
        }
        try {
            batch.put(cf, key, value);
            wrote = true;
        } catch (RocksDBException e) {
            throw new IllegalStateException("RocksDB batch put failed: " + e.getMessage(), e);
        }
        Memo memo = cf == fields ? memoOfRecord(key) : null;
        if (memo != null) {
            memo.wrote(key); // what was known empty around it no longer is
        }
        if (cf == deadlines && current.deadlineFloor != null
                && Arrays.compareUnsigned(key, current.deadlineFloor) < 0) {
            current.deadlineFloor = key;
        }
    }

    /** The memo of the key that owns the {@code fields} record {@code recordKey} ([key_len][key][name]), or null. */
    private Memo memoOfRecord(byte[] recordKey) {
        if (memos.isEmpty()) {
            return null;
        }
        return memos.get(ByteBuffer.wrap(recordKey, 4, ByteBuffer.wrap(recordKey).getInt()));
    }

    private void remove(ColumnFamilyHandle cf, byte[] key) {
        if (refusing) {
            throw new WriteWhileRefusing();
        }
        try {
            batch.delete(cf, key);
            wrote = true;
        } catch (RocksDBException e) {
            throw new IllegalStateException("RocksDB batch delete failed: " + e.getMessage(), e);
        }
        Memo memo = cf == fields ? memoOfRecord(key) : null;
        if (memo != null) {
            memo.deleted(key);
        }
    }

    // ---------------------------------------------------------------- codecs

    static byte[] encodeString(long expiryMs, byte[] value, int flags) {
        byte[] record = new byte[9 + value.length];
        record[0] = (byte) (STRING | flags);
        EXPIRY.set(record, 1, expiryMs);
        System.arraycopy(value, 0, record, 9, value.length);
        return record;
    }

    /** A record's deadline, u64 big-endian after its type byte. */
    private static final java.lang.invoke.VarHandle EXPIRY = java.lang.invoke.MethodHandles.byteArrayViewVarHandle(
            long[].class, java.nio.ByteOrder.BIG_ENDIAN);

    /**
     * A key record whose elements are apart: {@code [type|flags][expiry][count]}, and for a list
     * {@code [head i64 BE]} after it.
     */
    static byte[] encodeCollection(byte type, long expiryMs, long count, long head, int flags) {
        ByteBuffer b = ByteBuffer.allocate(type == LIST ? 25 : 17).put((byte) (type | flags)).putLong(expiryMs)
                .putLong(count);
        if (type == LIST) {
            b.putLong(head);
        }
        return b.array();
    }

    static Rec decode(byte[] v) {
        if (v == null) {
            return null;
        }
        ByteBuffer b = ByteBuffer.wrap(v);
        int typeByte = b.get() & 0xff;
        byte type = (byte) (typeByte & TYPE_MASK);
        int flags = typeByte & ~TYPE_MASK;
        long expiry = b.getLong();
        if (type == STREAM) {
            return new Rec(type, flags, expiry, Arrays.copyOfRange(v, 17, v.length), b.getLong(), 0);
        }
        if (type != STRING) {
            return new Rec(type, flags, expiry, null, b.getLong(), type == LIST ? b.getLong() : 0);
        }
        return new Rec(type, flags, expiry, Arrays.copyOfRange(v, 9, v.length), 0, 0);
    }

    /** The index entry of a stored key record: its header, and its value when the record is a short string. */
    static KeyIndex.Entry indexEntry(KeyIndex index, byte[] key, byte[] v) {
        ByteBuffer b = ByteBuffer.wrap(v);
        byte typeByte = b.get();
        long expiry = b.getLong();
        boolean string = (typeByte & TYPE_MASK) == STRING;
        long count = string ? 0 : b.getLong();
        long head = (typeByte & TYPE_MASK) == LIST ? b.getLong() : 0;
        byte[] value = string && v.length - 9 <= KeyIndex.INLINE_VALUE ? Arrays.copyOfRange(v, 9, v.length)
                : (typeByte & TYPE_MASK) == STREAM ? Arrays.copyOfRange(v, 17, v.length) : null;
        return new KeyIndex.Entry(key, index.hash(key), typeByte, expiry, count, head, value);
    }

    /** A key record's type, flags and deadline without its value (enough to delete the key). */
    static Rec header(byte[] v) {
        ByteBuffer b = ByteBuffer.wrap(v);
        int typeByte = b.get() & 0xff;
        byte type = (byte) (typeByte & TYPE_MASK);
        long expiry = b.getLong();
        return new Rec(type, typeByte & ~TYPE_MASK, expiry, type == STRING ? new byte[0]
                : type == STREAM ? Arrays.copyOfRange(v, 17, v.length) : null,
                type == STRING ? 0 : b.getLong(), type == LIST ? b.getLong() : 0);
    }

    /** {@code [deadline_ms u64 BE][key]}: iteration order is deadline order, then key order. */
    static byte[] deadlineKey(long deadlineMs, byte[] key) {
        return ByteBuffer.allocate(8 + key.length).putLong(deadlineMs).put(key).array();
    }

    /** {@code [key length u32 BE][key]}: the prefix of every field of one hash, unambiguous across keys. */
    static byte[] fieldPrefix(byte[] key) {
        return ByteBuffer.allocate(4 + key.length).putInt(key.length).put(key).array();
    }

    static byte[] fieldKey(byte[] key, byte[] field) {
        return ByteBuffer.allocate(4 + key.length + field.length).putInt(key.length).put(key).put(field).array();
    }

    static byte[] concat(byte[] a, byte[] b) {
        byte[] out = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }

    /** The {@code fields} record {@code prefix + name}, or null. */
    byte[] record(byte[] prefix, byte[] name) {
        return get(fields, concat(prefix, name));
    }

    void putRecord(byte[] prefix, byte[] name, byte[] value) {
        put(fields, concat(prefix, name), value);
    }

    void deleteRecord(byte[] prefix, byte[] name) {
        remove(fields, concat(prefix, name));
    }

    /** An iterator over the {@code fields} family as this apply sees it: the caller seeks and bounds it. */
    RocksIterator fieldIterator() {
        return iterator(fields);
    }

    static boolean startsWith(byte[] k, byte[] prefix) {
        return k.length >= prefix.length && Arrays.equals(k, 0, prefix.length, prefix, 0, prefix.length);
    }
}
