package tandem.store;

/**
 * Redis 7.0's geohash ({@code geohash.c}, {@code geohash_helper.c}): how GEOADD turns a position into a sorted-set
 * score, and which score ranges a search reads.
 *
 * <h2>The score</h2>
 * Latitude is mapped from [-85.05112878, 85.05112878] (the Web Mercator limits) and longitude from [-180, 180] onto
 * [0, 2^26) each, truncated; the two 26-bit integers are interleaved, latitude on the even bits and longitude on the
 * odd ones, into a 52-bit integer, which is the score (a double holds it exactly):
 * <pre>
 * bit   51   50   49   48  ...   1    0
 *      lon25 lat25 lon24 lat24 ... lon0 lat0
 * </pre>
 * A prefix of {@code 2*step} bits is a cell of a grid of {@code 2^step} by {@code 2^step}; every position in the
 * cell has a score in {@code [prefix << (52 - 2*step), (prefix + 1) << (52 - 2*step))}. A position is read back as
 * the centre of its step-26 cell, so a few tenths of a metre from where it was given.
 *
 * <h2>A search</h2>
 * The step is chosen from the radius (or the box's half diagonal) so that a cell is at least as wide as the search
 * ({@link #estimateSteps}); the cell of the centre and its eight neighbours are read, each as one score range, less
 * the neighbours the search's bounding box does not reach ({@link #areasByShape}); each member found is kept when
 * its haversine distance (on a sphere of radius {@value #EARTH_RADIUS_IN_METERS} m) is within the shape.
 *
 * <p>Arithmetic is C's, operation for operation, in doubles. Sines, cosines and arcsines are correctly rounded
 * ({@link CrMath}), as glibc's are for all but about one argument in a thousand, and the same on every node: a
 * distance may still differ from Redis's in its last bit now and then, which a stored distance (STOREDIST) shows and
 * which could move a member lying within a rounding error of the edge of a search.
 */
final class Geohash {

    static final int STEP_MAX = 26;
    static final double LAT_MIN = -85.05112878;
    static final double LAT_MAX = 85.05112878;
    static final double LONG_MIN = -180;
    static final double LONG_MAX = 180;
    static final double EARTH_RADIUS_IN_METERS = 6372797.560856;
    private static final double MERCATOR_MAX = 20037726.37;
    /** C's {@code M_PI / 180.0}, folded as the compiler folds it. */
    private static final double D_R = Math.PI / 180.0;

    static final int CIRCULAR = 1;
    static final int RECTANGLE = 2;

    private Geohash() {
    }

    /** A cell: its {@code 2*step} interleaved bits. All zero is "no cell" ({@code GZERO}). */
    record Bits(long bits, int step) {
        static final Bits ZERO = new Bits(0, 0);

        boolean isZero() {
            return bits == 0 && step == 0;
        }
    }

    /** A cell's extent. */
    record Area(Bits hash, double lonMin, double lonMax, double latMin, double latMax) {
    }

    /** What a search covers: a circle of {@code radius} or a box, in units of {@code conversion} metres. */
    static final class Shape {
        int type;
        /** Longitude, latitude of the centre. */
        final double[] xy = new double[2];
        double conversion;
        double radius;
        double width;
        double height;
        /** Min longitude, min latitude, max longitude, max latitude ({@link #boundingBox}). */
        final double[] bounds = new double[4];
    }

    /**
     * The centre cell and its neighbours, north, south, east, west, north-east, north-west, south-east, south-west,
     * as {@code membersOfAllNeighbors} reads them; one left out is {@link Bits#ZERO}.
     */
    record Radius(Bits hash, Bits[] neighbours, Area area) {
    }

    static double degRad(double ang) {
        return ang * D_R;
    }

    static double radDeg(double ang) {
        return ang / D_R;
    }

    // ---------------------------------------------------------------- bits

    /** Spreads the low 32 bits of {@code lat} on the even bits and those of {@code lon} on the odd ones. */
    static long interleave(long lat, long lon) {
        return spread(lat & 0xffffffffL) | spread(lon & 0xffffffffL) << 1;
    }

    private static long spread(long x) {
        x = (x | (x << 16)) & 0x0000FFFF0000FFFFL;
        x = (x | (x << 8)) & 0x00FF00FF00FF00FFL;
        x = (x | (x << 4)) & 0x0F0F0F0F0F0F0F0FL;
        x = (x | (x << 2)) & 0x3333333333333333L;
        x = (x | (x << 1)) & 0x5555555555555555L;
        return x;
    }

    private static long gather(long x) {
        x &= 0x5555555555555555L;
        x = (x | (x >>> 1)) & 0x3333333333333333L;
        x = (x | (x >>> 2)) & 0x0F0F0F0F0F0F0F0FL;
        x = (x | (x >>> 4)) & 0x00FF00FF00FF00FFL;
        x = (x | (x >>> 8)) & 0x0000FFFF0000FFFFL;
        x = (x | (x >>> 16)) & 0x00000000FFFFFFFFL;
        return x;
    }

    /** The even bits in the low half, the odd bits in the high half. */
    static long deinterleave(long interleaved) {
        return gather(interleaved) | gather(interleaved >>> 1) << 32;
    }

    /** C's conversion of a double to {@code uint64_t} as gcc compiles it on x86-64, out-of-range values included. */
    static long toUint64(double d) {
        if (d >= 0x1p63) {
            double t = d - 0x1p63;
            long v = t >= 0x1p63 ? Long.MIN_VALUE : (long) t; // cvttsd2si: out of range is 0x8000000000000000
            return v ^ Long.MIN_VALUE;
        }
        if (Double.isNaN(d) || d < -0x1p63) {
            return Long.MIN_VALUE;
        }
        return (long) d;
    }

    /**
     * {@code geohashEncode}: the cell of {@code step} containing the position, or null when the position is outside
     * the Web Mercator limits or the given ranges.
     */
    static Bits encode(double lonMin, double lonMax, double latMin, double latMax, double longitude, double latitude,
            int step) {
        if (step > 32 || step == 0 || latMax == 0 && latMin == 0 || lonMax == 0 && lonMin == 0) {
            return null;
        }
        if (longitude > LONG_MAX || longitude < LONG_MIN || latitude > LAT_MAX || latitude < LAT_MIN) {
            return null;
        }
        if (latitude < latMin || latitude > latMax || longitude < lonMin || longitude > lonMax) {
            return null;
        }
        double latOffset = (latitude - latMin) / (latMax - latMin);
        double longOffset = (longitude - lonMin) / (lonMax - lonMin);
        latOffset *= (double) (1L << step);
        longOffset *= (double) (1L << step);
        return new Bits(interleave(toUint64(latOffset), toUint64(longOffset)), step);
    }

    static Bits encodeWgs84(double longitude, double latitude, int step) {
        return encode(LONG_MIN, LONG_MAX, LAT_MIN, LAT_MAX, longitude, latitude, step);
    }

    /** {@code geohashDecode}: the extent of a cell within the given ranges; null for {@link Bits#ZERO}. */
    static Area decode(double lonMin, double lonMax, double latMin, double latMax, Bits hash) {
        if (hash.isZero() || latMax == 0 && latMin == 0 || lonMax == 0 && lonMin == 0) {
            return null;
        }
        long sep = deinterleave(hash.bits());
        double latScale = latMax - latMin;
        double lonScale = lonMax - lonMin;
        long ilato = sep & 0xffffffffL;
        long ilono = sep >>> 32;
        double cells = (double) (1L << hash.step());
        // C adds one in uint32_t arithmetic: the last cell's end wraps to 0
        return new Area(hash,
                lonMin + (ilono * 1.0 / cells) * lonScale,
                lonMin + (((ilono + 1) & 0xffffffffL) * 1.0 / cells) * lonScale,
                latMin + (ilato * 1.0 / cells) * latScale,
                latMin + (((ilato + 1) & 0xffffffffL) * 1.0 / cells) * latScale);
    }

    static Area decodeWgs84(Bits hash) {
        return decode(LONG_MIN, LONG_MAX, LAT_MIN, LAT_MAX, hash);
    }

    /**
     * {@code decodeGeohash}: the position a score stands for, the centre of its step-26 cell clamped to the
     * limits, as {longitude, latitude}.
     */
    static double[] decodeScore(double score) {
        Area area = decodeWgs84(new Bits(toUint64(score), STEP_MAX));
        double lon = (area.lonMin() + area.lonMax()) / 2;
        lon = Math.max(LONG_MIN, Math.min(LONG_MAX, lon));
        double lat = (area.latMin() + area.latMax()) / 2;
        lat = Math.max(LAT_MIN, Math.min(LAT_MAX, lat));
        return new double[] {lon, lat};
    }

    /** {@code geohashAlign52Bits}: a cell's first score. */
    static long align52(Bits hash) {
        return hash.bits() << (52 - hash.step() * 2);
    }

    // ---------------------------------------------------------------- neighbours

    private static Bits moveX(Bits hash, int d) {
        if (d == 0) {
            return hash;
        }
        long x = hash.bits() & 0xaaaaaaaaaaaaaaaaL;
        long y = hash.bits() & 0x5555555555555555L;
        long zz = 0x5555555555555555L >>> (64 - hash.step() * 2);
        if (d > 0) {
            x = x + (zz + 1);
        } else {
            x = x | zz;
            x = x - (zz + 1);
        }
        x &= 0xaaaaaaaaaaaaaaaaL >>> (64 - hash.step() * 2);
        return new Bits(x | y, hash.step());
    }

    private static Bits moveY(Bits hash, int d) {
        if (d == 0) {
            return hash;
        }
        long x = hash.bits() & 0xaaaaaaaaaaaaaaaaL;
        long y = hash.bits() & 0x5555555555555555L;
        long zz = 0xaaaaaaaaaaaaaaaaL >>> (64 - hash.step() * 2);
        if (d > 0) {
            y = y + (zz + 1);
        } else {
            y = y | zz;
            y = y - (zz + 1);
        }
        y &= 0x5555555555555555L >>> (64 - hash.step() * 2);
        return new Bits(x | y, hash.step());
    }

    private static Bits move(Bits hash, int dx, int dy) {
        return moveY(moveX(hash, dx), dy);
    }

    /** North, south, east, west, north-east, north-west, south-east, south-west; wrapping round the grid. */
    static Bits[] neighbours(Bits hash) {
        return new Bits[] {move(hash, 0, 1), move(hash, 0, -1), move(hash, 1, 0), move(hash, -1, 0),
            move(hash, 1, 1), move(hash, -1, 1), move(hash, 1, -1), move(hash, -1, -1)};
    }

    // ---------------------------------------------------------------- searches

    /** {@code geohashEstimateStepsByRadius}: the finest step whose cells are at least as wide as the search. */
    static int estimateSteps(double rangeMeters, double lat) {
        if (rangeMeters == 0) {
            return 26;
        }
        int step = 1;
        while (rangeMeters < MERCATOR_MAX) {
            rangeMeters *= 2;
            step++;
        }
        step -= 2;
        // meridians converge towards the poles: wider cells there
        if (lat > 66 || lat < -66) {
            step--;
            if (lat > 80 || lat < -80) {
                step--;
            }
        }
        if (step < 1) {
            step = 1;
        }
        if (step > 26) {
            step = 26;
        }
        return step;
    }

    /**
     * {@code geohashBoundingBox}: the longitudes and latitudes the shape may reach; its east-west extent is taken
     * at the edge nearer the pole.
     */
    static void boundingBox(Shape shape) {
        double longitude = shape.xy[0];
        double latitude = shape.xy[1];
        double height = shape.conversion * (shape.type == CIRCULAR ? shape.radius : shape.height / 2);
        double width = shape.conversion * (shape.type == CIRCULAR ? shape.radius : shape.width / 2);
        double latDelta = radDeg(height / EARTH_RADIUS_IN_METERS);
        double longDeltaTop = radDeg(width / EARTH_RADIUS_IN_METERS / CrMath.cos(degRad(latitude + latDelta)));
        double longDeltaBottom = radDeg(width / EARTH_RADIUS_IN_METERS
                / CrMath.cos(degRad(latitude - latDelta)));
        boolean southern = latitude < 0;
        shape.bounds[0] = southern ? longitude - longDeltaBottom : longitude - longDeltaTop;
        shape.bounds[2] = southern ? longitude + longDeltaBottom : longitude + longDeltaTop;
        shape.bounds[1] = latitude - latDelta;
        shape.bounds[3] = latitude + latDelta;
    }

    /** {@code geohashCalculateAreasByShapeWGS84}: the cells a search reads; fills the shape's bounds. */
    static Radius areasByShape(Shape shape) {
        boundingBox(shape);
        double minLon = shape.bounds[0];
        double minLat = shape.bounds[1];
        double maxLon = shape.bounds[2];
        double maxLat = shape.bounds[3];
        double longitude = shape.xy[0];
        double latitude = shape.xy[1];
        // a box is covered by the circle through its corners
        double radiusMeters = shape.type == CIRCULAR ? shape.radius
                : Math.sqrt((shape.width / 2) * (shape.width / 2) + (shape.height / 2) * (shape.height / 2));
        radiusMeters *= shape.conversion;

        int steps = estimateSteps(radiusMeters, latitude);
        Bits hash = encodeWgs84(longitude, latitude, steps);
        Bits[] n = neighbours(hash);
        Area area = decodeWgs84(hash);

        // near a cell's edge, a neighbour may stop short of the search: one step coarser then
        boolean decrease = decodeWgs84(n[0]).latMax() < maxLat
                | decodeWgs84(n[1]).latMin() > minLat
                | decodeWgs84(n[2]).lonMax() < maxLon
                | decodeWgs84(n[3]).lonMin() > minLon;
        if (steps > 1 && decrease) {
            steps--;
            hash = encodeWgs84(longitude, latitude, steps);
            n = neighbours(hash);
            area = decodeWgs84(hash);
        }

        // leave out the neighbours beyond the bounding box
        if (steps >= 2) {
            if (area.latMin() < minLat) {
                n[1] = Bits.ZERO; // south
                n[7] = Bits.ZERO; // south-west
                n[6] = Bits.ZERO; // south-east
            }
            if (area.latMax() > maxLat) {
                n[0] = Bits.ZERO; // north
                n[4] = Bits.ZERO; // north-east
                n[5] = Bits.ZERO; // north-west
            }
            if (area.lonMin() < minLon) {
                n[3] = Bits.ZERO; // west
                n[7] = Bits.ZERO;
                n[5] = Bits.ZERO;
            }
            if (area.lonMax() > maxLon) {
                n[2] = Bits.ZERO; // east
                n[6] = Bits.ZERO;
                n[4] = Bits.ZERO;
            }
        }
        return new Radius(hash, n, area);
    }

    /** The distance along a meridian. */
    static double latDistance(double lat1d, double lat2d) {
        return EARTH_RADIUS_IN_METERS * Math.abs(degRad(lat2d) - degRad(lat1d));
    }

    /** {@code geohashGetDistance}: haversine, in metres. */
    static double distance(double lon1d, double lat1d, double lon2d, double lat2d) {
        double lon1r = degRad(lon1d);
        double lon2r = degRad(lon2d);
        double v = CrMath.sin((lon2r - lon1r) / 2);
        if (v == 0.0) {
            return latDistance(lat1d, lat2d);
        }
        double lat1r = degRad(lat1d);
        double lat2r = degRad(lat2d);
        double u = CrMath.sin((lat2r - lat1r) / 2);
        double a = u * u + CrMath.cos(lat1r) * CrMath.cos(lat2r) * v * v;
        return 2.0 * EARTH_RADIUS_IN_METERS * CrMath.asin(Math.sqrt(a));
    }

    /**
     * {@code geoWithinShape} for a decoded point: whether the shape holds it, its distance from the centre in
     * {@code distance[0]} when it does. A NaN distance (rounding past the antipode) is held, as in Redis.
     */
    static boolean within(Shape shape, double lon, double lat, double[] distance) {
        if (shape.type == CIRCULAR) {
            distance[0] = distance(shape.xy[0], shape.xy[1], lon, lat);
            return !(distance[0] > shape.radius * shape.conversion);
        }
        double width = shape.width * shape.conversion;
        double height = shape.height * shape.conversion;
        // the latitude condition first: it is the cheaper one
        if (latDistance(lat, shape.xy[1]) > height / 2) {
            return false;
        }
        if (distance(lon, lat, shape.xy[0], lat) > width / 2) {
            return false;
        }
        distance[0] = distance(shape.xy[0], shape.xy[1], lon, lat);
        return true;
    }
}
