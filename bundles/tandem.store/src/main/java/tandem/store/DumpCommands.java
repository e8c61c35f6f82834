package tandem.store;

import java.util.List;

import tandem.api.store.KeyspaceEvents;
import tandem.api.store.Reply;
import tandem.store.Tx.Rec;

/**
 * DUMP and RESTORE, with Redis 7.0's payload ({@link DumpPayload}), checks, order of errors and events. RESTORE's
 * relative TTL counts from the journaled entry's time, so every replica and every replay gives the key the same
 * deadline; IDLETIME and FREQ are checked and then have nothing to set, Tandem keeping neither access times nor
 * frequencies.
 */
final class DumpCommands {

    private DumpCommands() {
    }

    /** DUMP key. */
    static void dump(Tx tx, byte[][] a, Reply r) {
        Rec rec = tx.lookup(a[1]);
        if (rec == null) {
            tx.readMiss(a[1]);
            r.nullBulk();
            return;
        }
        r.bulk(DumpPayload.dump(tx, a[1], rec));
    }

    /** RESTORE's options and its parsed payload. */
    record Restore(boolean replace, boolean absolute, long ttl, DumpPayload.Value value) {
    }

    /** The checks that do not depend on the keyspace, in Redis's order; the key's presence is checked between. */
    static Restore checkRestore(byte[][] a, long nowMs) {
        Restore options = options(a);
        long ttl = ttl(a);
        return new Restore(options.replace(), options.absolute(), ttl, DumpPayload.restore(a[3]));
    }

    private static Restore options(byte[][] a) {
        boolean replace = false;
        boolean absolute = false;
        boolean idle = false;
        boolean freq = false;
        for (int j = 4; j < a.length; j++) {
            boolean more = j + 1 < a.length;
            if (Args.is(a[j], "replace")) {
                replace = true;
            } else if (Args.is(a[j], "absttl")) {
                absolute = true;
            } else if (Args.is(a[j], "idletime") && more && !freq) {
                if (Numbers.parseLong(a[++j]) < 0) {
                    throw new CommandError("ERR Invalid IDLETIME value, must be >= 0");
                }
                idle = true;
            } else if (Args.is(a[j], "freq") && more && !idle) {
                long f = Numbers.parseLong(a[++j]);
                if (f < 0 || f > 255) {
                    throw new CommandError("ERR Invalid FREQ value, must be >= 0 and <= 255");
                }
                freq = true;
            } else {
                throw new CommandError(CommandError.SYNTAX);
            }
        }
        return new Restore(replace, absolute, 0, null);
    }

    private static long ttl(byte[][] a) {
        long ttl = Numbers.parseLong(a[2]);
        if (ttl < 0) {
            throw new CommandError("ERR Invalid TTL value, must be >= 0");
        }
        return ttl;
    }

    /** RESTORE key ttl serialized-value [REPLACE] [ABSTTL] [IDLETIME seconds] [FREQ frequency]. */
    static void restore(Tx tx, byte[][] a, Reply r) {
        Restore o = options(a);
        Rec old = tx.lookup(a[1]);
        if (!o.replace() && old != null) {
            throw new CommandError("BUSYKEY Target key name already exists.");
        }
        long ttl = ttl(a);
        DumpPayload.Value value = tx.parsed instanceof Restore parsed ? parsed.value() : DumpPayload.restore(a[3]);
        boolean deleted = false;
        if (old != null) {
            tx.delete(a[1], old);
            deleted = true;
        }
        long deadline = Tx.NO_EXPIRY;
        if (ttl != 0) {
            long at = o.absolute() ? ttl : ttl + tx.nowMs;
            if (at <= tx.nowMs || !o.absolute() && at < ttl) { // at or past now, or beyond a long: never alive
                if (deleted) {
                    tx.event(KeyspaceEvents.GENERIC, "del", a[1]);
                }
                r.simple("OK");
                return;
            }
            deadline = at;
        }
        write(tx, a[1], value, deadline);
        tx.event(KeyspaceEvents.GENERIC, "restore", a[1]);
        r.simple("OK");
    }

    /** Writes {@code value} at the absent {@code key}, as Redis's load leaves it. */
    private static void write(Tx tx, byte[] key, DumpPayload.Value v, long deadline) {
        switch (v.type()) {
            case Tx.STRING -> tx.putString(key, null, v.string(), deadline);
            case Tx.STREAM -> Streams.restore(tx, key, v.stream(), deadline);
            case Tx.LIST -> {
                List<byte[]> elements = v.elements();
                for (int i = 0; i < elements.size(); i++) {
                    tx.putRecord(Tx.fieldPrefix(key), Lists.name(i), elements.get(i));
                }
                tx.putCollection(key, null, Tx.LIST, elements.size(), 0, deadline, v.flags());
            }
            case Tx.SET -> {
                v.elements().forEach(m -> Sets.add(tx, key, m));
                tx.putCollection(key, null, Tx.SET, v.elements().size(), deadline, v.flags());
            }
            case Tx.HASH -> {
                List<byte[]> flat = v.elements();
                for (int i = 0; i < flat.size(); i += 2) {
                    tx.putField(key, flat.get(i), flat.get(i + 1));
                }
                tx.putCollection(key, null, Tx.HASH, flat.size() / 2, deadline, v.flags());
            }
            default -> {
                boolean listpack = v.flags() == 0;
                for (Zsets.Entry e : v.entries()) {
                    Zsets.put(tx, key, e.member(), e.score(), null, listpack);
                }
                tx.putCollection(key, null, Tx.ZSET, v.entries().size(), deadline, v.flags());
            }
        }
    }
}
