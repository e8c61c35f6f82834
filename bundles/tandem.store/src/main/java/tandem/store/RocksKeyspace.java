package tandem.store;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.locks.Lock;
import java.util.stream.Stream;

import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.BloomFilter;
import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.CompactRangeOptions;
import org.rocksdb.LRUCache;
import org.rocksdb.DBOptions;
import org.rocksdb.FlushOptions;
import org.rocksdb.IndexType;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.Snapshot;
import org.rocksdb.WriteOptions;

import tandem.api.store.Command;
import tandem.api.store.CommandDescriptor;
import tandem.api.store.Keyspace;
import tandem.api.store.KeyspaceEvents;
import tandem.api.store.Reply;
import tandem.api.store.StoreStatus;
import tandem.store.Commands.Spec;
import tandem.store.Tx.Rec;

/**
 * The keyspace over one RocksDB database.
 *
 * <h2>Layout</h2>
 * One database, {@code atomic_flush = true}, these column families (RocksDB's {@code default} stays empty):
 * <pre>
 * keys       user key                              -&gt; [type u8][expiry_ms i64 BE, -1 = none][payload]
 *                                                     string (type 0): payload = the value's bytes
 *                                                     list   (type 1): payload = [count u64 BE][head i64 BE]
 *                                                     set    (type 2), zset (type 3), hash (type 4):
 *                                                                      payload = [count u64 BE]
 *                                                     type u8 = [flags: bits 7..4][type code: bits 3..0]
 * fields     [key_len u32 BE][user key][name]      -&gt; value: one record per element, under the key's prefix
 *              hash: name = field                       -&gt; field value
 *              set:  name = member                      -&gt; empty
 *              list: name = position i64 BE, sign bit flipped -&gt; element (positions head .. head+count-1)
 *              zset: name = 0x00 member                 -&gt; score (the double's bits, u64 BE)
 *                    name = 0x01 sortable score u64 BE, member -&gt; empty   (score order, then member bytes)
 * deadlines  [deadline_ms u64 BE][user key]        -&gt; empty   (one entry per key with an expiry: deadline order)
 * keys.n, fields.n, deadlines.n  (n = 1..15)       -&gt; the same, for the databases of slots 1 to 15
 * meta       "applied"                             -&gt; [applied_sequence u64 BE][keys u64 BE][keys_with_expiry u64 BE]
 *                                                     [deadline_seconds_sum i64 BE]  (absent before avg_ttl: summed
 *                                                     from the deadlines family at open)
 * </pre>
 * Types are Redis' object type codes. A stored deadline is always positive (commands refuse or delete the rest).
 * The flags above the type code record what Redis' encoding of the value would be where the bytes alone do not
 * tell (OBJECT ENCODING): bit 7 ({@code 0x80}, {@link Tx#ENC_RAW}) on a string, built in place (APPEND to an
 * existing value, SETRANGE, SETBIT, BITOP, BITFIELD), "raw" whatever its length; on a hash, converted to a
 * "hashtable" (more than 128 fields or a field or value over 64 bytes at some point), for good. Bit 6 ({@code 0x40},
 * {@link Tx#ENC_PLAIN}) on a string: made by INCRBYFLOAT, so never "int". Bits 5 and 4 are 0. Without a flag a
 * string is "int", "embstr" or "raw" by its bytes and a hash is a "listpack". Bit 7 on a set: converted to a
 * "hashtable" (else an "intset"); on a sorted set: a "skiplist" (else a "listpack"); a list is always a "quicklist".
 * {@link Lists}, {@link Sets} and {@link Zsets} tell what each layout costs. A record written before the flags
 * existed reads as unflagged (a hash of more than 128 fields still reads as a hashtable); the reverse does not
 * hold: code from before the flags compares the whole byte and would take a flagged hash for a string, so a
 * checkpoint cut by this layout must not be installed on an older node. The flags are deterministic (every replica
 * applies the same commands) but not part of the data: every comparison of types and the digest use the type code
 * alone.
 *
 * <h2>Memory</h2>
 * Every key's header (type byte, deadline, element count, a list's head) and every string of at most
 * {@value KeyIndex#INLINE_VALUE} bytes is also held in memory ({@link KeyIndex}, built from the {@code keys} family at
 * open): a write knows whether its key exists, and what it holds, without a RocksDB read, and a short string is read
 * from memory. RocksDB stays the only copy on disk.
 *
 * <h2>Rounds</h2>
 * Applies are written to RocksDB a round at a time: {@link #commit()}, called by the node core once per round, hands
 * every apply since the last commit and the {@code meta} record, in one {@code WriteBatch}, to the store's writer
 * thread ({@link Rounds}), which inserts it into the memtables while the logic thread applies the next round
 * (profiled under pipelined SETs, the memtable insert took a quarter of the logic thread, the serial limit). The
 * effects are visible
 * to the logic thread's own calls at once (through the batch and the index; a read of RocksDB first waits for the
 * round being written), and to other threads once written: a flush, a digest or a checkpoint first waits for the
 * rounds committed before it, and reads RocksDB, where the applied sequence in {@code meta} is always exactly the
 * state.
 * Nothing is less durable for it: without a WAL, a write that reached RocksDB's memtable is lost by a crash all the
 * same, and the journal replays both. Only the caller commits, because only it knows what its journal made durable:
 * under the {@code ram} ack policy entries are applied before they are durable, and the store must never write one
 * that the journal may still lose (a restarted store would be ahead of its journal). So a flush writes to disk only
 * what was committed, and closing drops an uncommitted round, which the journal replays.
 *
 * <h2>Durability</h2>
 * Every commit writes its effects and the {@code meta} record in one {@code WriteBatch}, so the applied sequence
 * on disk is always exactly the state on disk. RocksDB's WAL is off because the journal is the log; what a crash
 * keeps is what was flushed, and atomic flush makes that a consistent cut across the column families, the
 * applied sequence included. {@link #flush()} records the applied sequence captured just before a successful
 * flush as {@link StoreStatus#flushedSequence()}: conservative, never ahead of what is on disk.
 *
 * <h2>Time</h2>
 * Deadlines are milliseconds since the epoch (Redis' precision), "now" is the entry's timestamp / 1,000,000. A
 * key is expired iff {@code deadline_ms <= now_ms}; Redis' lazy expiry tests {@code now > deadline}, so at the
 * exact millisecond of its deadline a key reads as absent here and present in Redis (a documented departure; both
 * agree one millisecond either side, and Redis' own EXPIRE/GETEX treat {@code deadline <= now} as already expired).
 *
 * <h2>Threads</h2>
 * The Keyspace methods are called by one logic thread; {@link #digest()}, {@link #status()} and {@link #flush()}
 * may run on others, and the writer writes each round. A read-write lock keeps {@link #close()} from releasing
 * RocksDB under any of them; {@link #close()} first waits for the round being written.
 */
final class RocksKeyspace implements AutoCloseable {

    private static final byte[] APPLIED = "applied".getBytes(StandardCharsets.US_ASCII);
    /** The epoch of the last EpochBump applied, u64 big-endian; absent: 0 (no promotion in this history). */
    private static final byte[] EPOCH = "epoch".getBytes(StandardCharsets.US_ASCII);
    private static final List<String> FAMILIES = List.of("keys", "fields", "deadlines", "meta");
    /** The families of a database beyond the first, slot n: {@code keys.n}, {@code fields.n}, {@code deadlines.n}. */
    private static final List<String> DATABASE_FAMILIES = List.of("keys", "fields", "deadlines");

    private final Path directory;
    private final DBOptions dbOptions;
    private final ColumnFamilyOptions cfOptions;
    private final LRUCache blockCache;
    private final BloomFilter bloom;
    private final List<ColumnFamilyHandle> handles;
    private final RocksDB db;
    private final Databases databases;
    private final ColumnFamilyHandle meta;
    private final WriteOptions writeOptions;
    private final ReadOptions readOptions;
    private final FlushOptions flushOptions;
    private final ScanCursors cursors;
    private final Tx tx;
    /** One generator behind {@code math.random}, as Redis has one for its scripts and its functions. */
    private final Rand48 random = new Rand48();
    /** The scripts' Lua state and cache: this node's, never replicated. */
    private final LuaScripts scripts = new LuaScripts(random);
    /** The functions' Lua state, apart from the scripts' as in Redis, and their libraries: replicated data. */
    private final LuaScripts functionLua = new LuaScripts(random);
    private final Functions functions = new Functions(functionLua);
    /** While {@link #capture} runs: what it wrote, and what it refuses writes with. */
    private List<Keyspace.Effect> captured;
    private String captureRefusal;
    private Keyspace.Publisher capturePublisher;
    private boolean scriptReadOnly;
    private int scriptDb;
    private boolean killed;
    /**
     * Keeps {@link #close()} from releasing RocksDB under a call on another thread. A stamped lock: no call re-enters
     * it, and its read side, taken for every apply, keeps no per-thread hold count.
     */
    private final java.util.concurrent.locks.StampedLock life = new java.util.concurrent.locks.StampedLock();
    private final Object flushLock = new Object();

    private volatile int expireKeysPerTick;
    /** The last sequence applied, committed or not (the logic thread's view). */
    private volatile long appliedSequence;
    private volatile long epoch;
    /** The store's writer thread, and what it wrote. */
    private final Rounds rounds;
    private volatile long flushedSequence;
    private volatile boolean closed;
    /** Where keyspace notifications go (null: nowhere); read once per apply. */
    private volatile KeyspaceEvents events;

    private RocksKeyspace(Path directory, int expireKeysPerTick, int scanCursors) throws RocksDBException {
        this.directory = directory;
        this.expireKeysPerTick = expireKeysPerTick;
        this.dbOptions = new DBOptions()
                .setCreateIfMissing(true)
                .setCreateMissingColumnFamilies(true)
                .setAtomicFlush(true);
        // Every command reads its key before it writes it: a bloom filter lets a lookup skip the files that cannot
        // hold the key, and a shared block cache keeps the hot blocks in memory. Index and filter are partitioned
        // into blocks of about 4 KB under a small top level that stays pinned: a file's whole filter is 1.25 bytes a
        // record (1.75 MB for 1.4 M), more than a shard of the cache holds (64 MB / 64 shards), so unpartitioned it
        // was read back from the file and checksummed on every lookup once a large key had been compacted into one
        // file with others (docs/data-types.md, "An aging store").
        this.blockCache = new LRUCache(64L * 1024 * 1024);
        this.bloom = new BloomFilter(10, false);
        this.cfOptions = new ColumnFamilyOptions().setTableFormatConfig(new BlockBasedTableConfig()
                .setBlockCache(blockCache)
                .setFilterPolicy(bloom)
                .setWholeKeyFiltering(true)
                .setIndexType(IndexType.kTwoLevelIndexSearch)
                .setPartitionFilters(true)
                .setMetadataBlockSize(4096)
                .setCacheIndexAndFilterBlocks(true)
                .setPinTopLevelIndexAndFilter(true)
                .setPinL0FilterAndIndexBlocksInCache(true));
        List<ColumnFamilyDescriptor> descriptors = new ArrayList<>();
        descriptors.add(new ColumnFamilyDescriptor(RocksDB.DEFAULT_COLUMN_FAMILY, cfOptions));
        for (String name : FAMILIES) {
            descriptors.add(new ColumnFamilyDescriptor(name.getBytes(StandardCharsets.US_ASCII), cfOptions));
        }
        for (int slot = 1; slot < Databases.COUNT; slot++) {
            for (String name : DATABASE_FAMILIES) {
                descriptors.add(new ColumnFamilyDescriptor((name + "." + slot).getBytes(StandardCharsets.US_ASCII),
                        cfOptions));
            }
        }
        this.handles = new ArrayList<>();
        RocksDB opened;
        try {
            opened = RocksDB.open(dbOptions, directory.toString(), descriptors, handles);
        } catch (RocksDBException e) {
            cfOptions.close();
            dbOptions.close();
            bloom.close();
            blockCache.close();
            throw e;
        }
        this.db = opened;
        this.meta = handles.get(4);
        List<Database> slots = new ArrayList<>();
        slots.add(new Database(0, handles.get(1), handles.get(2), handles.get(3)));
        for (int slot = 1; slot < Databases.COUNT; slot++) {
            int at = 5 + (slot - 1) * 3;
            slots.add(new Database(slot, handles.get(at), handles.get(at + 1), handles.get(at + 2)));
        }
        // The WAL is off on every write because the journal is the log: restart opens RocksDB and replays the
        // journal after the applied sequence found in meta, so a second log would only double every write. Atomic
        // flush keeps the column families and the applied sequence (written in the same batch as the effects)
        // consistent in what survives a crash.
        this.writeOptions = new WriteOptions().setDisableWAL(true);
        this.readOptions = new ReadOptions();
        this.flushOptions = new FlushOptions().setWaitForFlush(true);
        this.cursors = new ScanCursors(scanCursors);
        this.databases = new Databases(slots, db.get(meta, Databases.MAPPING));
        this.rounds = new Rounds(db, writeOptions, List.copyOf(handles.subList(1, handles.size())),
                written -> new Tx(db, databases, meta, readOptions, cursors, written));
        this.tx = rounds.tx();
        tx.scripts = scripts;
        tx.functions = functions;
        functions.open(db, meta);
        for (Database d : databases.all()) {
            loadIndex(d);
        }
        byte[] m = db.get(meta, APPLIED);
        if (m != null) {
            appliedSequence = ByteBuffer.wrap(m).getLong(); // the counters after it are the index's
        }
        byte[] e = db.get(meta, EPOCH);
        epoch = e == null ? 0 : ByteBuffer.wrap(e).getLong();
        rounds.writtenUpTo(appliedSequence);
        flushedSequence = appliedSequence; // without a WAL, whatever a reopened database holds was flushed
    }

    /** Reads every key record's header (and short values) of {@code d} into its index, and counts them. */
    private void loadIndex(Database d) {
        long keys = 0;
        long expiring = 0;
        long seconds = 0;
        try (RocksIterator it = db.newIterator(d.keys, readOptions)) {
            for (it.seekToFirst(); it.isValid(); it.next()) {
                KeyIndex.Entry e = Tx.indexEntry(d.index, it.key(), it.value());
                d.index.put(e);
                keys++;
                if (e.expiryMs() != Tx.NO_EXPIRY) {
                    expiring++;
                    seconds += Tx.seconds(e.expiryMs());
                }
            }
        }
        d.keyCount = keys;
        d.expiringCount = expiring;
        d.deadlineSeconds = seconds;
        d.nextDeadlineMs = Long.MAX_VALUE;
    }

    /** Opens (creating when missing) the store in {@code directory}. */
    static RocksKeyspace open(Path directory, int expireKeysPerTick, int scanCursors) {
        RocksDB.loadLibrary();
        try {
            Files.createDirectories(directory);
            return new RocksKeyspace(directory, expireKeysPerTick, scanCursors);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create the store directory " + directory, e);
        } catch (RocksDBException e) {
            throw new IllegalStateException("cannot open RocksDB in " + directory + ": " + e.getMessage(), e);
        }
    }

    void expireKeysPerTick(int n) {
        this.expireKeysPerTick = n;
    }

    void scanCursors(int n) {
        cursors.capacity(n);
    }

    // ---------------------------------------------------------------- Keyspace

    public Collection<CommandDescriptor> commands() {
        return Commands.descriptors();
    }

    public CommandDescriptor describe(String lowerCaseName) {
        return Commands.describe(lowerCaseName);
    }

    public Command resolve(byte[][] args) {
        return Commands.resolve(args);
    }

    /** For tests and tools: {@link #apply(long, long, Command, Reply)} of a command not resolved yet. */
    void apply(long sequence, long timestampNs, byte[][] args, Reply reply) {
        apply(sequence, timestampNs, Commands.of(args), reply);
    }

    public void apply(long sequence, long timestampNs, Command command, Reply reply) {
        Spec spec = Commands.spec(command);
        Lock lock = enter();
        try {
            begin(sequence, timestampNs);
            if (isFlush(spec, command.args())) {
                flush(sequence, spec.descriptor().name().equals("flushall") ? -1 : command.db(), reply);
                return;
            }
            tx.select(command.db());
            run(spec, command, reply);
            applied(sequence);
        } finally {
            lock.unlock();
        }
    }

    private static boolean isFlush(Spec spec, byte[][] args) {
        String name = spec.descriptor().name();
        if (!name.equals("flushall") && !name.equals("flushdb")) {
            return false;
        }
        try {
            KeyCommands.checkFlush(args, 0);
            return true;
        } catch (CommandError syntax) {
            return false; // answered by the command itself
        }
    }

    /**
     * FLUSHALL (every database: {@code index} -1) / FLUSHDB (database {@code index}) applied alone: one range
     * deletion per column family (from its first key to its last, and the last), written with the applied sequence
     * in one batch. Its cost does not grow with the keyspace, and it holds no key on the heap.
     */
    private void flush(long sequence, int index, Reply reply) {
        tx.keepWrites();
        commitRound();
        rounds.awaitWritten(); // the range deletions below cover what the earlier rounds wrote
        List<Database> flushed = index < 0 ? databases.all() : List.of(databases.get(index));
        List<ColumnFamilyHandle> families = new ArrayList<>();
        for (Database d : flushed) {
            families.addAll(List.of(d.keys, d.fields, d.deadlines));
        }
        try (org.rocksdb.WriteBatch batch = new org.rocksdb.WriteBatch()) {
            for (ColumnFamilyHandle cf : families) {
                try (RocksIterator it = db.newIterator(cf, readOptions)) {
                    it.seekToFirst();
                    if (!it.isValid()) {
                        continue;
                    }
                    byte[] first = it.key();
                    it.seekToLast();
                    byte[] last = it.key();
                    batch.deleteRange(cf, first, last);
                    batch.delete(cf, last);
                }
            }
            for (Database d : flushed) {
                d.cleared();
            }
            tx.select(Math.max(index, 0));
            tx.event(KeyspaceEvents.FLUSHED, "flush", new byte[0]);
            batch.put(meta, APPLIED, meta(sequence));
            db.write(writeOptions, batch);
        } catch (RocksDBException e) {
            throw new IllegalStateException("RocksDB write of sequence " + sequence + " failed: " + e.getMessage(), e);
        }
        appliedSequence = sequence;
        rounds.writtenUpTo(sequence);
        raiseEvents();
        reply.simple("OK");
    }

    /**
     * The {@code meta} record: {@code [applied u64][keys u64][keys_with_expiry u64][deadline_seconds_sum i64]}, the
     * counters summed over the databases (an open counts them again from the index; they are kept for tools).
     */
    private byte[] meta(long sequence) {
        long keys = 0;
        long expiring = 0;
        long seconds = 0;
        for (Database d : databases.all()) {
            keys += d.keyCount;
            expiring += d.expiringCount;
            seconds += d.deadlineSeconds;
        }
        return ByteBuffer.allocate(32).putLong(sequence).putLong(keys).putLong(expiring).putLong(seconds).array();
    }

    /** For tests: forgets what the seeks learnt was empty ({@link Memo}), as a reopened store has not learnt it. */
    void forgetMemos() {
        for (Database d : databases.all()) {
            d.memos.clear();
        }
    }

    /** For tests: {@link #applyTransaction(long, long, List, Reply)} of commands not resolved yet. */
    void applyTransactionOf(long sequence, long timestampNs, List<byte[][]> commands, Reply reply) {
        List<Command> resolved = new ArrayList<>(commands.size());
        for (byte[][] c : commands) {
            resolved.add(Commands.of(c));
        }
        applyTransaction(sequence, timestampNs, resolved, reply);
    }

    public void applyTransaction(long sequence, long timestampNs, List<Command> commands, Reply reply) {
        List<Spec> specs = new ArrayList<>(commands.size());
        for (Command c : commands) {
            specs.add(Commands.spec(c)); // all known before anything runs
        }
        Lock lock = enter();
        try {
            begin(sequence, timestampNs);
            reply.array(commands.size());
            for (int i = 0; i < specs.size(); i++) {
                tx.select(commands.get(i).db());
                run(specs.get(i), commands.get(i), reply);
            }
            applied(sequence);
        } finally {
            lock.unlock();
        }
    }

    public void tick(long sequence, long timestampNs) {
        Lock lock = enter();
        try {
            begin(sequence, timestampNs);
            tx.mutating = true;
            int budget = expireKeysPerTick; // for all the databases, in index order
            for (int index = 0; index < Databases.COUNT && budget > 0; index++) {
                tx.select(index);
                if ((tx.current.index.size() == 0) || tx.nextDeadlineMs() > tx.nowMs) {
                    continue;
                }
                List<byte[]> due = tx.dueDeadlines(budget);
                budget -= due.size();
                for (byte[] entry : due) {
                    long deadline = ByteBuffer.wrap(entry).getLong();
                    byte[] key = java.util.Arrays.copyOfRange(entry, 8, entry.length);
                    Rec rec = tx.raw(key);
                    if (rec != null && rec.expiryMs() == deadline) {
                        tx.delete(key, rec);
                        tx.event(KeyspaceEvents.EXPIRED, "expired", key);
                    }
                }
            }
            tx.select(0);
            applied(sequence);
        } finally {
            lock.unlock();
        }
    }

    public void advance(long sequence) {
        Lock lock = enter();
        try {
            begin(sequence, 0);
            applied(sequence);
        } finally {
            lock.unlock();
        }
    }

    /**
     * Applies an EpochBump: the epoch is kept in the same batch as the applied sequence, so a checkpoint (a
     * snapshot a replica installs) carries the epoch of the history it ends.
     */
    public void epochBump(long sequence, long newEpoch) {
        Lock lock = enter();
        try {
            begin(sequence, 0);
            try {
                tx.batch.put(meta, EPOCH, ByteBuffer.allocate(8).putLong(newEpoch).array());
            } catch (RocksDBException e) {
                throw new IllegalStateException("RocksDB batch put of the epoch failed: " + e.getMessage(), e);
            }
            epoch = newEpoch;
            applied(sequence);
        } finally {
            lock.unlock();
        }
    }

    /** @return the epoch of the last EpochBump applied, 0 when none */
    public long epoch() {
        return epoch;
    }

    /** For tests: {@link #read(long, Command, Reply)} of a command not resolved yet. */
    void read(long nowNs, byte[][] args, Reply reply) {
        read(nowNs, Commands.of(args), reply);
    }

    public void read(long nowNs, Command command, Reply reply) {
        Spec spec = Commands.spec(command);
        if (spec.descriptor().write()) {
            throw new IllegalArgumentException("'" + spec.descriptor().name() + "' writes: it must be applied");
        }
        Lock lock = enter();
        try {
            tx.begin(Math.floorDiv(nowNs, 1_000_000L));
            tx.select(command.db());
            tx.timestampNs = nowNs;
            tx.eventClasses = eventClasses() & KeyspaceEvents.KEY_MISS;
            tx.refusing = true; // a read writes nothing: one that tries is a bug, and throws
            try {
                run(spec, command, reply);
            } finally {
                tx.refusing = false;
            }
            raiseEvents();
        } finally {
            lock.unlock();
        }
    }

    /** For tests: {@link #check(Command, long)} of a command not resolved yet. */
    String check(byte[][] args, long nowNs) {
        return check(Commands.of(args), nowNs);
    }

    public String check(Command command, long nowNs) {
        Spec spec = Commands.spec(command);
        byte[][] args = command.args();
        String arity = arityError(spec.descriptor(), args);
        if (arity != null || spec.check() == null) {
            return arity;
        }
        try {
            command.parsed(spec.check().parse(args, Math.floorDiv(nowNs, 1_000_000L)));
            return null;
        } catch (CommandError e) {
            return e.getMessage();
        }
    }

    /**
     * Runs the refused write's handler without letting it write, so that its reply is Redis' in the present state
     * (a type error may come before the argument error). The reply is recorded first and passed on only when the
     * handler wrote nothing: a handler that tries to write means its check refused a write that would have
     * succeeded, a bug answered with the check's error and logged.
     */
    /** For tests: {@link #refuse(long, Command, Reply)} of a command not resolved yet. */
    void refuse(long nowNs, byte[][] args, Reply reply) {
        refuse(nowNs, Commands.of(args), reply);
    }

    public void refuse(long nowNs, Command command, Reply reply) {
        Spec spec = Commands.spec(command);
        byte[][] args = command.args();
        Lock lock = enter();
        try {
            tx.begin(Math.floorDiv(nowNs, 1_000_000L));
            tx.select(command.db());
            tx.refusing = true;
            RecordedReply recorded = new RecordedReply(reply.protocol());
            try {
                String arity = arityError(spec.descriptor(), args);
                if (arity != null) {
                    throw new CommandError(arity);
                }
                spec.handler().run(tx, args, recorded);
                recorded.replayTo(reply);
            } catch (CommandError e) {
                reply.error(e.getMessage());
            } catch (Tx.WriteWhileRefusing e) {
                String error = check(command, nowNs);
                System.getLogger("tandem.store").log(System.Logger.Level.ERROR, "''{0}'' was refused before it was "
                        + "sequenced ({1}) but would have written: its check is wrong", spec.descriptor().name(), error);
                reply.error(error == null ? "ERR internal error: the command was refused" : error);
            } finally {
                tx.refusing = false;
            }
        } finally {
            lock.unlock();
        }
    }

    public long checkpoint(Path target) {
        // RocksDB flushes the memtables first (atomically, every column family) and links the files: the copy holds
        // a consistent cut of what was committed, and its meta family says at which applied sequence
        rounds.awaitCommitted();
        Lock lock = enter();
        try (org.rocksdb.Checkpoint cp = org.rocksdb.Checkpoint.create(db)) {
            cp.createCheckpoint(target.toString());
        } catch (RocksDBException e) {
            throw new IllegalStateException("cannot cut a checkpoint of " + directory + " into " + target + ": "
                    + e.getMessage(), e);
        } finally {
            lock.unlock();
        }
        return appliedSequenceOf(target);
    }

    /**
     * Opens the store in {@code directory} read-only, without writing a byte there (no LOG file either: a checkpoint
     * about to be streamed must stay as it was cut), and reads its applied sequence.
     *
     * @throws IllegalStateException naming the directory when it is not a store that opens
     */
    static long appliedSequenceOf(Path directory) {
        RocksDB.loadLibrary();
        List<ColumnFamilyDescriptor> descriptors = new ArrayList<>();
        List<ColumnFamilyHandle> opened = new ArrayList<>();
        try (DBOptions options = new DBOptions(); ColumnFamilyOptions cf = new ColumnFamilyOptions();
                org.rocksdb.Logger silent = new org.rocksdb.Logger(org.rocksdb.InfoLogLevel.HEADER_LEVEL) {
                    protected void log(org.rocksdb.InfoLogLevel level, String message) {
                    }
                }) {
            options.setLogger(silent);
            descriptors.add(new ColumnFamilyDescriptor(RocksDB.DEFAULT_COLUMN_FAMILY, cf));
            for (String name : FAMILIES) {
                descriptors.add(new ColumnFamilyDescriptor(name.getBytes(StandardCharsets.US_ASCII), cf));
            }
            try (RocksDB db = RocksDB.openReadOnly(options, directory.toString(), descriptors, opened)) {
                byte[] m = db.get(opened.get(4), APPLIED);
                return m == null ? 0 : ByteBuffer.wrap(m).getLong();
            } finally {
                opened.forEach(ColumnFamilyHandle::close);
            }
        } catch (RocksDBException e) {
            throw new IllegalStateException("the store in " + directory + " does not open: " + e.getMessage(), e);
        }
    }

    public long appliedSequence() {
        return appliedSequence;
    }

    public long nextDeadlineNs() {
        Lock lock = enter();
        try {
            long ms = Long.MAX_VALUE;
            for (int index = 0; index < Databases.COUNT; index++) {
                tx.select(index);
                if (tx.current.index.size() > 0) {
                    ms = Math.min(ms, tx.nextDeadlineMs());
                }
            }
            tx.select(0);
            return ms > Long.MAX_VALUE / 1_000_000L ? Long.MAX_VALUE : ms * 1_000_000L;
        } finally {
            lock.unlock();
        }
    }

    /**
     * SHA-256 over the stored user keyspace, from one RocksDB snapshot, with no filtering by time (a key past its
     * deadline that no Tick has removed yet is included) and no internal record (not the applied sequence).
     * The bytes hashed are, for each key in unsigned byte order of the key:
     * <pre>
     * [key_len u32 BE][key][type u8]   (the type code alone, without the encoding flags of the stored byte)
     *   type 0 (string): [value_len u32 BE][value]
     *   any other type:  [record_count u32 BE] then per record under the key's prefix in the fields family, in
     *                    unsigned byte order of its name: [name_len u32 BE][name][value_len u32 BE][value]
     *                    (a hash: field and value; a set: member and nothing; a list: position and element; a
     *                    sorted set: both its records per member; a stream: its entries, nodes, groups,
     *                    pending entries and consumers, see {@link Streams}), and for a stream then its metadata:
     *                    [length u64 BE][meta_len u32 BE][meta] ({@link Streams.Meta})
     * [expiry_ms i64 BE]   (absolute, milliseconds since the epoch; -1 without an expiry)
     * </pre>
     * Database 0's keys come first, as above; then, for each other database that holds a key, in index order,
     * {@code [0xFFFFFFFF][index u32 BE]} (no key is that long) and its keys the same way. A node with keys in
     * database 0 alone has the digest it had before there were sixteen.
     */
    public byte[] digest() {
        rounds.awaitCommitted();
        Lock lock = enter();
        Snapshot snapshot = db.getSnapshot();
        try (ReadOptions at = new ReadOptions().setSnapshot(snapshot)) {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            for (int index = 0; index < Databases.COUNT; index++) {
                Database d = databases.get(index);
                try (RocksIterator it = db.newIterator(d.keys, at);
                        RocksIterator fieldIt = db.newIterator(d.fields, at)) {
                    it.seekToFirst();
                    if (index > 0 && it.isValid()) {
                        sha.update(u32(-1));
                        sha.update(u32(index));
                    }
                    digest(sha, it, fieldIt);
                }
            }
            return sha.digest();
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is not available", e);
        } finally {
            db.releaseSnapshot(snapshot);
            lock.unlock();
        }
    }

    /** Hashes the keys from {@code it}'s position on, as {@link #digest()} tells. */
    private static void digest(MessageDigest sha, RocksIterator it, RocksIterator fieldIt) {
        for (; it.isValid(); it.next()) {
            byte[] key = it.key();
            Rec rec = Tx.decode(it.value());
            sha.update(u32(key.length));
            sha.update(key);
            sha.update(rec.type());
            if (rec.hasFields()) {
                List<byte[][]> pairs = new ArrayList<>();
                byte[] prefix = Tx.fieldPrefix(key);
                for (fieldIt.seek(prefix); fieldIt.isValid(); fieldIt.next()) {
                    byte[] k = fieldIt.key();
                    if (!Tx.startsWith(k, prefix)) {
                        break;
                    }
                    pairs.add(new byte[][] {java.util.Arrays.copyOfRange(k, prefix.length, k.length),
                            fieldIt.value()});
                }
                sha.update(u32(pairs.size()));
                for (byte[][] pair : pairs) {
                    sha.update(u32(pair[0].length));
                    sha.update(pair[0]);
                    sha.update(u32(pair[1].length));
                    sha.update(pair[1]);
                }
                if (rec.isStream()) {
                    sha.update(ByteBuffer.allocate(8).putLong(rec.fieldCount()).array());
                    sha.update(u32(rec.value().length));
                    sha.update(rec.value());
                }
            } else {
                sha.update(u32(rec.value().length));
                sha.update(rec.value());
            }
            sha.update(ByteBuffer.allocate(8).putLong(rec.expiryMs()).array());
        }
    }

    private static byte[] u32(int n) {
        return ByteBuffer.allocate(4).putInt(n).array();
    }

    public StoreStatus status() {
        long bytes;
        try (Stream<Path> files = Files.list(directory)) {
            bytes = files.filter(Files::isRegularFile).mapToLong(p -> {
                try {
                    return Files.size(p);
                } catch (IOException e) {
                    return 0; // a file compaction just removed
                }
            }).sum();
        } catch (IOException e) {
            bytes = -1;
        }
        long now = System.currentTimeMillis();
        long keys = 0;
        long expiring = 0;
        long seconds = 0;
        List<StoreStatus.Database> nonEmpty = new ArrayList<>();
        for (int index = 0; index < Databases.COUNT; index++) {
            Database d = databases.get(index);
            long n = d.keyCount;
            if (n > 0) {
                nonEmpty.add(new StoreStatus.Database(index, n, d.expiringCount, d.averageTtlMillis(now)));
            }
            keys += n;
            expiring += d.expiringCount;
            seconds += d.deadlineSeconds;
        }
        long averageTtl = expiring <= 0 ? 0 : Math.max(0, seconds / expiring * 1000 - now);
        return new StoreStatus(directory.toString(), appliedSequence, flushedSequence, keys, expiring, bytes,
                averageTtl, nonEmpty);
    }

    // ---------------------------------------------------------------- flush and close

    /**
     * Flushes every column family (atomically) and waits; then records the applied sequence captured before the
     * flush started as flushed. Safe on any thread, concurrently with apply.
     *
     * @return the flushed sequence
     */
    long flush() {
        rounds.awaitCommitted();
        Lock lock = enter();
        try {
            synchronized (flushLock) {
                long captured = rounds.committed();
                if (captured == flushedSequence) {
                    return captured;
                }
                try {
                    db.flush(flushOptions, handles);
                } catch (RocksDBException e) {
                    throw new IllegalStateException("RocksDB flush failed: " + e.getMessage(), e);
                }
                flushedSequence = captured;
                return captured;
            }
        } finally {
            lock.unlock();
        }
    }

    /** For tests: the apply view (its batch is empty between applies). */
    Tx tx() {
        return tx;
    }

    /** For tests: the database, whose perf context tells what a lookup read from files. */
    RocksDB db() {
        return db;
    }

    /**
     * For tests: flushes, then rewrites every column family into its last level by compaction, as an aged store's
     * files end up (a file moved there whole would keep the filter it had pinned as a flushed file).
     */
    void compactAll() {
        flush();
        try (CompactRangeOptions all = new CompactRangeOptions()
                .setBottommostLevelCompaction(CompactRangeOptions.BottommostLevelCompaction.kForce)) {
            for (ColumnFamilyHandle h : handles) {
                db.compactRange(h, null, null, all);
            }
        } catch (RocksDBException e) {
            throw new IllegalStateException("RocksDB compaction failed: " + e.getMessage(), e);
        }
    }

    long flushedSequence() {
        return flushedSequence;
    }

    /**
     * Flushes what was committed, then releases RocksDB and every RocksObject; an uncommitted round is dropped (the
     * journal replays it). Idempotent.
     */
    @Override
    public void close() {
        rounds.stop();
        Lock lock = life.asWriteLock();
        lock.lock();
        try {
            if (closed) {
                return;
            }
            try {
                // an uncommitted round is dropped: the journal replays it (it may not even be durable there yet)
                db.flush(flushOptions, handles);
                flushedSequence = rounds.committed();
                appliedSequence = rounds.committed();
            } catch (RocksDBException e) {
                System.getLogger("tandem.store").log(System.Logger.Level.ERROR,
                        "flush at close failed, the journal replay will restore the rest: {0}", e.getMessage());
            }
            closed = true;
            scripts.close();
            functionLua.close();
            tx.batch.close();
            rounds.release();
            for (ColumnFamilyHandle h : handles) {
                h.close();
            }
            db.close();
            writeOptions.close();
            readOptions.close();
            flushOptions.close();
            cfOptions.close();
            dbOptions.close();
            bloom.close();
            blockCache.close();
        } finally {
            lock.unlock();
        }
    }

    // ---------------------------------------------------------------- scripts

    /**
     * @return whether {@code command} runs through {@link #capture}: EVAL, EVALSHA, FCALL, an _RO form of them, or a
     *         FUNCTION subcommand that changes the libraries (a library's code runs at its load, bounded there)
     */
    boolean isScript(Command command) {
        String name = command.name();
        return name != null && (name.startsWith("eval") || name.startsWith("fcall")
                || name.equals("function") && FunctionCommands.changes(command.args()));
    }

    /** {@link Keyspace#capture}: runs scripts and commands now, and returns what they wrote, for the journal. */
    List<Keyspace.Effect> capture(long timestampNs, String writeRefusal, Keyspace.Publisher publisher,
            java.util.function.Consumer<Keyspace.Capture> body) {
        Lock lock = enter();
        try {
            tx.begin(Math.floorDiv(timestampNs, 1_000_000L));
            tx.timestampNs = timestampNs;
            tx.eventClasses = eventClasses();
            tx.beginWrites();
            captured = new ArrayList<>();
            captureRefusal = writeRefusal;
            capturePublisher = publisher;
            killed = false;
            try {
                body.accept(this::captureOne);
            } catch (RuntimeException | Error e) {
                tx.dropWrites(); // nothing of it is journaled: nothing of it stays
                tx.events.clear();
                throw e;
            }
            if (killed) {
                tx.dropWrites(); // SCRIPT KILL takes back what the script wrote: nothing is journaled
                tx.events.clear();
                captured.clear();
            } else {
                tx.keepWrites();
                raiseEvents();
            }
            return captured;
        } finally {
            captured = null;
            captureRefusal = null;
            capturePublisher = null;
            lock.unlock();
        }
    }

    /**
     * {@link Keyspace#killScript}, from any thread: {@code SCRIPT KILL} ({@code function} false) stops a script,
     * {@code FUNCTION KILL} a function, each answering Redis's {@code BUSY} for the other.
     */
    String killScript(boolean function) {
        boolean functionRuns = functionLua.runningMillis() >= 0;
        if (!functionRuns && scripts.runningMillis() < 0) {
            return "NOTBUSY No scripts in execution right now.";
        }
        if (function != functionRuns) {
            return function ? BUSY_SCRIPT : BUSY_FUNCTION;
        }
        return (function ? functionLua : scripts).kill() ? null : "NOTBUSY No scripts in execution right now.";
    }

    /** Redis's {@code slowevalerr} and {@code slowscripterr}, without their dash. */
    static final String BUSY_SCRIPT = "BUSY Redis is busy running a script. You can only call SCRIPT KILL or "
            + "SHUTDOWN NOSAVE.";
    static final String BUSY_FUNCTION = "BUSY Redis is busy running a script. You can only call FUNCTION KILL or "
            + "SHUTDOWN NOSAVE.";

    long scriptRunningMillis() {
        return Math.max(scripts.runningMillis(), functionLua.runningMillis());
    }

    /** @return whether what runs now is a function (its BUSY names FUNCTION KILL), not a script */
    boolean functionRunning() {
        return functionLua.runningMillis() >= 0;
    }

    private void captureOne(Command command, Reply reply) {
        String arity = arityError(command.descriptor(), command.args());
        if (arity != null) {
            reply.error(arity);
            return;
        }
        if (command.name().equals("function")) {
            changeFunctions(command, reply);
            return;
        }
        if (isScript(command)) {
            script(command, reply);
            return;
        }
        Spec spec = Commands.spec(command);
        if (spec.descriptor().write() && captureRefusal != null) {
            reply.error(captureRefusal);
            return;
        }
        called(command, spec, reply, true);
    }

    /**
     * A FUNCTION subcommand, on the node that decides writes: a library's code may run for 500 ms at most, and the
     * command is journaled as it came when it succeeded (a failed one changed nothing).
     */
    private void changeFunctions(Command command, Reply reply) {
        if (FunctionCommands.changes(command.args()) && captureRefusal != null) {
            reply.error(captureRefusal);
            return;
        }
        tx.select(command.db());
        tx.loadTimeoutMillis = Functions.LOAD_TIMEOUT_MILLIS;
        try {
            FunctionCommands.function(tx, command.args(), reply);
            if (FunctionCommands.changes(command.args())) {
                captured.add(new Keyspace.Effect(command.db(), command.args()));
            }
        } catch (CommandError e) {
            reply.error(e.getMessage());
        } finally {
            tx.loadTimeoutMillis = 0;
        }
    }

    /** Runs a command for a capture or a script, and keeps it among the effects when it writes. */
    private void called(Command command, Spec spec, Reply reply, boolean journaled) {
        tx.select(command.db());
        run(spec, command, reply);
        if (spec.descriptor().write() && journaled) {
            captured.add(new Keyspace.Effect(command.db(), command.args()));
        }
    }

    /** EVAL, EVALSHA, EVAL_RO, EVALSHA_RO: Redis 7.0's {@code evalGenericCommand}. */
    private void script(Command command, Reply reply) {
        byte[][] a = command.args();
        String name = command.name();
        if (name.startsWith("fcall")) {
            fcall(command, reply);
            return;
        }
        boolean bySha = name.startsWith("evalsha");
        if (bySha && a[1].length != 40) {
            reply.error(LuaScripts.NOSCRIPT); // evalShaCommand: before anything else
            return;
        }
        int numkeys = numkeys(a, "ERR value is not an integer or out of range", reply);
        if (numkeys < 0) {
            return;
        }
        String sha;
        if (bySha) {
            if (!scripts.exists(a[1])) {
                reply.error(LuaScripts.NOSCRIPT);
                return;
            }
            sha = Args.text(a[1]).toLowerCase(java.util.Locale.ROOT);
        } else {
            sha = scripts.load(a[1]);
            if (sha.startsWith("-")) {
                reply.error(sha.substring(1));
                return;
            }
        }
        byte[][] keys = java.util.Arrays.copyOfRange(a, 3, 3 + numkeys);
        byte[][] argv = java.util.Arrays.copyOfRange(a, 3 + numkeys, a.length);
        scriptReadOnly = name.endsWith("_ro") || scripts.noWrites(sha);
        scriptDb = command.db();
        tx.scripting = true;
        try {
            if (!scripts.run(sha, keys, argv, scriptHost, reply)) {
                killed = true;
            }
        } finally {
            tx.scripting = false;
        }
    }

    /**
     * The number of keys of EVAL's and FCALL's kin ({@code a[2]}), checked as Redis checks it.
     *
     * @return it, or -1 when {@code reply} was given the error ({@code notNumber} when it is no integer)
     */
    private static int numkeys(byte[][] a, String notNumber, Reply reply) {
        long n;
        try {
            n = tandem.protocol.command.String2ll.parse(a[2]);
        } catch (NumberFormatException e) {
            reply.error(notNumber);
            return -1;
        }
        if (n > a.length - 3) {
            reply.error("ERR Number of keys can't be greater than number of args");
            return -1;
        }
        if (n < 0) {
            reply.error("ERR Number of keys can't be negative");
            return -1;
        }
        return (int) n;
    }

    /** FCALL and FCALL_RO: Redis 7.0's {@code fcallCommandGeneric}, then {@code scriptPrepareForRun}'s checks. */
    private void fcall(Command command, Reply reply) {
        byte[][] a = command.args();
        Functions.Function f = functions.find(a[1]);
        if (f == null) {
            reply.error("ERR Function not found");
            return;
        }
        int numkeys = numkeys(a, "ERR Bad number of keys provided", reply);
        if (numkeys < 0) {
            return;
        }
        boolean noWrites = (f.flags() & Functions.NO_WRITES) != 0;
        if (!noWrites) {
            if (captureRefusal != null) {
                reply.error(captureRefusal.startsWith("READONLY")
                        ? "READONLY Can not run script with write flag on readonly replica" : captureRefusal);
                return;
            }
            if (command.name().equals("fcall_ro")) {
                reply.error("ERR Can not execute a script with write flag using *_ro command.");
                return;
            }
        }
        byte[][] keys = java.util.Arrays.copyOfRange(a, 3, 3 + numkeys);
        byte[][] argv = java.util.Arrays.copyOfRange(a, 3 + numkeys, a.length);
        scriptReadOnly = noWrites;
        scriptDb = command.db();
        tx.scripting = true;
        try {
            if (!functionLua.call(f.ref(), f.name(), keys, argv, scriptHost, reply)) {
                killed = true;
            }
        } finally {
            tx.scripting = false;
        }
    }

    /** What a script's {@code redis.call} runs: Redis's {@code scriptCall} checks, then the command. */
    private final LuaScripts.Host scriptHost = new LuaScripts.Host() {
        @Override
        public void call(byte[][] args, Reply reply) {
            Command command = Commands.resolve(args);
            if (command == null) {
                calledElsewhere(args, reply);
                return;
            }
            Spec spec = Commands.spec(command);
            CommandDescriptor d = spec.descriptor();
            if (arityError(d, args) != null) {
                reply.error("ERR Wrong number of args calling Redis command from script");
                return;
            }
            // SCRIPT's subcommands are noscript in Redis, and EVAL's kin
            if (d.flags().contains("noscript") || d.group().equals("scripting")) {
                reply.error("ERR This Redis command is not allowed from script");
                return;
            }
            if (d.write()) {
                if (scriptReadOnly) {
                    reply.error("ERR Write commands are not allowed from read-only scripts.");
                    return;
                }
                if (captureRefusal != null) {
                    reply.error(captureRefusal);
                    return;
                }
            }
            command.db(scriptDb);
            called(command, spec, reply, (functionRunning() ? functionLua : scripts).replicating());
        }

        @Override
        public boolean knows(byte[] name) {
            return Commands.resolve(new byte[][] {name}) != null || SCRIPT_SERVER_COMMANDS.contains(
                    Args.text(name).toLowerCase(java.util.Locale.ROOT));
        }
    };

    /** Commands a script may call that are not the keyspace's. */
    private static final java.util.Set<String> SCRIPT_SERVER_COMMANDS = java.util.Set.of("ping", "echo", "time",
            "select", "publish", "spublish");
    /** Commands of the front end that Redis refuses in scripts ({@code noscript}). */
    private static final java.util.Set<String> NOSCRIPT = java.util.Set.of("multi", "exec", "discard", "watch",
            "unwatch", "subscribe", "psubscribe", "ssubscribe", "unsubscribe", "punsubscribe", "sunsubscribe", "auth",
            "hello", "client", "monitor", "sync", "psync", "replconf", "replicaof", "slaveof", "quit", "reset",
            "wait", "failover", "shutdown", "save", "bgsave", "bgrewriteaof", "debug", "migrate", "readonly",
            "readwrite", "function", "fcall", "fcall_ro", "acl", "config", "sentinel");

    /**
     * Redis 7.0's arities of the {@link #NOSCRIPT} commands (of a container, its own: a subcommand's is not
     * looked up), which {@code scriptCall} checks before it refuses the command.
     */
    private static final java.util.Map<String, Integer> NOSCRIPT_ARITY = java.util.Map.ofEntries(
            java.util.Map.entry("multi", 1), java.util.Map.entry("exec", 1), java.util.Map.entry("discard", 1),
            java.util.Map.entry("watch", -2), java.util.Map.entry("unwatch", 1), java.util.Map.entry("subscribe", -2),
            java.util.Map.entry("psubscribe", -2), java.util.Map.entry("ssubscribe", -2),
            java.util.Map.entry("unsubscribe", -1), java.util.Map.entry("punsubscribe", -1),
            java.util.Map.entry("sunsubscribe", -1), java.util.Map.entry("auth", -2), java.util.Map.entry("hello", -1),
            java.util.Map.entry("monitor", 1), java.util.Map.entry("sync", 1), java.util.Map.entry("psync", -3),
            java.util.Map.entry("replconf", -1), java.util.Map.entry("replicaof", 3), java.util.Map.entry("slaveof", 3),
            java.util.Map.entry("quit", -1), java.util.Map.entry("reset", 1), java.util.Map.entry("wait", 3),
            java.util.Map.entry("failover", -1), java.util.Map.entry("shutdown", -1), java.util.Map.entry("save", 1),
            java.util.Map.entry("bgsave", -1), java.util.Map.entry("bgrewriteaof", 1), java.util.Map.entry("debug", -2),
            java.util.Map.entry("migrate", -6), java.util.Map.entry("readonly", 1), java.util.Map.entry("readwrite", 1),
            java.util.Map.entry("fcall", -3), java.util.Map.entry("fcall_ro", -3), java.util.Map.entry("client", -2),
            java.util.Map.entry("config", -2), java.util.Map.entry("function", -2), java.util.Map.entry("acl", -2));

    /** The few commands outside the keyspace's table that a script may call, and Redis's errors for the rest. */
    private void calledElsewhere(byte[][] a, Reply reply) {
        String name = Args.text(a[0]).toLowerCase(java.util.Locale.ROOT);
        String arity = "ERR Wrong number of args calling Redis command from script";
        switch (name) {
            case "ping" -> {
                if (a.length > 2) {
                    // PING's arity (-1) lets any count through to the command, which refuses more than one
                    reply.error("ERR wrong number of arguments for 'ping' command");
                } else if (a.length == 2) {
                    reply.bulk(a[1]);
                } else {
                    reply.simple("PONG");
                }
            }
            case "echo" -> {
                if (a.length != 2) {
                    reply.error(arity);
                } else {
                    reply.bulk(a[1]);
                }
            }
            case "time" -> {
                if (a.length != 1) {
                    reply.error(arity);
                    return;
                }
                // the script's time is its entry's: every call within one script reads the same
                long micros = Math.floorDiv(tx.timestampNs, 1_000L);
                reply.array(2);
                reply.bulk(Args.ascii(Long.toString(Math.floorDiv(micros, 1_000_000L))));
                reply.bulk(Args.ascii(Long.toString(Math.floorMod(micros, 1_000_000L))));
            }
            case "publish", "spublish" -> {
                if (a.length != 3) {
                    reply.error(arity);
                    return;
                }
                Keyspace.Publisher p = capturePublisher;
                reply.integer(p == null ? 0 : p.publish(a[1], a[2], name.equals("spublish")));
            }
            case "select" -> {
                if (a.length != 2) {
                    reply.error(arity);
                    return;
                }
                long index;
                try {
                    index = tandem.protocol.command.String2ll.parse(a[1]);
                } catch (NumberFormatException e) {
                    reply.error("ERR value is not an integer or out of range");
                    return;
                }
                if (index < 0 || index >= Databases.COUNT) {
                    reply.error("ERR DB index is out of range");
                    return;
                }
                scriptDb = (int) index; // the script's own: its caller's database does not change
                reply.simple("OK");
            }
            default -> {
                Integer n = NOSCRIPT_ARITY.get(name);
                if (NOSCRIPT.contains(name) && n != null && (n > 0 ? a.length != n : a.length < -n)) {
                    reply.error(arity); // Redis checks the arity before the noscript flag
                } else {
                    reply.error(NOSCRIPT.contains(name) ? "ERR This Redis command is not allowed from script"
                            : "ERR Unknown Redis command called from script");
                }
            }
        }
    }

    // ---------------------------------------------------------------- apply machinery

    private Lock enter() {
        Lock lock = life.asReadLock();
        lock.lock();
        if (closed) {
            lock.unlock();
            throw new IllegalStateException("the store in " + directory + " is closed");
        }
        return lock;
    }

    private void begin(long sequence, long timestampNs) {
        if (sequence <= appliedSequence) {
            throw new IllegalArgumentException(
                    "sequence " + sequence + " is not after the applied sequence " + appliedSequence);
        }
        tx.begin(Math.floorDiv(timestampNs, 1_000_000L));
        tx.timestampNs = timestampNs;
        tx.eventClasses = eventClasses();
        tx.beginWrites();
    }

    /** Sets where keyspace notifications go from the next apply on. */
    public void events(KeyspaceEvents sink) {
        events = sink;
    }

    private int eventClasses() {
        KeyspaceEvents sink = events;
        return sink == null ? 0 : sink.classes();
    }

    /** Hands the events of the apply that just succeeded to the sink. */
    private void raiseEvents() {
        KeyspaceEvents sink = events;
        if (sink != null && !tx.events.isEmpty()) {
            for (Tx.Event e : tx.events) {
                sink.event(e.type(), e.name(), e.db(), e.key());
            }
        }
        tx.events.clear();
    }

    private static String arityError(CommandDescriptor d, byte[][] args) {
        return (d.arity() > 0 ? args.length != d.arity() : args.length < -d.arity())
                ? "ERR wrong number of arguments for '" + d.name() + "' command" : null;
    }

    private void run(Spec spec, Command command, Reply reply) {
        CommandDescriptor d = spec.descriptor();
        byte[][] args = command.args();
        tx.mutating = d.write();
        String arity = arityError(d, args);
        if (arity != null) {
            reply.error(arity);
            return;
        }
        tx.parsed = command.parsed();
        try {
            spec.handler().run(tx, args, reply);
        } catch (CommandError e) {
            reply.error(e.getMessage());
        } catch (RuntimeException e) {
            if (!tx.refusing) {
                tx.dropWrites(); // this apply's writes go, the round's earlier ones stay
            }
            throw e;
        } finally {
            tx.parsed = null;
        }
    }

    /** One apply succeeded: its effects join the round, which the caller's {@link #commit} writes. */
    private void applied(long sequence) {
        tx.keepWrites(); // folds the databases' counters too
        appliedSequence = sequence;
        raiseEvents();
    }

    /**
     * Hands every apply since the last commit to the writer, which writes them to RocksDB in one batch with the
     * applied sequence and the key counters, WAL off, while the logic thread goes on; other threads see them once
     * written. The logic thread's own later reads of RocksDB wait for the write ({@link Tx}), its reads of the
     * in-memory index do not. Called on the logic thread, once per round.
     *
     * @throws IllegalStateException when an earlier round could not be written: the store then refuses every
     *                               commit until it is reopened (the journal replays what is missing), and reads
     *                               go on over that round, kept in memory
     */
    public void commit() {
        Lock lock = enter();
        try {
            commitRound();
        } finally {
            lock.unlock();
        }
    }

    private void commitRound() {
        long sequence = appliedSequence;
        if (sequence == rounds.handed()) {
            return;
        }
        rounds.awaitWritten();
        try {
            tx.batch.put(meta, APPLIED, meta(sequence));
        } catch (RocksDBException e) {
            throw new IllegalStateException("RocksDB batch put of the applied sequence failed: " + e.getMessage(), e);
        }
        rounds.hand(sequence);
    }
}
