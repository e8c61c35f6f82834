package tandem.store;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import tandem.api.store.KeyspaceEvents;
import tandem.api.store.Reply;
import tandem.store.Tx.Rec;

/**
 * SORT and SORT_RO over lists, sets and sorted sets, a port of Redis 7.0's {@code sortCommandGeneric}: BY and GET
 * patterns ({@code *} replaced by the element, {@code ->field} reading a hash), LIMIT, ASC/DESC, ALPHA (byte order:
 * Redis compares with {@code strcoll}, which is byte order in the C locale Tandem documents) and STORE (a list).
 * Like Redis, SORT makes a listpack sorted set a skiplist for good; SORT_RO is a read in Tandem and cannot, so it
 * leaves the encoding as it is (a documented departure).
 */
final class SortCommands {

    private SortCommands() {
    }

    /** One element to sort: the element, its numeric key, its ALPHA key by pattern. */
    private static final class Item {
        final byte[] element;
        double score;
        byte[] by;

        Item(byte[] element) {
            this.element = element;
        }
    }

    static void checkSort(byte[][] a, long nowMs) {
        options(a, false);
    }

    /** The parsed options. */
    private record Options(boolean desc, boolean alpha, long start, long count, byte[] by, boolean dontSort,
            byte[] store, List<byte[]> gets) {
    }

    private static Options options(byte[][] a, boolean readonly) {
        boolean desc = false;
        boolean alpha = false;
        long start = 0;
        long count = -1;
        byte[] by = null;
        boolean dontSort = false;
        byte[] store = null;
        List<byte[]> gets = new ArrayList<>();
        for (int j = 2; j < a.length; j++) {
            int left = a.length - j - 1;
            if (Args.is(a[j], "asc")) {
                desc = false;
            } else if (Args.is(a[j], "desc")) {
                desc = true;
            } else if (Args.is(a[j], "alpha")) {
                alpha = true;
            } else if (Args.is(a[j], "limit") && left >= 2) {
                start = Numbers.parseLong(a[j + 1]);
                count = Numbers.parseLong(a[j + 2]);
                j += 2;
            } else if (!readonly && Args.is(a[j], "store") && left >= 1) {
                store = a[++j];
            } else if (Args.is(a[j], "by") && left >= 1) {
                by = a[++j];
                dontSort = indexOf(by, (byte) '*', 0) < 0;
            } else if (Args.is(a[j], "get") && left >= 1) {
                gets.add(a[++j]);
            } else {
                throw new CommandError(CommandError.SYNTAX);
            }
        }
        return new Options(desc, alpha, start, count, by, dontSort, store, gets);
    }

    static void sort(Tx tx, byte[][] a, Reply r) {
        sortGeneric(tx, a, false, r);
    }

    static void sortRo(Tx tx, byte[][] a, Reply r) {
        sortGeneric(tx, a, true, r);
    }

    private static void sortGeneric(Tx tx, byte[][] a, boolean readonly, Reply r) {
        Options o = options(a, readonly);
        Rec rec = tx.meta(a[1]);
        if (rec == null) {
            tx.readMiss(a[1]);
        }
        if (rec != null && !rec.isList() && !rec.isSet() && !rec.isZset()) {
            throw new CommandError(CommandError.WRONGTYPE);
        }
        boolean dontSort = o.dontSort();
        boolean alpha = o.alpha();
        byte[] by = o.by();
        if (dontSort && rec != null && rec.isSet() && o.store() != null) {
            dontSort = false; // a set has no order of its own: a stored result is sorted, ALPHA
            alpha = true;
            by = null;
        }
        if (!readonly && rec != null && rec.isZset() && !rec.has(Tx.ENC_RAW)) {
            // sortCommandGeneric converts a listpack to a skiplist, for good
            tx.putCollection(a[1], rec, Tx.ZSET, rec.fieldCount(), rec.expiryMs(), rec.flags() | Tx.ENC_RAW);
        }
        List<byte[]> elements = rec == null ? List.of()
                : rec.isList() ? Lists.all(tx, a[1], rec)
                : rec.isSet() ? Sets.members(tx, a[1])
                : zsetMembers(tx, a[1]);
        int n = elements.size();
        long start = o.start() < 0 ? 0 : o.start();
        // a count beyond the elements means all of them: start + count - 1 would overflow for counts near 2^63
        long end = o.count() < 0 || o.count() > n ? n - 1 : start + o.count() - 1;
        if (start >= n) {
            start = n - 1;
            end = n - 2;
        }
        if (end >= n) {
            end = n - 1;
        }
        List<Item> items = new ArrayList<>(n);
        elements.forEach(e -> items.add(new Item(e)));
        boolean desc = o.desc();
        if (dontSort && rec != null && (rec.isList() || rec.isZset()) && desc) {
            java.util.Collections.reverse(items); // their own order, from the other end
        }
        boolean conversionError = false;
        if (!dontSort) {
            for (Item it : items) {
                byte[] byValue;
                if (by != null) {
                    byValue = lookup(tx, by, it.element);
                    if (byValue == null) {
                        continue;
                    }
                } else {
                    byValue = it.element;
                }
                if (alpha) {
                    if (by != null) {
                        it.by = byValue;
                    }
                } else {
                    it.score = Doubles.sortScore(byValue);
                    if (Double.isNaN(it.score)) {
                        conversionError = true;
                    }
                }
            }
            boolean byPattern = by != null;
            boolean alphaSort = alpha;
            java.util.Comparator<Item> cmp = (x, y) -> {
                int c;
                if (!alphaSort) {
                    c = x.score > y.score ? 1 : x.score < y.score ? -1 : Arrays.compareUnsigned(x.element, y.element);
                } else if (byPattern) {
                    c = x.by == null || y.by == null ? (x.by == y.by ? 0 : x.by == null ? -1 : 1)
                            : Arrays.compareUnsigned(x.by, y.by);
                } else {
                    c = Arrays.compareUnsigned(x.element, y.element);
                }
                return desc ? -c : c;
            };
            items.sort(cmp);
        }
        if (conversionError) {
            throw new CommandError("ERR One or more scores can't be converted into double");
        }
        List<Item> out = end >= start ? items.subList((int) start, (int) end + 1) : List.of();
        if (o.store() == null) {
            r.array(o.gets().isEmpty() ? out.size() : out.size() * o.gets().size());
            for (Item it : out) {
                if (o.gets().isEmpty()) {
                    r.bulk(it.element);
                }
                for (byte[] get : o.gets()) {
                    Replies.bulkOrNil(r, lookup(tx, get, it.element));
                }
            }
            return;
        }
        List<byte[]> stored = new ArrayList<>();
        for (Item it : out) {
            if (o.gets().isEmpty()) {
                stored.add(it.element);
            }
            for (byte[] get : o.gets()) {
                byte[] v = lookup(tx, get, it.element);
                stored.add(v == null ? new byte[0] : v);
            }
        }
        Rec old = tx.meta(o.store());
        if (old != null) {
            tx.delete(o.store(), old);
        }
        if (!stored.isEmpty()) {
            Lists.push(tx, o.store(), null, false, stored);
            if (old != null) {
                tx.unraise(KeyspaceEvents.NEW, o.store()); // Redis overwrites the key in place
            }
            tx.event(KeyspaceEvents.LIST, "sortstore", o.store());
        } else if (old != null) {
            tx.event(KeyspaceEvents.GENERIC, "del", o.store());
        }
        r.integer(stored.size());
    }

    private static List<byte[]> zsetMembers(Tx tx, byte[] key) {
        List<byte[]> out = new ArrayList<>();
        for (Zsets.Entry e : Zsets.all(tx, key)) {
            out.add(e.member());
        }
        return out;
    }

    /**
     * {@code lookupKeyByPattern}: {@code #} is the element itself; otherwise the first {@code *} is replaced by the
     * element, and the key read as a string, or with {@code ->field} after the star as a hash's field; null when
     * there is no star, no such key or field, or the key holds another type.
     */
    static byte[] lookup(Tx tx, byte[] pattern, byte[] element) {
        int end = indexOf(pattern, (byte) 0, 0);
        int len = end < 0 ? pattern.length : end; // C stops at a NUL for '#', the star and the arrow
        if (len == 1 && pattern[0] == '#') {
            return element;
        }
        int star = indexOf(pattern, (byte) '*', 0);
        if (star < 0 || star >= len) {
            return null;
        }
        int arrow = -1;
        for (int i = star + 1; i + 1 < len; i++) {
            if (pattern[i] == '-' && pattern[i + 1] == '>') {
                arrow = i;
                break;
            }
        }
        byte[] field = null;
        if (arrow >= 0 && arrow + 2 < len) {
            field = Arrays.copyOfRange(pattern, arrow + 2, pattern.length);
        }
        int postfixEnd = field == null ? pattern.length : arrow;
        byte[] key = new byte[star + element.length + (postfixEnd - star - 1)];
        System.arraycopy(pattern, 0, key, 0, star);
        System.arraycopy(element, 0, key, star, element.length);
        System.arraycopy(pattern, star + 1, key, star + element.length, postfixEnd - star - 1);
        Rec rec = tx.lookup(key);
        if (rec == null) {
            tx.readMiss(key);
            return null;
        }
        if (field != null) {
            return rec.isHash() ? tx.field(key, field) : null;
        }
        return rec.isString() ? rec.value() : null;
    }

    private static int indexOf(byte[] b, byte x, int from) {
        for (int i = from; i < b.length; i++) {
            if (b[i] == x) {
                return i;
            }
        }
        return -1;
    }
}
