package tandem.store;

/**
 * Redis's {@code rand48.c}: the generator behind {@code math.random} in scripts, which Redis never reseeds between
 * scripts (its state runs on from the server's start). Written here because {@code java.util.Random} has the same
 * recurrence but not the same seeding or output: {@code X = X * 0x5DEECE66D + 0xB mod 2^48}, starting at
 * {@code 0x1234ABCD330E}; a seed {@code s} sets {@code X = s << 16 | 0x330E}; a draw is the top 31 bits.
 */
final class Rand48 {

    private static final long MULTIPLIER = 0x5DEECE66DL;
    private static final long MASK = (1L << 48) - 1;

    private long x = 0x1234ABCD330EL;

    /** {@code redisSrand48}: the low 32 bits of {@code seed}, as C's {@code int32_t}. */
    void seed(int seed) {
        x = ((long) seed << 16 | 0x330E) & MASK;
    }

    /** {@code redisLrand48}: 31 random bits. */
    int next() {
        x = (x * MULTIPLIER + 0xB) & MASK;
        return (int) (x >>> 17);
    }

    /** What {@code math.random} scales: {@code (lrand48() % REDIS_LRAND48_MAX) / REDIS_LRAND48_MAX}, in [0, 1). */
    double nextDouble() {
        return (next() % 2147483647) / 2147483647.0;
    }
}
