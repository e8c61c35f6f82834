package tandem.store;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.TreeMap;

import tandem.api.store.Reply;
import tandem.store.Tx.Rec;
import tandem.store.Zsets.Entry;

/**
 * Union, intersection and difference of sorted sets (and of sets, whose members score 1): ZUNION, ZINTER, ZDIFF,
 * their STORE forms and ZINTERCARD, a port of {@code zunionInterDiffGenericCommand} with Redis 7.0's options
 * (WEIGHTS, AGGREGATE, WITHSCORES, LIMIT), replies and error texts. Every source is read whole; the result is
 * sorted by score, then member.
 */
final class ZsetAlgebra {

    private enum Op { UNION, INTER, DIFF }

    private enum Aggregate { SUM, MIN, MAX }

    private ZsetAlgebra() {
    }

    /** A source of a set operation: a sorted set, a set (every score 1) or nothing; with its weight. */
    private record Source(byte[] key, Rec rec, double weight) {

        long size() {
            return rec == null ? 0 : rec.fieldCount();
        }

        Double score(Tx tx, byte[] member) {
            if (rec == null) {
                return null;
            }
            if (rec.isSet()) {
                return Sets.isMember(tx, key, member) ? 1.0 : null;
            }
            return Zsets.score(tx, key, member);
        }

        List<Entry> entries(Tx tx) {
            if (rec == null) {
                return List.of();
            }
            if (rec.isSet()) {
                List<Entry> out = new ArrayList<>();
                for (byte[] m : Sets.members(tx, key)) {
                    out.add(new Entry(m, 1.0));
                }
                return out;
            }
            return Zsets.all(tx, key);
        }
    }

    /** The parsed arguments of the set operations. */
    private record SetOp(List<Source> sources, Aggregate aggregate, boolean withScores, long limit) {
    }

    // ---------------------------------------------------------------- commands

    static void checkZunionstore(byte[][] a, long nowMs) {
        parse(null, a, 2, Op.UNION, true, false, "zunionstore");
    }

    static void checkZinterstore(byte[][] a, long nowMs) {
        parse(null, a, 2, Op.INTER, true, false, "zinterstore");
    }

    static void checkZdiffstore(byte[][] a, long nowMs) {
        parse(null, a, 2, Op.DIFF, true, false, "zdiffstore");
    }

    static void zunion(Tx tx, byte[][] a, Reply r) {
        reply(tx, a, Op.UNION, "zunion", r);
    }

    static void zinter(Tx tx, byte[][] a, Reply r) {
        reply(tx, a, Op.INTER, "zinter", r);
    }

    static void zdiff(Tx tx, byte[][] a, Reply r) {
        reply(tx, a, Op.DIFF, "zdiff", r);
    }

    static void zunionstore(Tx tx, byte[][] a, Reply r) {
        store(tx, a, Op.UNION, "zunionstore", r);
    }

    static void zinterstore(Tx tx, byte[][] a, Reply r) {
        store(tx, a, Op.INTER, "zinterstore", r);
    }

    static void zdiffstore(Tx tx, byte[][] a, Reply r) {
        store(tx, a, Op.DIFF, "zdiffstore", r);
    }

    static void zintercard(Tx tx, byte[][] a, Reply r) {
        SetOp o = parse(tx, a, 1, Op.INTER, false, true, "zintercard");
        r.integer(compute(tx, o, Op.INTER, o.limit()).size());
    }

    private static void reply(Tx tx, byte[][] a, Op op, String name, Reply r) {
        SetOp o = parse(tx, a, 1, op, false, false, name);
        ZsetCommands.reply(r, compute(tx, o, op, 0), o.withScores());
    }

    private static void store(Tx tx, byte[][] a, Op op, String name, Reply r) {
        SetOp o = parse(tx, a, 2, op, true, false, name);
        List<Entry> result = compute(tx, o, op, 0);
        Zsets.store(tx, a[1], result, name);
        r.integer(result.size());
    }

    // ---------------------------------------------------------------- parsing

    /** A port of {@code zunionInterDiffGenericCommand}'s parsing; sources are looked up (WRONGTYPE) first. */
    private static SetOp parse(Tx tx, byte[][] a, int numkeysAt, Op op, boolean store, boolean cardinality,
            String fullName) {
        long setnum = Numbers.parseLong(a[numkeysAt]);
        if (setnum < 1) {
            throw new CommandError("ERR at least 1 input key is needed for '" + fullName + "' command");
        }
        if (setnum > a.length - (numkeysAt + 1)) {
            throw new CommandError(CommandError.SYNTAX);
        }
        List<Source> sources = new ArrayList<>();
        int j = numkeysAt + 1;
        for (int i = 0; i < setnum; i++, j++) {
            Rec rec = tx == null ? null : tx.meta(a[j]);
            if (rec == null && tx != null) {
                tx.readMiss(a[j]);
            }
            if (rec != null && !rec.isZset() && !rec.isSet()) {
                throw new CommandError(CommandError.WRONGTYPE);
            }
            sources.add(new Source(a[j], rec, 1.0));
        }
        Aggregate aggregate = Aggregate.SUM;
        boolean withScores = false;
        long limit = 0;
        int remaining = a.length - j;
        while (remaining > 0) {
            if (op != Op.DIFF && !cardinality && remaining >= setnum + 1 && Args.is(a[j], "weights")) {
                j++;
                remaining--;
                for (int i = 0; i < setnum; i++, j++, remaining--) {
                    Source s = sources.get(i);
                    sources.set(i, new Source(s.key(), s.rec(), Doubles.parse(a[j],
                            "ERR weight value is not a float")));
                }
            } else if (op != Op.DIFF && !cardinality && remaining >= 2 && Args.is(a[j], "aggregate")) {
                j++;
                remaining--;
                if (Args.is(a[j], "sum")) {
                    aggregate = Aggregate.SUM;
                } else if (Args.is(a[j], "min")) {
                    aggregate = Aggregate.MIN;
                } else if (Args.is(a[j], "max")) {
                    aggregate = Aggregate.MAX;
                } else {
                    throw new CommandError(CommandError.SYNTAX);
                }
                j++;
                remaining--;
            } else if (remaining >= 1 && !store && !cardinality && Args.is(a[j], "withscores")) {
                j++;
                remaining--;
                withScores = true;
            } else if (cardinality && remaining >= 2 && Args.is(a[j], "limit")) {
                j++;
                remaining--;
                limit = Numbers.positive(a[j], "ERR LIMIT can't be negative");
                j++;
                remaining--;
            } else {
                throw new CommandError(CommandError.SYNTAX);
            }
        }
        return new SetOp(sources, aggregate, withScores, limit);
    }

    // ---------------------------------------------------------------- computing

    private static double aggregate(Aggregate how, double target, double value) {
        return switch (how) {
            case SUM -> {
                double sum = target + value;
                yield Double.isNaN(sum) ? 0.0 : sum;
            }
            case MIN -> value < target ? value : target;
            case MAX -> value > target ? value : target;
        };
    }

    /** The result of a set operation, sorted by score then member, stopping at {@code limit} (0: all). */
    private static List<Entry> compute(Tx tx, SetOp o, Op op, long limit) {
        List<Source> sources = new ArrayList<>(o.sources());
        List<Entry> out = new ArrayList<>();
        switch (op) {
            case INTER -> {
                sources.sort(Comparator.comparingLong(Source::size));
                if (sources.get(0).size() == 0) {
                    return out;
                }
                for (Entry e : sources.get(0).entries(tx)) {
                    double score = weighted(sources.get(0), e.score());
                    boolean all = true;
                    for (int i = 1; i < sources.size() && all; i++) {
                        Double s = sources.get(i).score(tx, e.member());
                        if (s == null) {
                            all = false;
                        } else {
                            score = aggregate(o.aggregate(), score, weighted(sources.get(i), s));
                        }
                    }
                    if (all) {
                        out.add(new Entry(e.member(), score));
                        if (limit > 0 && out.size() >= limit) {
                            break;
                        }
                    }
                }
            }
            case UNION -> {
                sources.sort(Comparator.comparingLong(Source::size));
                TreeMap<byte[], Double> acc = new TreeMap<>(Arrays::compareUnsigned);
                for (Source s : sources) {
                    for (Entry e : s.entries(tx)) {
                        double score = weighted(s, e.score());
                        acc.merge(e.member(), score, (x, y) -> aggregate(o.aggregate(), x, y));
                    }
                }
                acc.forEach((m, s) -> out.add(new Entry(m, s)));
            }
            case DIFF -> {
                Source first = sources.get(0);
                for (Entry e : first.entries(tx)) {
                    boolean keep = true;
                    for (int i = 1; i < sources.size() && keep; i++) {
                        keep = sources.get(i).score(tx, e.member()) == null;
                    }
                    if (keep) {
                        out.add(e);
                    }
                }
            }
        }
        out.sort(Comparator.comparingDouble(Entry::score).thenComparing(Entry::member, Arrays::compareUnsigned));
        return out;
    }

    private static double weighted(Source s, double score) {
        double v = s.weight() * score;
        return Double.isNaN(v) ? 0.0 : v;
    }
}
