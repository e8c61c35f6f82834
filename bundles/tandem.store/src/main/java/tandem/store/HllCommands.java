package tandem.store;

import tandem.api.store.KeyspaceEvents;
import tandem.api.store.Reply;
import tandem.store.Tx.Rec;

/**
 * PFADD, PFCOUNT and PFMERGE over {@link Hll} values, with Redis 7.0's replies, errors and keyspace events.
 *
 * <p>Departure: PFCOUNT of one key is a read here, never journaled, so it does not write the cardinality it
 * computes back into the value's header as Redis does (Redis propagates that write). Every node's value is then the
 * same, but a GET or DUMP after a PFCOUNT differs from Redis's in the eight cache bytes (offsets 8 to 15): Tandem's
 * still say "stale". A cache that is valid (set by PFCOUNT in Redis, then moved over with SET or RESTORE) is read as
 * Redis reads it. The counts themselves are Redis's.
 */
final class HllCommands {

    static final String INVALID = "INVALIDOBJ Corrupted HLL object detected";
    static final String NOT_HLL = "WRONGTYPE Key is not a valid HyperLogLog string value.";

    private HllCommands() {
    }

    /** {@code isHLLObjectOrReply}: the value of a live key as an HLL to work on, or the WRONGTYPE errors. */
    private static Hll open(Rec rec) {
        if (!rec.isString()) {
            throw new CommandError(CommandError.WRONGTYPE);
        }
        byte[] v = rec.value();
        if (!Hll.isValid(v)) {
            throw new CommandError(NOT_HLL);
        }
        return Hll.of(v);
    }

    /**
     * Writes an HLL back as Redis leaves it: a "raw" string (Redis unshares it to work in place), with its deadline.
     */
    private static void store(Tx tx, byte[] key, Rec old, Hll hll) {
        tx.putString(key, old, hll.bytes(), old == null ? Tx.NO_EXPIRY : old.expiryMs(), Tx.ENC_RAW);
    }

    /** PFADD key [element ...]: 1 when a register grew or the key was created, else 0. */
    static void pfadd(Tx tx, byte[][] a, Reply r) {
        Rec rec = tx.lookup(a[1]);
        Hll hll;
        int updated = 0;
        if (rec == null) {
            hll = Hll.create();
            updated++;
        } else {
            hll = open(rec);
        }
        for (int j = 2; j < a.length; j++) {
            int result = hll.add(a[j]);
            if (result == 1) {
                updated++;
            } else if (result < 0) {
                // Redis has changed the value in place for the elements before this one, and keeps it so
                store(tx, a[1], rec, hll);
                throw new CommandError(INVALID);
            }
        }
        if (updated > 0) {
            hll.invalidateCache();
        }
        if (updated > 0 || !rec.has(Tx.ENC_RAW)) {
            store(tx, a[1], rec, hll);
        }
        if (updated > 0) {
            tx.event(KeyspaceEvents.STRING, "pfadd", a[1]);
        }
        r.integer(updated > 0 ? 1 : 0);
    }

    /**
     * PFCOUNT key [key ...]: one key's cached or computed cardinality; several keys' union, counted on registers
     * merged one per byte, nothing written.
     */
    static void pfcount(Tx tx, byte[][] a, Reply r) {
        if (a.length > 2) {
            byte[] max = new byte[Hll.REGISTERS];
            for (int j = 1; j < a.length; j++) {
                Rec rec = tx.lookup(a[j]);
                if (rec == null) {
                    continue; // an empty HLL
                }
                if (!open(rec).mergeInto(max)) {
                    throw new CommandError(INVALID);
                }
            }
            r.integer(Hll.countRegisters(max));
            return;
        }
        Rec rec = tx.lookup(a[1]);
        if (rec == null) {
            r.integer(0);
            return;
        }
        Hll hll = open(rec);
        if (hll.cacheValid()) {
            r.integer(hll.cachedCardinality());
            return;
        }
        Long card = hll.count();
        if (card == null) {
            throw new CommandError(INVALID);
        }
        r.integer(card);
    }

    /** PFMERGE destkey [sourcekey ...]: the registers' maxima over every key named, the destination included. */
    static void pfmerge(Tx tx, byte[][] a, Reply r) {
        byte[] max = new byte[Hll.REGISTERS];
        boolean dense = false;
        for (int j = 1; j < a.length; j++) {
            Rec rec = tx.lookup(a[j]);
            if (rec == null) {
                tx.readMiss(a[j]);
                continue;
            }
            Hll hll = open(rec);
            dense |= hll.isDense(); // a dense input makes the target dense at once
            if (!hll.mergeInto(max)) {
                throw new CommandError(INVALID);
            }
        }
        Rec old = tx.lookup(a[1]);
        Hll target = old == null ? Hll.create() : Hll.of(old.value());
        if (dense && !target.toDense()) {
            throw new CommandError(INVALID); // unreachable: the target was merged, so checked, above
        }
        for (int j = 0; j < Hll.REGISTERS; j++) {
            if (max[j] != 0) {
                target.raise(j, max[j]);
            }
        }
        target.invalidateCache();
        store(tx, a[1], old, target);
        tx.event(KeyspaceEvents.STRING, "pfadd", a[1]); // Redis raises pfadd for a merge too
        r.simple("OK");
    }
}
