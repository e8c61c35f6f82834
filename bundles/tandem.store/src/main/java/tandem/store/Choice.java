package tandem.store;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;

import org.rocksdb.RocksIterator;

import tandem.api.store.Reply;

/**
 * The random choices of SPOP, SRANDMEMBER, ZRANDMEMBER and HRANDFIELD, decided so that every node makes the same one: the
 * generator is seeded from the entry's timestamp and the command's bytes, which the journal and the FRPL stream
 * carry to every replica of both protocols unchanged (a psync replica journals under its own sequences but with the
 * primary's timestamps). Choosing again is not journaled: applying the entry is the choice.
 *
 * <p>A choice of one element from a large collection seeks to a random position between its first and last element
 * names and takes the element found there, in a few reads whatever the size, so it favours an element that follows
 * a wide gap; a choice of several reads the names once and picks uniformly. Neither is Redis' distribution, which
 * clients cannot rely on either.
 */
final class Choice {

    /**
     * The most elements a negative count may ask for: Redis 7.0 answers any number (and so streams without end for
     * a count near -2^63); Tandem builds a reply in memory, so it refuses more (a documented departure).
     */
    static final long MAX_REPEATED = 1_000_000;

    /** Up to this many elements, even one element is chosen uniformly from all names. */
    private static final long SMALL = 1024;

    private final SplittableRandom random;

    private Choice(long seed) {
        this.random = new SplittableRandom(seed);
    }

    /** SRANDMEMBER's and ZRANDMEMBER's count: {@code getRangeLongFromObjectOrReply(-LONG_MAX, LONG_MAX)}. */
    static long count(byte[] arg) {
        long count = Numbers.parseLong(arg);
        if (count == Long.MIN_VALUE) {
            throw new CommandError("ERR value is out of range, value must between -9223372036854775807 and "
                    + "9223372036854775807");
        }
        return count;
    }

    /**
     * ZRANDMEMBER's and HRANDFIELD's {@code key [count [WITHSCORES|WITHVALUES]]}, checked in Redis' order.
     *
     * @param count 0 without one
     * @param with  whether {@code withWord} was given
     */
    record Draw(long count, boolean with) {

        static Draw of(byte[][] a, String withWord) {
            if (a.length < 3) {
                return new Draw(0, false);
            }
            long count = Choice.count(a[2]); // qualified: the record's own count() hides it
            if (a.length > 4 || a.length == 4 && !Args.is(a[3], withWord)) {
                throw new CommandError(CommandError.SYNTAX);
            }
            if (a.length == 4 && (count < -Long.MAX_VALUE / 2 || count > Long.MAX_VALUE / 2)) {
                throw new CommandError("ERR value is out of range"); // the pairs would overflow the reply's length
            }
            checkRepeated(count);
            return new Draw(count, a.length == 4);
        }
    }

    /** Refuses a negative count asking for more than {@link #MAX_REPEATED} elements. */
    static void checkRepeated(long count) {
        if (count < -MAX_REPEATED) {
            throw new CommandError("ERR value is out of range, a negative count must be at least -" + MAX_REPEATED);
        }
    }

    /** What SRANDMEMBER, ZRANDMEMBER and HRANDFIELD answer for a missing key: an empty array with a count, else nil. */
    static void nothing(Reply r, boolean counted) {
        if (counted) {
            r.array(0);
        } else {
            r.nullBulk();
        }
    }

    static Choice of(Tx tx, byte[][] args) {
        long seed = tx.timestampNs * 0x9E3779B97F4A7C15L;
        for (byte[] arg : args) {
            seed = seed * 31 + Arrays.hashCode(arg);
        }
        return new Choice(seed);
    }

    /**
     * One element name of the {@code count} under {@code prefix}, a space of the collection at {@code key}. What its
     * seeks find empty is left in the key's {@link Memo}: SPOP then deletes the element found, and the next draw
     * that lands before it seeks past that run of deletions instead of stepping over each.
     */
    byte[] one(Tx tx, byte[] key, byte[] prefix, long count) {
        if (count <= SMALL) {
            return tx.names(prefix).get(random.nextInt((int) count));
        }
        Memo memo = tx.memoOrNew(key);
        try (RocksIterator it = tx.fieldIterator()) {
            it.seek(memo.from(prefix, prefix));
            byte[] firstKey = it.key();
            memo.none(prefix, prefix, firstKey);
            byte[] first = Arrays.copyOfRange(firstKey, prefix.length, firstKey.length);
            byte[] end = next(prefix);
            it.seekForPrev(memo.backFrom(prefix, end));
            if (it.isValid() && !Tx.startsWith(it.key(), prefix)) {
                it.prev(); // the bound itself is a key: a collection's record with an empty name
            }
            byte[] lastKey = it.key();
            memo.none(prefix, Memo.successor(lastKey), Memo.successor(end));
            byte[] last = Arrays.copyOfRange(lastKey, prefix.length, lastKey.length);
            int common = Arrays.mismatch(first, last);
            byte[] target = Arrays.copyOf(first, Math.max(common, 0) + 8);
            for (int i = Math.max(common, 0); i < target.length; i++) {
                target[i] = (byte) random.nextInt(256);
            }
            if (Arrays.compareUnsigned(target, first) <= 0 || Arrays.compareUnsigned(target, last) > 0) {
                // the seek would find the first, or nothing (then the first is taken): without stepping over the
                // deletions before the first or after the last, which earlier pops left
                return first;
            }
            byte[] at = Tx.concat(prefix, target);
            it.seek(memo.from(prefix, at));
            if (!it.isValid() || !Tx.startsWith(it.key(), prefix)) {
                return first;
            }
            byte[] found = it.key();
            memo.none(prefix, at, found); // SPOP takes it next: then the deletions from the target on are one stretch
            return Arrays.copyOfRange(found, prefix.length, found.length);
        }
    }

    /**
     * SRANDMEMBER's and ZRANDMEMBER's draw of {@code n} element names of the {@code count} under {@code prefix}:
     * distinct for {@code n >= 0} ({@link #distinct}), else {@code -n} with repetition ({@link #repeated}).
     */
    List<byte[]> some(Tx tx, byte[] prefix, long count, long n) {
        return n >= 0 ? distinct(tx, prefix, count, n) : repeated(tx, prefix, count, -n);
    }

    /** {@code min(n, count)} distinct element names, in byte order. */
    List<byte[]> distinct(Tx tx, byte[] prefix, long count, long n) {
        List<byte[]> all = tx.names(prefix);
        if (n >= count) {
            return all;
        }
        // Floyd's algorithm: n distinct positions in [0, count) with n draws
        Set<Integer> picked = new HashSet<>();
        for (long j = count - n; j < count; j++) {
            int t = random.nextInt((int) j + 1);
            picked.add(picked.contains(t) ? (int) j : t);
        }
        List<byte[]> out = new ArrayList<>(picked.size());
        for (int i = 0; i < all.size(); i++) {
            if (picked.contains(i)) {
                out.add(all.get(i));
            }
        }
        return out;
    }

    /** {@code n} element names drawn with repetition, in the order drawn. */
    List<byte[]> repeated(Tx tx, byte[] prefix, long count, long n) {
        List<byte[]> all = tx.names(prefix);
        List<byte[]> out = new ArrayList<>((int) Math.min(n, 1 << 16));
        for (long i = 0; i < n; i++) {
            out.add(all.get(random.nextInt(all.size())));
        }
        return out;
    }

    /** The smallest byte string greater than every one starting with {@code prefix}. */
    private static byte[] next(byte[] prefix) {
        byte[] b = prefix.clone();
        for (int i = b.length - 1; i >= 0; i--) {
            if (++b[i] != 0) {
                return b;
            }
        }
        throw new IllegalArgumentException("no byte string follows a prefix of 0xff bytes");
    }
}
