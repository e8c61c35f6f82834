package tandem.store;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.WriteBatchWithIndex;

/**
 * The view one apply (a command, a transaction or a Tick) has of the keyspace: reads go through the pending batch
 * to the database, so a transaction's later commands see its earlier writes, and every write goes to that one
 * batch, which {@link RocksKeyspace} then writes together with the applied sequence.
 *
 * <p>Design note: this class is the only place that knows the record layout (see {@link RocksKeyspace} for it), so
 * that the deadline index and the key counters cannot drift from the records: every write of a key record goes
 * through {@link #putString}, {@link #putHash}, {@link #setExpiry} or {@link #delete}, which keep them in step.
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
    static final byte HASH = 4;   // Redis' OBJ_HASH
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
     * A decoded key record: {@code value} for a string, {@code fieldCount} for a hash. {@code type} is the type code
     * alone; {@code flags} holds the encoding flags ({@link #ENC_RAW}, {@link #ENC_PLAIN}), which only OBJECT and
     * MEMORY read.
     */
    record Rec(byte type, int flags, long expiryMs, byte[] value, long fieldCount) {

        boolean isHash() {
            return type == HASH;
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
    private final ColumnFamilyHandle keys;
    private final ColumnFamilyHandle fields;
    private final ColumnFamilyHandle deadlines;
    private final ReadOptions readOptions;
    final WriteBatchWithIndex batch = new WriteBatchWithIndex(true); // true: a later write of a key replaces it
    final ScanCursors cursors;

    /** "now" of the entry being applied, in milliseconds since the epoch. */
    long nowMs;
    /** True while a write command runs: expired keys met are deleted. */
    boolean mutating;
    /** True while a refused write is answered ({@link RocksKeyspace#refuse}): any write is a bug, and throws. */
    boolean refusing;
    /** Keys stored before this apply (expired ones included), for DBSIZE. */
    long baseKeys;
    long keyDelta;
    long expiringDelta;
    /** The change of the sum of every deadline, in whole seconds (for {@code avg_ttl}). */
    long deadlineSecondsDelta;
    boolean deadlinesTouched;
    boolean wrote;

    Tx(RocksDB db, ColumnFamilyHandle keys, ColumnFamilyHandle fields, ColumnFamilyHandle deadlines,
            ReadOptions readOptions, ScanCursors cursors) {
        this.db = db;
        this.keys = keys;
        this.fields = fields;
        this.deadlines = deadlines;
        this.readOptions = readOptions;
        this.cursors = cursors;
    }

    void begin(long nowMs, long storedKeys) {
        this.nowMs = nowMs;
        this.baseKeys = storedKeys;
        this.mutating = false;
        this.keyDelta = 0;
        this.expiringDelta = 0;
        this.deadlineSecondsDelta = 0;
        this.deadlinesTouched = false;
        this.wrote = false;
    }

    /** @return keys stored now, this apply's pending changes included (expired but not deleted ones too) */
    long storedKeys() {
        return baseKeys + keyDelta;
    }

    // ---------------------------------------------------------------- key records

    /** The stored record of {@code key}, expired or not, or null. */
    Rec raw(byte[] key) {
        return decode(get(keys, key));
    }

    /** The live record of {@code key}, or null when absent or expired (then deleted if a write command runs). */
    Rec lookup(byte[] key) {
        Rec r = raw(key);
        if (r != null && r.expiredAt(nowMs)) {
            if (mutating) {
                delete(key, r);
            }
            return null;
        }
        return r;
    }

    /** The live string at {@code key}, or null; WRONGTYPE when it holds a hash. */
    Rec string(byte[] key) {
        Rec r = lookup(key);
        if (r != null && r.isHash()) {
            throw new CommandError(CommandError.WRONGTYPE);
        }
        return r;
    }

    /** The live hash at {@code key}, or null; WRONGTYPE when it holds a string. */
    Rec hash(byte[] key) {
        Rec r = lookup(key);
        if (r != null && !r.isHash()) {
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
        if (old != null && old.isHash()) {
            deleteFields(key);
        }
        reindex(key, old, expiryMs);
        put(keys, key, encodeString(expiryMs, value, flags));
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
        reindex(key, old, expiry);
        put(keys, key, encodeHash(expiry, count, flags));
    }

    /** Changes the deadline of a live key ({@link #NO_EXPIRY} removes it); its value and encoding stay. */
    void setExpiry(byte[] key, Rec old, long expiryMs) {
        reindex(key, old, expiryMs);
        put(keys, key, old.isHash() ? encodeHash(expiryMs, old.fieldCount(), old.flags())
                : encodeString(expiryMs, old.value(), old.flags()));
    }

    /** Deletes a key and everything it owns (hash fields, deadline entry). */
    void delete(byte[] key, Rec old) {
        if (old.isHash()) {
            deleteFields(key);
        }
        if (old.hasExpiry()) {
            remove(deadlines, deadlineKey(old.expiryMs(), key));
            expiringDelta--;
            deadlineSecondsDelta -= seconds(old.expiryMs());
            deadlinesTouched = true;
        }
        remove(keys, key);
        keyDelta--;
    }

    private void reindex(byte[] key, Rec old, long expiryMs) {
        if (old == null) {
            keyDelta++;
        }
        long before = old == null ? NO_EXPIRY : old.expiryMs();
        if (before == expiryMs) {
            return;
        }
        if (before != NO_EXPIRY) {
            remove(deadlines, deadlineKey(before, key));
            expiringDelta--;
            deadlineSecondsDelta -= seconds(before);
        }
        if (expiryMs != NO_EXPIRY) {
            put(deadlines, deadlineKey(expiryMs, key), new byte[0]);
            expiringDelta++;
            deadlineSecondsDelta += seconds(expiryMs);
        }
        deadlinesTouched = true;
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

    /** Up to {@code limit} {field, value} pairs whose field sorts after {@code after} (null: from the first). */
    List<byte[][]> fieldsAfter(byte[] key, byte[] after, int limit) {
        return fieldsAfter(key, after, limit, Long.MAX_VALUE, true);
    }

    /**
     * Up to {@code limit} {field, value} pairs whose field sorts after {@code after} (null: from the first), stopping
     * once they hold {@code maxBytes} (at least one pair); without {@code values}, each pair's value is null.
     */
    List<byte[][]> fieldsAfter(byte[] key, byte[] after, int limit, long maxBytes, boolean values) {
        byte[] prefix = fieldPrefix(key);
        List<byte[][]> out = new ArrayList<>();
        try (RocksIterator it = iterator(fields)) {
            if (after == null) {
                it.seek(prefix);
            } else {
                byte[] from = fieldKey(key, after);
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

    /** Copies every field of hash {@code from} to hash {@code to}, a chunk at a time; returns how many. */
    long copyFields(byte[] from, byte[] to) {
        long n = 0;
        byte[] after = null;
        for (List<byte[][]> chunk = fieldsAfter(from, null, CHUNK, CHUNK_BYTES, true); !chunk.isEmpty();
                chunk = fieldsAfter(from, after, CHUNK, CHUNK_BYTES, true)) {
            for (byte[][] pair : chunk) {
                putField(to, pair[0], pair[1]);
            }
            n += chunk.size();
            after = chunk.get(chunk.size() - 1)[0];
        }
        return n;
    }

    // ---------------------------------------------------------------- raw access

    /** An iterator over a column family as this apply sees it (the database with the pending batch on top). */
    RocksIterator iterator(ColumnFamilyHandle cf) {
        return batch.newIteratorWithBase(cf, db.newIterator(cf, readOptions), readOptions);
    }

    RocksIterator keyIterator() {
        return iterator(keys);
    }

    private byte[] get(ColumnFamilyHandle cf, byte[] key) {
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
    }

    // ---------------------------------------------------------------- codecs

    static byte[] encodeString(long expiryMs, byte[] value, int flags) {
        return ByteBuffer.allocate(9 + value.length).put((byte) (STRING | flags)).putLong(expiryMs).put(value).array();
    }

    static byte[] encodeHash(long expiryMs, long count, int flags) {
        return ByteBuffer.allocate(17).put((byte) (HASH | flags)).putLong(expiryMs).putLong(count).array();
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
        if (type == HASH) {
            return new Rec(type, flags, expiry, null, b.getLong());
        }
        return new Rec(type, flags, expiry, Arrays.copyOfRange(v, 9, v.length), 0);
    }

    /** A key record's type, flags and deadline without its value (enough to delete the key). */
    static Rec header(byte[] v) {
        ByteBuffer b = ByteBuffer.wrap(v);
        int typeByte = b.get() & 0xff;
        byte type = (byte) (typeByte & TYPE_MASK);
        long expiry = b.getLong();
        return new Rec(type, typeByte & ~TYPE_MASK, expiry, type == HASH ? null : new byte[0],
                type == HASH ? b.getLong() : 0);
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

    static boolean startsWith(byte[] k, byte[] prefix) {
        return k.length >= prefix.length && Arrays.equals(k, 0, prefix.length, prefix, 0, prefix.length);
    }
}
