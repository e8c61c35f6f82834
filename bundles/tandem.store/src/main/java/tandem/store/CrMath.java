package tandem.store;

import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;

/**
 * {@code sin}, {@code cos} and {@code asin} correctly rounded (the double nearest the exact value), for the geo
 * distances Redis computes with glibc.
 *
 * <p>Why: glibc's results are correctly rounded for all but about one argument in a thousand, {@link StrictMath}'s
 * (fdlibm) differ from them in the last bit for 3 to 8 in a hundred, which shows in a stored distance
 * (GEOSEARCHSTORE … STOREDIST). {@link Math}'s are closer but differ between platforms, and an apply must compute the
 * same bits on every node. These use only IEEE operations whose result Java specifies exactly ({@code + - * /},
 * {@link Math#fma}, {@link Math#sqrt}, {@link StrictMath}), so they are the same everywhere.
 *
 * <p>How: the value is computed in double-double arithmetic (about 100 bits), and rounded when the error bound
 * leaves only one candidate (Ziv's test); otherwise, about once in 2^20 calls, again with {@link BigDecimal} to 80
 * digits. Arguments of {@code sin} and {@code cos} beyond 2^20 in magnitude, which no position gives, are left to
 * {@link StrictMath}.
 */
final class CrMath {

    private static final BigDecimal PI = new BigDecimal("3.14159265358979323846264338327950288419716939937510582097"
            + "494459230781640628620899862803482534211706798214808651");
    private static final BigDecimal PIO2 = PI.divide(BigDecimal.valueOf(2));
    private static final MathContext MC = new MathContext(80, RoundingMode.HALF_EVEN);
    private static final BigDecimal EPSILON = BigDecimal.ONE.movePointLeft(90);

    /** π/2 as the sum of three doubles, each the rounding of what the ones before leave. */
    private static final double PIO2_1;
    private static final double PIO2_2;
    private static final double PIO2_3;
    private static final double TWO_OVER_PI = 2 / Math.PI;
    private static final double REDUCIBLE = 0x1p20;
    /** The relative error bound the rounding test allows: far above the double-double evaluation's. */
    private static final double BOUND = 0x1p-75;

    /** (-1)^k / (2k+1)! and (-1)^k / (2k)! as double-doubles, hi then lo, for k = 0 .. TERMS-1. */
    private static final int TERMS = 15;
    private static final double[] SIN = new double[2 * TERMS];
    private static final double[] COS = new double[2 * TERMS];

    static {
        PIO2_1 = PIO2.doubleValue();
        BigDecimal rest = PIO2.subtract(new BigDecimal(PIO2_1));
        PIO2_2 = rest.doubleValue();
        PIO2_3 = rest.subtract(new BigDecimal(PIO2_2)).doubleValue();
        BigDecimal factorial = BigDecimal.ONE;
        for (int n = 0; n <= 2 * TERMS; n++) {
            if (n > 0) {
                factorial = factorial.multiply(BigDecimal.valueOf(n));
            }
            BigDecimal c = BigDecimal.ONE.divide(factorial, MC);
            if ((n / 2) % 2 == 1) {
                c = c.negate();
            }
            double hi = c.doubleValue();
            double lo = c.subtract(new BigDecimal(hi)).doubleValue();
            double[] table = n % 2 == 0 ? COS : SIN;
            int k = n / 2;
            if (k < TERMS) {
                table[2 * k] = hi;
                table[2 * k + 1] = lo;
            }
        }
    }

    private CrMath() {
    }

    // ---------------------------------------------------------------- double-double

    /** A double-double: {@code hi + lo}, {@code |lo| <= ulp(hi)/2}. */
    private record DD(double hi, double lo) {

        static DD of(double a, double b) {
            double s = a + b;
            return new DD(s, b - (s - a)); // |a| >= |b|
        }

        static DD sum(double a, double b) {
            double s = a + b;
            double bb = s - a;
            return new DD(s, (a - (s - bb)) + (b - bb));
        }

        static DD product(double a, double b) {
            double p = a * b;
            return new DD(p, Math.fma(a, b, -p));
        }

        DD plus(DD b) {
            DD s = sum(hi, b.hi);
            DD t = sum(lo, b.lo);
            DD u = of(s.hi, s.lo + t.hi);
            return of(u.hi, u.lo + t.lo);
        }

        DD times(DD b) {
            DD p = product(hi, b.hi);
            return of(p.hi, p.lo + (hi * b.lo + lo * b.hi));
        }

        DD negate() {
            return new DD(-hi, -lo);
        }

        /** The double nearest, or NaN when the error bound spans a rounding boundary. */
        double rounded() {
            double e = Math.abs(hi) * BOUND;
            double a = hi + (lo - e);
            double b = hi + (lo + e);
            return a == b ? a : Double.NaN;
        }
    }

    /** sin(r) for |r| <= π/4 (and a little more), by its Taylor series in r². */
    private static DD sinSeries(DD r) {
        DD z = r.times(r);
        DD p = new DD(SIN[2 * TERMS - 2], SIN[2 * TERMS - 1]);
        for (int k = TERMS - 2; k >= 0; k--) {
            p = p.times(z).plus(new DD(SIN[2 * k], SIN[2 * k + 1]));
        }
        return p.times(r);
    }

    private static DD cosSeries(DD r) {
        DD z = r.times(r);
        DD p = new DD(COS[2 * TERMS - 2], COS[2 * TERMS - 1]);
        for (int k = TERMS - 2; k >= 0; k--) {
            p = p.times(z).plus(new DD(COS[2 * k], COS[2 * k + 1]));
        }
        return p;
    }

    /** sin(x) ({@code cosine}: cos(x)) in double-double, for |x| < 2^20. */
    private static DD sinCos(double x, boolean cosine) {
        double k = Math.rint(x * TWO_OVER_PI);
        DD r = new DD(x, 0);
        if (k != 0) {
            // x - k·π/2, with π/2 to about 160 bits: exact products, so only the last bits of k·π/2 are lost
            r = r.plus(DD.product(k, PIO2_1).negate()).plus(DD.product(k, PIO2_2).negate())
                    .plus(new DD(-k * PIO2_3, 0));
        }
        int quadrant = (int) ((long) k & 3) + (cosine ? 1 : 0);
        return switch (quadrant & 3) {
            case 0 -> sinSeries(r);
            case 1 -> cosSeries(r);
            case 2 -> sinSeries(r).negate();
            default -> cosSeries(r).negate();
        };
    }

    static double sin(double x) {
        if (Double.isNaN(x) || Double.isInfinite(x)) {
            return Double.NaN;
        }
        if (Math.abs(x) < 0x1p-26) {
            return x; // |x³/6| is below half an ulp of x
        }
        if (Math.abs(x) >= REDUCIBLE) {
            return StrictMath.sin(x);
        }
        double v = sinCos(x, false).rounded();
        return Double.isNaN(v) ? sinExact(x) : v;
    }

    static double cos(double x) {
        if (Double.isNaN(x) || Double.isInfinite(x)) {
            return Double.NaN;
        }
        if (Math.abs(x) < 0x1p-27) {
            return 1; // x²/2 is below half an ulp under 1
        }
        if (Math.abs(x) >= REDUCIBLE) {
            return StrictMath.cos(x);
        }
        double v = sinCos(x, true).rounded();
        return Double.isNaN(v) ? cosExact(x) : v;
    }

    static double asin(double x) {
        double ax = Math.abs(x);
        if (Double.isNaN(x) || ax > 1) {
            return Double.NaN;
        }
        if (ax < 0x1p-26) {
            return x; // |x³/6| is below half an ulp of x
        }
        if (ax == 1) {
            return Math.copySign(PIO2_1, x);
        }
        DD y;
        if (ax <= 0.5) {
            y = asinNewton(new DD(ax, 0));
        } else {
            // asin(x) = π/2 - 2·asin(sqrt((1 - x)/2)), whose argument is at most 1/2
            double w = (1 - ax) * 0.5; // exact
            double s = Math.sqrt(w);
            DD t = DD.of(s, Math.fma(-s, s, w) / (2 * s));
            DD a = asinNewton(t);
            y = new DD(PIO2_1, PIO2_2).plus(new DD(-2 * a.hi, -2 * a.lo));
        }
        double v = y.rounded();
        if (Double.isNaN(v)) {
            v = asinExact(ax);
        }
        return Math.copySign(v, x);
    }

    /** asin(t), 0 < t <= 1/2, by one Newton step on sin from fdlibm's double: the error squares to ~2^-104. */
    private static DD asinNewton(DD t) {
        double y0 = StrictMath.asin(t.hi);
        DD diff = sinSeries(new DD(y0, 0)).plus(t.negate());
        double delta = -diff.hi / StrictMath.cos(y0);
        return DD.sum(y0, delta);
    }

    // ---------------------------------------------------------------- exact fallbacks

    /** {sin, cos} of {@code x} to 80 digits. */
    private static BigDecimal[] sinCosExact(BigDecimal x) {
        BigDecimal k = x.divide(PIO2, MC).setScale(0, RoundingMode.HALF_EVEN);
        BigDecimal r = x.subtract(k.multiply(PIO2), MC);
        BigDecimal r2 = r.multiply(r, MC);
        BigDecimal sin = r;
        BigDecimal term = r;
        for (int n = 1; term.abs().compareTo(EPSILON) > 0; n++) {
            term = term.multiply(r2, MC).divide(BigDecimal.valueOf(-(2L * n) * (2L * n + 1)), MC);
            sin = sin.add(term, MC);
        }
        BigDecimal cos = BigDecimal.ONE;
        term = BigDecimal.ONE;
        for (int n = 1; term.abs().compareTo(EPSILON) > 0; n++) {
            term = term.multiply(r2, MC).divide(BigDecimal.valueOf(-(2L * n - 1) * (2L * n)), MC);
            cos = cos.add(term, MC);
        }
        return switch (k.remainder(BigDecimal.valueOf(4)).intValue() & 3) {
            case 0 -> new BigDecimal[] {sin, cos};
            case 1 -> new BigDecimal[] {cos, sin.negate()};
            case 2 -> new BigDecimal[] {sin.negate(), cos.negate()};
            default -> new BigDecimal[] {cos.negate(), sin};
        };
    }

    static double sinExact(double x) {
        return sinCosExact(new BigDecimal(x))[0].doubleValue();
    }

    static double cosExact(double x) {
        return sinCosExact(new BigDecimal(x))[1].doubleValue();
    }

    /** asin of 0 < x < 1 by Newton's method on sin, to 80 digits. */
    static double asinExact(double x) {
        BigDecimal target = new BigDecimal(x);
        BigDecimal y = new BigDecimal(StrictMath.asin(x));
        for (int i = 0; i < 10; i++) {
            BigDecimal[] sc = sinCosExact(y);
            BigDecimal step = sc[0].subtract(target, MC).divide(sc[1], MC);
            y = y.subtract(step, MC);
            if (step.abs().compareTo(y.abs().multiply(EPSILON)) <= 0) {
                break;
            }
        }
        return y.doubleValue();
    }
}
