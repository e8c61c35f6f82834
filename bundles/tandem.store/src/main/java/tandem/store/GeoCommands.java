package tandem.store;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import tandem.api.store.Reply;
import tandem.store.Tx.Rec;
import tandem.store.Zsets.Entry;

/**
 * The geo commands, a port of Redis 7.0's {@code geo.c}: positions are members of a sorted set whose score is the
 * position's 52-bit geohash ({@link Geohash}), written by ZADD and read by the sorted set's own records and walks
 * ({@link Zsets}); arguments are checked in Redis's order with its error texts, and replies are Redis's: distances
 * with four decimals ({@code fixedpoint_d2string}), coordinates with up to seventeen ({@code "%.17Lf"}, trimmed).
 *
 * <p>GEORADIUS and GEORADIUSBYMEMBER are writes, as in Redis (their STORE options), so they are journaled even
 * without one; their {@code _RO} forms and GEOSEARCH are reads.
 */
final class GeoCommands {

    private static final int RADIUS_COORDS = 1;
    private static final int RADIUS_MEMBER = 1 << 1;
    private static final int RADIUS_NOSTORE = 1 << 2;
    private static final int GEOSEARCH = 1 << 3;
    private static final int GEOSEARCHSTORE = 1 << 4;

    private static final int SORT_NONE = 0;
    private static final int SORT_ASC = 1;
    private static final int SORT_DESC = 2;

    private static final byte[] ALPHABET = Args.ascii("0123456789bcdefghjkmnpqrstuvwxyz");

    private GeoCommands() {
    }

    /** One member found by a search: its decoded position, its distance from the centre (metres), its score. */
    private record Point(double lon, double lat, double dist, double score, byte[] member) {
    }

    /** A search's arguments, as {@code georadiusGeneric} parses them. */
    private static final class Search {
        final Geohash.Shape shape = new Geohash.Shape();
        byte[] storeKey;
        boolean storeDist;
        boolean withDist;
        boolean withHash;
        boolean withCoords;
        int sort = SORT_NONE;
        boolean any;
        long count;
    }

    /** An option or unit as C's {@code strcasecmp} sees it: the argument up to its first NUL. */
    private static boolean is(byte[] arg, String lowerKeyword) {
        int n = Args.text(arg).length();
        return Args.is(n == arg.length ? arg : Arrays.copyOf(arg, n), lowerKeyword);
    }

    // ---------------------------------------------------------------- argument helpers

    /** {@code extractLongLatOrReply}: {longitude, latitude} from two arguments. */
    private static double[] lonLat(byte[][] a, int at, double[] xy) {
        xy[0] = Doubles.parse(a[at], CommandError.NOT_FLOAT);
        xy[1] = Doubles.parse(a[at + 1], CommandError.NOT_FLOAT);
        if (xy[0] < Geohash.LONG_MIN || xy[0] > Geohash.LONG_MAX || xy[1] < Geohash.LAT_MIN
                || xy[1] > Geohash.LAT_MAX) {
            throw new CommandError("ERR invalid longitude,latitude pair " + fixed6(xy[0]) + "," + fixed6(xy[1]));
        }
        return xy;
    }

    /** {@code extractUnitOrReply}: metres per unit. */
    private static double unit(byte[] u) {
        if (is(u, "m")) {
            return 1;
        } else if (is(u, "km")) {
            return 1000;
        } else if (is(u, "ft")) {
            return 0.3048;
        } else if (is(u, "mi")) {
            return 1609.34;
        }
        throw new CommandError("ERR unsupported unit provided. please use M, KM, FT, MI");
    }

    /** {@code extractDistanceOrReply}: a radius and its unit. */
    private static void distance(byte[][] a, int at, Geohash.Shape shape) {
        double d = Doubles.parse(a[at], "ERR need numeric radius");
        if (d < 0) {
            throw new CommandError("ERR radius cannot be negative");
        }
        shape.radius = d;
        shape.conversion = unit(a[at + 1]);
    }

    /** {@code extractBoxOrReply}: a width, a height and their unit. */
    private static void box(byte[][] a, int at, Geohash.Shape shape) {
        double w = Doubles.parse(a[at], "ERR need numeric width");
        double h = Doubles.parse(a[at + 1], "ERR need numeric height");
        if (h < 0 || w < 0) {
            throw new CommandError("ERR height or width cannot be negative");
        }
        shape.height = h;
        shape.width = w;
        shape.conversion = unit(a[at + 2]);
    }

    /** {@code longLatFromMember}: the position of a member, or Redis's error when it has none. */
    private static void member(Tx tx, byte[] key, byte[] member, double[] xy) {
        Double score = Zsets.score(tx, key, member);
        if (score == null) {
            throw new CommandError("ERR could not decode requested zset member");
        }
        double[] p = Geohash.decodeScore(score);
        xy[0] = p[0];
        xy[1] = p[1];
    }

    // ---------------------------------------------------------------- formatting

    /** C's {@code "%f"}: six decimals of the exact binary value, half to even, the sign of a negative zero kept. */
    static String fixed6(double d) {
        if (Double.isInfinite(d)) {
            return d > 0 ? "inf" : "-inf";
        }
        String s = new BigDecimal(d).setScale(6, RoundingMode.HALF_EVEN).toPlainString();
        boolean negative = d < 0 || d == 0 && 1 / d < 0;
        return negative && !s.startsWith("-") ? "-" + s : s;
    }

    /** {@code fixedpoint_d2string(d, 4)}: {@code llrint(d * 10000)} written with four decimals. */
    static byte[] distanceText(double d) {
        if (d == 0) {
            return Args.ascii("0.0000");
        }
        double scaled = Math.rint(d * 10000.0);
        // llrint of NaN or of what no long holds is x86's "integer indefinite", LLONG_MIN
        long v = Double.isNaN(scaled) || Math.abs(scaled) >= 0x1p63 ? Long.MIN_VALUE : (long) scaled;
        String digits = v < 0 ? Long.toUnsignedString(-v) : Long.toString(v);
        if (digits.length() < 5) {
            digits = "0".repeat(5 - digits.length()) + digits;
        }
        int point = digits.length() - 4;
        return Args.ascii((v < 0 ? "-" : "") + digits.substring(0, point) + "." + digits.substring(point));
    }

    /** {@code addReplyHumanLongDouble}: {@code "%.17Lf"} with its trailing zeros cut. */
    private static byte[] human(double d) {
        return Numbers.formatLongDouble(new BigDecimal(d));
    }

    // ---------------------------------------------------------------- GEOADD

    static void checkGeoadd(byte[][] a, long nowMs) {
        ZsetCommands.checkZadd(zaddArgs(a), nowMs);
    }

    /**
     * GEOADD's arguments made into the ZADD Redis hands them to ({@code geoaddCommand}): its options, then each
     * position's score and its member.
     */
    private static byte[][] zaddArgs(byte[][] a) {
        int longidx = 2;
        boolean xx = false;
        boolean nx = false;
        List<byte[]> options = new ArrayList<>();
        while (longidx < a.length) {
            byte[] opt = a[longidx];
            if (is(opt, "nx")) {
                nx = true;
                options.add(Args.ascii("nx"));
            } else if (is(opt, "xx")) {
                xx = true;
                options.add(Args.ascii("xx"));
            } else if (is(opt, "ch")) {
                options.add(Args.ascii("ch"));
            } else {
                break;
            }
            longidx++;
        }
        if ((a.length - longidx) % 3 != 0 || xx && nx) {
            throw new CommandError(CommandError.SYNTAX);
        }
        int elements = (a.length - longidx) / 3;
        byte[][] z = new byte[longidx + elements * 2][];
        z[0] = Args.ascii("zadd");
        z[1] = a[1];
        for (int i = 2; i < longidx; i++) {
            z[i] = options.get(i - 2);
        }
        double[] xy = new double[2];
        for (int i = 0; i < elements; i++) {
            lonLat(a, longidx + i * 3, xy);
            long bits = Geohash.align52(Geohash.encodeWgs84(xy[0], xy[1], Geohash.STEP_MAX));
            z[longidx + i * 2] = Args.ascii(Long.toString(bits));
            z[longidx + 1 + i * 2] = a[longidx + i * 3 + 2];
        }
        return z;
    }

    /** GEOADD key [NX|XX] [CH] longitude latitude member [...]: ZADD of the members' geohashes. */
    static void geoadd(Tx tx, byte[][] a, Reply r) {
        ZsetCommands.zadd(tx, zaddArgs(a), r);
    }

    // ---------------------------------------------------------------- GEOPOS, GEOHASH, GEODIST

    /** GEOPOS key [member ...]: each member's [longitude, latitude], or a nil array. */
    static void geopos(Tx tx, byte[][] a, Reply r) {
        Rec rec = Zsets.zset(tx, a[1]);
        r.array(a.length - 2);
        for (int j = 2; j < a.length; j++) {
            Double score = rec == null ? null : Zsets.score(tx, a[1], a[j]);
            if (score == null) {
                r.nullArray();
                continue;
            }
            double[] xy = Geohash.decodeScore(score);
            r.array(2);
            r.doubleValue(human(xy[0]));
            r.doubleValue(human(xy[1]));
        }
    }

    /**
     * GEOHASH key [member ...]: each member's standard 11-character geohash (latitude over [-90, 90], not the
     * score's Mercator range: decoded, then encoded again), or nil.
     */
    static void geohash(Tx tx, byte[][] a, Reply r) {
        Rec rec = Zsets.zset(tx, a[1]);
        r.array(a.length - 2);
        for (int j = 2; j < a.length; j++) {
            Double score = rec == null ? null : Zsets.score(tx, a[1], a[j]);
            if (score == null) {
                r.nullBulk();
                continue;
            }
            double[] xy = Geohash.decodeScore(score);
            long bits = Geohash.encode(-180, 180, -90, 90, xy[0], xy[1], Geohash.STEP_MAX).bits();
            byte[] text = new byte[11];
            for (int i = 0; i < 11; i++) {
                // 52 bits make ten characters; the eleventh is taken as zero bits, as Redis does
                int idx = i == 10 ? 0 : (int) ((bits >>> (52 - (i + 1) * 5)) & 0x1f);
                text[i] = ALPHABET[idx];
            }
            r.bulk(text);
        }
    }

    /** GEODIST key member1 member2 [M|KM|FT|MI]: their distance, or nil when either is missing. */
    static void geodist(Tx tx, byte[][] a, Reply r) {
        double toMeter = 1;
        if (a.length == 5) {
            toMeter = unit(a[4]);
        } else if (a.length > 5) {
            throw new CommandError(CommandError.SYNTAX);
        }
        Rec rec = Zsets.zset(tx, a[1]);
        Double s1 = rec == null ? null : Zsets.score(tx, a[1], a[2]);
        Double s2 = s1 == null ? null : Zsets.score(tx, a[1], a[3]);
        if (s1 == null || s2 == null) {
            r.nullBulk();
            return;
        }
        double[] p1 = Geohash.decodeScore(s1);
        double[] p2 = Geohash.decodeScore(s2);
        r.bulk(distanceText(Geohash.distance(p1[0], p1[1], p2[0], p2[1]) / toMeter));
    }

    // ---------------------------------------------------------------- searches

    static void georadius(Tx tx, byte[][] a, Reply r) {
        search(tx, a, 1, RADIUS_COORDS, r);
    }

    static void georadiusbymember(Tx tx, byte[][] a, Reply r) {
        search(tx, a, 1, RADIUS_MEMBER, r);
    }

    static void georadiusRo(Tx tx, byte[][] a, Reply r) {
        search(tx, a, 1, RADIUS_COORDS | RADIUS_NOSTORE, r);
    }

    static void georadiusbymemberRo(Tx tx, byte[][] a, Reply r) {
        search(tx, a, 1, RADIUS_MEMBER | RADIUS_NOSTORE, r);
    }

    static void geosearch(Tx tx, byte[][] a, Reply r) {
        search(tx, a, 1, GEOSEARCH, r);
    }

    static void geosearchstore(Tx tx, byte[][] a, Reply r) {
        search(tx, a, 2, GEOSEARCH | GEOSEARCHSTORE, r);
    }

    /**
     * The arguments of every search, in Redis's order. {@code exists} says whether the source sorted set exists:
     * without it a member is never looked up (nor, for GEORADIUSBYMEMBER, the radius read). The check before
     * sequencing parses as for an absent source, which fails only where any source fails.
     */
    private static Search parse(Tx tx, byte[][] a, int srcKeyIndex, int flags, boolean exists) {
        Search s = new Search();
        Geohash.Shape shape = s.shape;
        byte[] src = a[srcKeyIndex];
        int base;
        if ((flags & RADIUS_COORDS) != 0) {
            base = 6;
            shape.type = Geohash.CIRCULAR;
            lonLat(a, 2, shape.xy);
            distance(a, base - 2, shape);
        } else if ((flags & RADIUS_MEMBER) != 0 && !exists) {
            base = 5; // nothing to search: the options still decide between an empty array and a STORE's 0
        } else if ((flags & RADIUS_MEMBER) != 0) {
            base = 5;
            shape.type = Geohash.CIRCULAR;
            member(tx, src, a[2], shape.xy);
            distance(a, base - 2, shape);
        } else {
            base = 2;
            if ((flags & GEOSEARCHSTORE) != 0) {
                base = 3;
                s.storeKey = a[1];
            }
        }
        boolean search = (flags & GEOSEARCH) != 0;
        boolean storable = (flags & RADIUS_NOSTORE) == 0 && !search;
        boolean fromMember = false;
        boolean fromLoc = false;
        boolean byRadius = false;
        boolean byBox = false;
        int remaining = a.length - base;
        for (int i = 0; i < remaining; i++) {
            byte[] arg = a[base + i];
            if (is(arg, "withdist")) {
                s.withDist = true;
            } else if (is(arg, "withhash")) {
                s.withHash = true;
            } else if (is(arg, "withcoord")) {
                s.withCoords = true;
            } else if (is(arg, "any")) {
                s.any = true;
            } else if (is(arg, "asc")) {
                s.sort = SORT_ASC;
            } else if (is(arg, "desc")) {
                s.sort = SORT_DESC;
            } else if (is(arg, "count") && i + 1 < remaining) {
                s.count = Numbers.parseLong(a[base + i + 1]);
                if (s.count <= 0) {
                    throw new CommandError("ERR COUNT must be > 0");
                }
                i++;
            } else if (is(arg, "store") && i + 1 < remaining && storable) {
                s.storeKey = a[base + i + 1];
                s.storeDist = false;
                i++;
            } else if (is(arg, "storedist") && i + 1 < remaining && storable) {
                s.storeKey = a[base + i + 1];
                s.storeDist = true;
                i++;
            } else if (is(arg, "storedist") && search && (flags & GEOSEARCHSTORE) != 0) {
                s.storeDist = true;
            } else if (is(arg, "frommember") && i + 1 < remaining && search && !fromLoc) {
                if (exists) {
                    member(tx, src, a[base + i + 1], shape.xy);
                }
                fromMember = true;
                i++;
            } else if (is(arg, "fromlonlat") && i + 2 < remaining && search && !fromMember) {
                lonLat(a, base + i + 1, shape.xy);
                fromLoc = true;
                i += 2;
            } else if (is(arg, "byradius") && i + 2 < remaining && search && !byBox) {
                distance(a, base + i + 1, shape);
                shape.type = Geohash.CIRCULAR;
                byRadius = true;
                i += 2;
            } else if (is(arg, "bybox") && i + 3 < remaining && search && !byRadius) {
                box(a, base + i + 1, shape);
                shape.type = Geohash.RECTANGLE;
                byBox = true;
                i += 3;
            } else {
                throw new CommandError(CommandError.SYNTAX);
            }
        }
        if (s.storeKey != null && (s.withDist || s.withHash || s.withCoords)) {
            throw new CommandError("ERR " + ((flags & GEOSEARCHSTORE) != 0 ? "GEOSEARCHSTORE"
                    : "STORE option in GEORADIUS") + " is not compatible with WITHDIST, WITHHASH and WITHCOORD options");
        }
        if (search && !(fromMember || fromLoc)) {
            throw new CommandError("ERR exactly one of FROMMEMBER or FROMLONLAT can be specified for "
                    + Args.text(a[0]));
        }
        if (search && !(byRadius || byBox)) {
            throw new CommandError("ERR exactly one of BYRADIUS and BYBOX can be specified for " + Args.text(a[0]));
        }
        if (s.any && s.count == 0) {
            throw new CommandError("ERR the ANY argument requires COUNT argument");
        }
        return s;
    }

    /** {@code georadiusGeneric}. */
    private static void search(Tx tx, byte[][] a, int srcKeyIndex, int flags, Reply r) {
        byte[] src = a[srcKeyIndex];
        Rec zobj = Zsets.zset(tx, src);
        if (zobj == null) {
            tx.readMiss(src);
        }
        Search s = parse(tx, a, srcKeyIndex, flags, zobj != null);
        if (zobj == null) {
            if (s.storeKey != null) {
                Zsets.store(tx, s.storeKey, List.of(), null); // deletes the target, as an empty result does
                r.integer(0);
            } else {
                r.array(0);
            }
            return;
        }
        // the nearest COUNT need a sort; ANY takes the first found
        if (s.count != 0 && s.sort == SORT_NONE && !s.any) {
            s.sort = SORT_ASC;
        }
        Geohash.Radius area = Geohash.areasByShape(s.shape);
        List<Point> found = new ArrayList<>();
        membersOfAllNeighbours(tx, src, area, s.shape, found, s.any ? s.count : 0);
        if (found.isEmpty() && s.storeKey == null) {
            r.array(0);
            return;
        }
        Point[] points = found.toArray(new Point[0]);
        int returned = s.count == 0 || points.length < s.count ? points.length : (int) s.count;
        if (s.sort != SORT_NONE) {
            boolean desc = s.sort == SORT_DESC;
            if (returned == points.length) {
                mergeSort(points, 0, points.length, new Point[points.length], desc);
            } else {
                partialSort(points, 0, points.length, desc, 0, returned - 1);
            }
        }
        double conversion = s.shape.conversion;
        if (s.storeKey == null) {
            int options = (s.withDist ? 1 : 0) + (s.withCoords ? 1 : 0) + (s.withHash ? 1 : 0);
            r.array(returned);
            for (int i = 0; i < returned; i++) {
                Point p = points[i];
                if (options > 0) {
                    r.array(options + 1);
                }
                r.bulk(p.member());
                if (s.withDist) {
                    r.bulk(distanceText(p.dist() / conversion));
                }
                if (s.withHash) {
                    r.integer((long) p.score());
                }
                if (s.withCoords) {
                    r.array(2);
                    r.doubleValue(human(p.lon()));
                    r.doubleValue(human(p.lat()));
                }
            }
            return;
        }
        List<Entry> entries = new ArrayList<>(returned);
        Set<ByteBuffer> members = new HashSet<>();
        for (int i = 0; i < returned; i++) {
            Point p = points[i];
            // the cells read are distinct, so is every member; Redis asserts as much
            if (members.add(ByteBuffer.wrap(p.member()))) {
                entries.add(new Entry(p.member(), s.storeDist ? p.dist() / conversion : p.score()));
            }
        }
        Zsets.store(tx, s.storeKey, entries, (flags & GEOSEARCH) != 0 ? "geosearchstore" : "georadiusstore");
        r.integer(returned);
    }

    /**
     * {@code membersOfAllNeighbors}: the centre cell, then north, south, east, west, north-east, north-west,
     * south-east, south-west, skipping a cell left out and one the same as the last read (large radii: the grid
     * wraps); stops once {@code limit} (ANY) members are found.
     */
    private static void membersOfAllNeighbours(Tx tx, byte[] key, Geohash.Radius area, Geohash.Shape shape,
            List<Point> found, long limit) {
        Geohash.Bits[] cells = new Geohash.Bits[9];
        cells[0] = area.hash();
        System.arraycopy(area.neighbours(), 0, cells, 1, 8);
        int lastProcessed = 0; // as in C, 0 stands for "none", so the centre is never compared with
        for (int i = 0; i < cells.length; i++) {
            if (cells[i].isZero()) {
                continue;
            }
            if (lastProcessed != 0 && cells[i].equals(cells[lastProcessed])) {
                continue;
            }
            if (!found.isEmpty() && limit != 0 && found.size() >= limit) {
                break;
            }
            membersOfCell(tx, key, cells[i], shape, found, limit);
            lastProcessed = i;
        }
    }

    /** {@code membersOfGeoHashBox}: the members with a score in the cell's range that the shape holds. */
    private static void membersOfCell(Tx tx, byte[] key, Geohash.Bits cell, Geohash.Shape shape, List<Point> found,
            long limit) {
        double min = Geohash.align52(cell);
        double max = Geohash.align52(new Geohash.Bits(cell.bits() + 1, cell.step()));
        double[] distance = new double[1];
        try (Zsets.Walk w = new Zsets.Walk(tx, key, false).from(min)) {
            for (Entry e = w.next(); e != null; e = w.next()) {
                if (!(e.score() < max)) {
                    break;
                }
                double[] xy = Geohash.decodeScore(e.score());
                if (Geohash.within(shape, xy[0], xy[1], distance)) {
                    found.add(new Point(xy[0], xy[1], distance[0], e.score(), e.member()));
                }
                if (!found.isEmpty() && limit != 0 && found.size() >= limit) {
                    break;
                }
            }
        }
    }

    // ---------------------------------------------------------------- sorting by distance

    /** {@code sort_gp_asc} (or its negation): 1, 0 or -1, and -1 whenever a NaN is compared, as in C. */
    private static int compare(Point x, Point y, boolean desc) {
        int c = x.dist() > y.dist() ? 1 : x.dist() == y.dist() ? 0 : -1;
        return desc ? -c : c;
    }

    /**
     * glibc's {@code qsort} for a whole result: a top-down merge sort (halves of {@code n/2} and the rest, ties
     * from the left), stable, so that members at the same distance stay in the order they were found.
     */
    private static void mergeSort(Point[] b, int lo, int n, Point[] tmp, boolean desc) {
        if (n <= 1) {
            return;
        }
        int n1 = n / 2;
        int n2 = n - n1;
        int b1 = lo;
        int b2 = lo + n1;
        mergeSort(b, b1, n1, tmp, desc);
        mergeSort(b, b2, n2, tmp, desc);
        int t = 0;
        while (n1 > 0 && n2 > 0) {
            if (compare(b[b1], b[b2], desc) <= 0) {
                tmp[t++] = b[b1++];
                n1--;
            } else {
                tmp[t++] = b[b2++];
                n2--;
            }
        }
        if (n1 > 0) {
            System.arraycopy(b, b1, tmp, t, n1);
        }
        System.arraycopy(tmp, 0, b, lo, n - n2);
    }

    /**
     * Redis's {@code pqsort} (Bentley and McIlroy's quicksort, recursing only into the parts that overlap the
     * wanted ranks {@code left..right}): a COUNT below the number found sorts only the first COUNT, and which
     * members tie at the cut, and in which order, is this algorithm's.
     */
    private static void partialSort(Point[] a, int lo, int n, boolean desc, int left, int right) {
        while (true) {
            if (n < 7) {
                for (int pm = lo + 1; pm < lo + n; pm++) {
                    for (int pl = pm; pl > lo && compare(a[pl - 1], a[pl], desc) > 0; pl--) {
                        swap(a, pl, pl - 1);
                    }
                }
                return;
            }
            int pm = lo + n / 2;
            if (n > 7) {
                int pl = lo;
                int pn = lo + n - 1;
                if (n > 40) {
                    int d = n / 8;
                    pl = median(a, pl, pl + d, pl + 2 * d, desc);
                    pm = median(a, pm - d, pm, pm + d, desc);
                    pn = median(a, pn - 2 * d, pn - d, pn, desc);
                }
                pm = median(a, pl, pm, pn, desc);
            }
            swap(a, lo, pm);
            int pa = lo + 1;
            int pb = pa;
            int pc = lo + n - 1;
            int pd = pc;
            while (true) {
                int c;
                while (pb <= pc && (c = compare(a[pb], a[lo], desc)) <= 0) {
                    if (c == 0) {
                        swap(a, pa, pb);
                        pa++;
                    }
                    pb++;
                }
                while (pb <= pc && (c = compare(a[pc], a[lo], desc)) >= 0) {
                    if (c == 0) {
                        swap(a, pc, pd);
                        pd--;
                    }
                    pc--;
                }
                if (pb > pc) {
                    break;
                }
                swap(a, pb, pc);
                pb++;
                pc--;
            }
            int pn = lo + n;
            int r = Math.min(pa - lo, pb - pa);
            swapRuns(a, lo, pb - r, r);
            r = Math.min(pd - pc, pn - pd - 1);
            swapRuns(a, pb, pn - r, r);
            if ((r = pb - pa) > 1 && !(right < lo || left >= lo + r)) {
                partialSort(a, lo, r, desc, left, right);
            }
            if ((r = pd - pc) > 1) {
                lo = pn - r;
                n = r;
                if (!(right < lo || left >= lo + n)) {
                    continue; // the right part, iterated rather than recursed as in C
                }
            }
            return;
        }
    }

    private static int median(Point[] a, int x, int y, int z, boolean desc) {
        return compare(a[x], a[y], desc) < 0
                ? (compare(a[y], a[z], desc) < 0 ? y : (compare(a[x], a[z], desc) < 0 ? z : x))
                : (compare(a[y], a[z], desc) > 0 ? y : (compare(a[x], a[z], desc) < 0 ? x : z));
    }

    private static void swap(Point[] a, int i, int j) {
        Point t = a[i];
        a[i] = a[j];
        a[j] = t;
    }

    private static void swapRuns(Point[] a, int i, int j, int n) {
        for (int k = 0; k < n; k++) {
            swap(a, i + k, j + k);
        }
    }
}
