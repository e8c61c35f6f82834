package tandem.store;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.TreeSet;

import tandem.api.store.KeyspaceEvents;
import tandem.api.store.Reply;
import tandem.store.Tx.Rec;

/**
 * The set commands, with Redis 7.0's argument checks, replies and error texts, over the records {@link Sets} keeps.
 *
 * <p>Random choices (SPOP, SRANDMEMBER) are drawn from {@link Choice#of}: the same on every replica.
 */
final class SetCommands {

    private SetCommands() {
    }

    // ---------------------------------------------------------------- commands

    static void sadd(Tx tx, byte[][] a, Reply r) {
        Rec old = Sets.set(tx, a[1]);
        long count = old == null ? 0 : old.fieldCount();
        long added = 0;
        for (int i = 2; i < a.length; i++) {
            if (!Sets.isMember(tx, a[1], a[i])) {
                Sets.add(tx, a[1], a[i]);
                added++;
            }
        }
        List<byte[]> given = Arrays.asList(a).subList(2, a.length);
        tx.putElements(a[1], old, Tx.SET, count + added, 0, Sets.encoding(old == null ? 0 : old.flags(), count + added,
                given));
        if (added > 0) {
            tx.event(KeyspaceEvents.SET, "sadd", a[1]);
        }
        r.integer(added);
    }

    static void srem(Tx tx, byte[][] a, Reply r) {
        Rec old = Sets.set(tx, a[1]);
        if (old == null) {
            r.integer(0);
            return;
        }
        long removed = 0;
        for (int i = 2; i < a.length; i++) {
            if (Sets.isMember(tx, a[1], a[i])) {
                tx.deleteField(a[1], a[i]);
                removed++;
            }
        }
        if (removed > 0) {
            tx.putElements(a[1], old, Tx.SET, old.fieldCount() - removed, 0, old.flags());
            tx.eventThenDelIfGone(KeyspaceEvents.SET, "srem", a[1]);
        }
        r.integer(removed);
    }

    static void scard(Tx tx, byte[][] a, Reply r) {
        Rec rec = Sets.set(tx, a[1]);
        r.integer(rec == null ? 0 : rec.fieldCount());
    }

    static void sismember(Tx tx, byte[][] a, Reply r) {
        Rec rec = Sets.set(tx, a[1]);
        r.integer(rec != null && Sets.isMember(tx, a[1], a[2]) ? 1 : 0);
    }

    static void smismember(Tx tx, byte[][] a, Reply r) {
        Rec rec = Sets.set(tx, a[1]);
        r.array(a.length - 2);
        for (int i = 2; i < a.length; i++) {
            r.integer(rec != null && Sets.isMember(tx, a[1], a[i]) ? 1 : 0);
        }
    }

    static void smembers(Tx tx, byte[][] a, Reply r) {
        Rec rec = Sets.set(tx, a[1]);
        if (rec == null) {
            r.set(0);
        } else {
            List<byte[]> members = Sets.members(tx, a[1]);
            Replies.set(r, Sets.encodingName(rec).equals("intset") ? Sets.intsetOrder(members) : members);
        }
    }

    static void smove(Tx tx, byte[][] a, Reply r) {
        Rec src = tx.meta(a[1]);
        if (src == null) {
            r.integer(0);
            return;
        }
        Rec dst = tx.meta(a[2]);
        if (!src.isSet() || dst != null && !dst.isSet()) {
            throw new CommandError(CommandError.WRONGTYPE);
        }
        byte[] member = a[3];
        if (Arrays.equals(a[1], a[2])) {
            r.integer(Sets.isMember(tx, a[1], member) ? 1 : 0);
            return;
        }
        if (!Sets.isMember(tx, a[1], member)) {
            r.integer(0);
            return;
        }
        tx.deleteField(a[1], member);
        tx.putElements(a[1], src, Tx.SET, src.fieldCount() - 1, 0, src.flags());
        tx.eventThenDelIfGone(KeyspaceEvents.SET, "srem", a[1]);
        if (dst == null || !Sets.isMember(tx, a[2], member)) {
            long count = (dst == null ? 0 : dst.fieldCount()) + 1;
            Sets.add(tx, a[2], member);
            tx.putElements(a[2], dst, Tx.SET, count, 0, Sets.encoding(dst == null ? 0 : dst.flags(), count,
                    List.of(member)));
            tx.event(KeyspaceEvents.SET, "sadd", a[2]);
        }
        r.integer(1);
    }

    /** The sets named by {@code a[from..to)}: null for a missing key; WRONGTYPE when any holds another type. */
    private static Rec[] sets(Tx tx, byte[][] a, int from, int to) {
        Rec[] sets = new Rec[to - from];
        for (int i = from; i < to; i++) {
            sets[i - from] = Sets.set(tx, a[i]);
            if (sets[i - from] == null) {
                tx.readMiss(a[i]);
            }
        }
        return sets;
    }

    /** The intersection, in byte order, stopping at {@code limit} members (0: no limit). */
    private static List<byte[]> inter(Tx tx, byte[][] a, int from, int to, long limit) {
        Rec[] sets = sets(tx, a, from, to);
        int smallest = 0;
        for (int i = 0; i < sets.length; i++) {
            if (sets[i] == null) {
                return List.of();
            }
            if (sets[i].fieldCount() < sets[smallest].fieldCount()) {
                smallest = i;
            }
        }
        List<byte[]> out = new ArrayList<>();
        for (byte[] m : Sets.members(tx, a[from + smallest])) {
            boolean all = true;
            for (int i = from; i < to && all; i++) {
                all = i == from + smallest || Sets.isMember(tx, a[i], m);
            }
            if (all) {
                out.add(m);
                if (limit > 0 && out.size() >= limit) {
                    break;
                }
            }
        }
        return out;
    }

    private static List<byte[]> union(Tx tx, byte[][] a, int from, int to) {
        Rec[] sets = sets(tx, a, from, to);
        TreeSet<byte[]> out = new TreeSet<>(Arrays::compareUnsigned);
        for (int i = 0; i < sets.length; i++) {
            if (sets[i] != null) {
                out.addAll(Sets.members(tx, a[from + i]));
            }
        }
        return new ArrayList<>(out);
    }

    private static List<byte[]> diff(Tx tx, byte[][] a, int from, int to) {
        Rec[] sets = sets(tx, a, from, to);
        if (sets[0] == null) {
            return List.of();
        }
        List<byte[]> out = new ArrayList<>();
        for (byte[] m : Sets.members(tx, a[from])) {
            boolean keep = true;
            for (int i = 1; i < sets.length && keep; i++) {
                keep = sets[i] == null || !Sets.isMember(tx, a[from + i], m);
            }
            if (keep) {
                out.add(m);
            }
        }
        return out;
    }

    static void sinter(Tx tx, byte[][] a, Reply r) {
        Replies.set(r, inter(tx, a, 1, a.length, 0));
    }

    static void sunion(Tx tx, byte[][] a, Reply r) {
        Replies.set(r, union(tx, a, 1, a.length));
    }

    static void sdiff(Tx tx, byte[][] a, Reply r) {
        Replies.set(r, diff(tx, a, 1, a.length));
    }

    static void sinterstore(Tx tx, byte[][] a, Reply r) {
        List<byte[]> result = inter(tx, a, 2, a.length, 0);
        Sets.store(tx, a[1], result, "sinterstore");
        r.integer(result.size());
    }

    static void sunionstore(Tx tx, byte[][] a, Reply r) {
        List<byte[]> result = union(tx, a, 2, a.length);
        Sets.store(tx, a[1], result, "sunionstore");
        r.integer(result.size());
    }

    static void sdiffstore(Tx tx, byte[][] a, Reply r) {
        List<byte[]> result = diff(tx, a, 2, a.length);
        Sets.store(tx, a[1], result, "sdiffstore");
        r.integer(result.size());
    }

    /** SINTERCARD numkeys key [key ...] [LIMIT limit]. */
    static void sintercard(Tx tx, byte[][] a, Reply r) {
        int numkeys = numkeys(a, 1, "ERR numkeys should be greater than 0");
        long limit = 0;
        for (int j = 2 + numkeys; j < a.length; j++) {
            if (Args.is(a[j], "limit") && j + 1 < a.length) {
                limit = Numbers.parseLong(a[++j], "ERR LIMIT can't be negative");
                if (limit < 0) {
                    throw new CommandError("ERR LIMIT can't be negative");
                }
            } else {
                throw new CommandError(CommandError.SYNTAX);
            }
        }
        r.integer(inter(tx, a, 2, 2 + numkeys, limit).size());
    }

    /**
     * A {@code numkeys} argument at {@code a[at]}: at least 1, and no more than the arguments after it
     * ({@code getRangeLongFromObjectOrReply} with {@code error} for both a bad number and one below 1).
     */
    static int numkeys(byte[][] a, int at, String error) {
        long n = Numbers.parseLong(a[at], error);
        if (n < 1) {
            throw new CommandError(error);
        }
        if (n > a.length - at - 1) {
            throw new CommandError("ERR Number of keys can't be greater than number of args");
        }
        return (int) n;
    }

    // ---------------------------------------------------------------- random members

    static void checkSpop(byte[][] a, long nowMs) {
        Numbers.optionalCount(a, -1);
    }

    /** SPOP key [count]: removes and returns members drawn from {@link Choice#of}. */
    static void spop(Tx tx, byte[][] a, Reply r) {
        long count = Numbers.optionalCount(a, -1);
        Rec rec = Sets.set(tx, a[1]);
        if (rec == null || count == 0) {
            if (count < 0) {
                r.nullBulk();
            } else {
                r.set(0);
            }
            return;
        }
        Choice random = Choice.of(tx, a);
        List<byte[]> chosen = count < 0 ? List.of(random.one(tx, a[1], Tx.fieldPrefix(a[1]), rec.fieldCount()))
                : random.distinct(tx, Tx.fieldPrefix(a[1]), rec.fieldCount(), count);
        for (byte[] m : chosen) {
            tx.deleteField(a[1], m);
        }
        tx.putElements(a[1], rec, Tx.SET, rec.fieldCount() - chosen.size(), 0, rec.flags());
        tx.eventThenDelIfGone(KeyspaceEvents.SET, "spop", a[1]);
        if (count < 0) {
            r.bulk(chosen.get(0));
        } else {
            Replies.set(r, chosen);
        }
    }

    /** SRANDMEMBER key [count]: a negative count may repeat members, a positive one does not. */
    static void srandmember(Tx tx, byte[][] a, Reply r) {
        if (a.length > 3) {
            throw new CommandError(CommandError.SYNTAX);
        }
        long count = 0;
        if (a.length == 3) {
            count = Choice.count(a[2]);
            Choice.checkRepeated(count);
        }
        Rec rec = Sets.set(tx, a[1]);
        if (rec == null) {
            Choice.nothing(r, a.length == 3);
            return;
        }
        Choice random = Choice.of(tx, a);
        byte[] prefix = Tx.fieldPrefix(a[1]);
        if (a.length == 2) {
            r.bulk(random.one(tx, a[1], prefix, rec.fieldCount()));
        } else {
            Replies.bulks(r, random.some(tx, prefix, rec.fieldCount(), count));
        }
    }

    // ---------------------------------------------------------------- SSCAN

    /** SSCAN: an intset comes whole with cursor 0, as in Redis; a hashtable is iterated COUNT members at a time. */
    static void sscan(Tx tx, byte[][] a, Reply r) {
        long cursor = Args.cursor(a[2]);
        Rec rec = Sets.set(tx, a[1]);
        if (rec != null && Sets.encodingName(rec).equals("intset")) {
            // an intset comes whole, in its order (ascending integers), as Redis sends it
            KeyCommands.ScanOptions o = KeyCommands.scanOptions(a, 3, false);
            List<byte[]> out = new ArrayList<>();
            for (byte[] m : Sets.intsetOrder(Sets.members(tx, a[1]))) {
                if (o.matches(m)) {
                    out.add(m);
                }
            }
            r.array(2);
            r.bulk(Args.ascii("0"));
            Replies.bulks(r, out);
            return;
        }
        KeyCommands.scanElements(tx, a, cursor, rec, Tx.fieldPrefix(a[1]), false, null, r);
    }
}
