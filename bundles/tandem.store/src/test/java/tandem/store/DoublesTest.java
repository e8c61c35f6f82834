package tandem.store;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Random;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link Doubles} against the real Redis 7.0.15 (glibc, x86-64). Every golden value below is what that server
 * replied: {@code ZADD t <input> m} then {@code ZSCORE t m} for {@code parse} and {@code format},
 * {@code ZCOUNT t <bound> +inf} for {@code parseBound}. Inputs are bytes: each char of a Java string here is one
 * byte (ISO-8859-1), so {@code "\u00d9\u00a1"} is the UTF-8 of an Arabic-Indic one.
 */
@Timeout(60)
class DoublesTest {

    private static final String NOT_FLOAT = CommandError.NOT_FLOAT;

    /** {input, ZSCORE reply after ZADD, or null for "ERR value is not a valid float"}. */
    private static final String[][] PARSE = {
        {"1", "1"},
        {"-1", "-1"},
        {"1.5", "1.5"},
        {".5", "0.5"},
        {"5.", "5"},
        {"1e5", "100000"},
        {"1E+05", "100000"},
        {" 1", null},
        {"1 ", null},
        {"", null},
        {"1\u0000", null},
        {"inf", "inf"},
        {"-inf", "-inf"},
        {"+inf", "inf"},
        {"Infinity", "inf"},
        {"INFINITY", "inf"},
        {"infinit", null},
        {"nan", null},
        {"NaN", null},
        {"-nan", null},
        {"nan(1)", null},
        {"0x10", "16"},
        {"0X1A", "26"},
        {"0x1.8p3", "12"},
        {"0x", null},
        {"0x.8", "0.5"},
        {"0xp1", null},
        {"1e308", "1e+308"},
        {"1e309", null},
        {"-1e309", null},
        {"1e-400", null},
        {"4.9e-324", "4.9406564584124654e-324"},
        {"2e-324", null},
        {"3e-324", "4.9406564584124654e-324"},
        {"1e-320", "9.9998886718268301e-321"},
        {"0.30000000000000004", "0.30000000000000004"},
        {"1.0000000000000001", "1"},
        {"9007199254740993", "9007199254740992"},
        {"123456789012345678901234567890", "1.2345678901234568e+29"},
        {"1_0", null},
        {"1,5", null},
        {"--1", null},
        {"+-1", null},
        {"\u00d9\u00a1", null},
        {"1.00000000000000011102230246251565404236316680908203125", "1"},
        {"1e99999999999", null},
        {"-1e99999999999", null},
        {"1e-99999999999", null},
        {"0e99999999999", "0"},
        {"0e-99999999999", "0"},
        {"0x0p99999999999", "0"},
        {"-0", "-0"},
        {"0", "0"},
        {"+0", "0"},
        {"-0.0", "-0"},
        {"00", "0"},
        {"0.0e0", "0"},
        {"1e", null},
        {"1e+", null},
        {"1e-", null},
        {"1.e1", "10"},
        {".", null},
        {".e1", null},
        {"-", null},
        {"+", null},
        {"-.5", "-0.5"},
        {"+.5e-1", "0.050000000000000003"},
        {"e1", null},
        {"1e5.5", null},
        {"1e5 ", null},
        {"\t1", null},
        {"\n1", null},
        {"\u000b1", null},
        {"\f1", null},
        {"\r1", null},
        {"1\t", null},
        {"\u00001", null},
        {"1\u0000abc", null},
        {"infx", null},
        {"infinityx", null},
        {"Inf", "inf"},
        {"iNfInItY", "inf"},
        {"-Infinity", "-inf"},
        {"in", null},
        {"nan(", null},
        {"nan()", null},
        {"nan(abc_12)", null},
        {"nanx", null},
        {"+nan", null},
        {"0x1p", null},
        {"0x1p+", null},
        {"0x1p-1", "0.5"},
        {"0x1P3", "8"},
        {"-0x10", "-16"},
        {"+0x1.8", "1.5"},
        {"0x1.", "1"},
        {"0x1.p1", "2"},
        {"0x.", null},
        {"0x.p1", null},
        {"0xg", null},
        {"0x1g", null},
        {"0xAbCdEf", "11259375"},
        {"0x1p1023", "8.9884656743115795e+307"},
        {"0x1.fffffffffffffp1023", "1.7976931348623157e+308"},
        {"0x1.fffffffffffff8p1023", null},
        {"0x1p1024", null},
        {"0x1p-1074", "4.9406564584124654e-324"},
        {"0x1p-1075", null},
        {"0x1.8p-1075", "4.9406564584124654e-324"},
        {"0x1p-1076", null},
        {"0x1.0000000000000800000000000000000000001p0", "1.0000000000000002"},
        {"0x1.00000000000008p0", "1"},
        {"0x1.00000000000018p0", "1.0000000000000004"},
        {"1.7976931348623157e308", "1.7976931348623157e+308"},
        {"1.7976931348623158e308", "1.7976931348623157e+308"},
        {"1.7976931348623159e308", null},
        {"2.2250738585072014e-308", "2.2250738585072014e-308"},
        {"2.2250738585072011e-308", "2.2250738585072009e-308"},
        {"2.4703282292062327e-324", null},
        {"2.4703282292062328e-324", "4.9406564584124654e-324"},
        {"4.9406564584124654e-324", "4.9406564584124654e-324"},
        {"1234567890123456.25", "1234567890123456.2"},
        {"1234567890123456.75", "1234567890123456.8"},
        {"0.1", "0.10000000000000001"},
        {"1e16", "10000000000000000"},
        {"1e17", "1e+17"},
        {"1e-4", "0.0001"},
        {"1e-5", "1.0000000000000001e-05"},
        {"123456.789", "123456.789"},
        {"12345678901234567", "12345678901234568"},
        {"1e23", "9.9999999999999992e+22"},
        {"8.98846567431158e307", "8.9884656743115795e+307"},
        {"0x1p-1022", "2.2250738585072014e-308"},
        {"0x0.fffffffffffffp-1022", "2.2250738585072009e-308"},
        {"\u00d9\u00a3", null},
        {"1\u00c2\u00a0", null},
        {"\u00a01", null},
    };

    /**
     * {bound, ZCOUNT reply, or null for "ERR min or max is not a float"}, against a zset holding the scores
     * {@link #ZCOUNT_SCORES}; a leading '(' is an exclusive bound, stripped by the caller.
     */
    private static final String[][] BOUND = {
        {"1", "3"},
        {"-1", "6"},
        {"", "5"},
        {"(", "4"},
        {"(1", "2"},
        {"((1", null},
        {" 1", "3"},
        {"( 1", "2"},
        {"1 ", null},
        {"  ", null},
        {" ", null},
        {"\t\n1", "3"},
        {"1\u0000abc", "3"},
        {"(1\u0000abc", "2"},
        {"\u0000abc", "5"},
        {"\u0000", "5"},
        {"(\u0000x", "4"},
        {"inf", "1"},
        {"-inf", "7"},
        {"+inf", "1"},
        {"Infinity", "1"},
        {"infinit", null},
        {"nan", null},
        {"(nan", null},
        {"-nan", null},
        {"nan(1)", null},
        {"nan(", null},
        {"1e400", "1"},
        {"-1e400", "7"},
        {"(1e400", "0"},
        {"1e-400", "5"},
        {"0x10", "2"},
        {"0x", null},
        {"0x.8", "4"},
        {"0xp1", null},
        {"abc", null},
        {"-", null},
        {"(-", null},
        {"1e", null},
        {"1e5", "1"},
        {".5", "4"},
        {"5.", "2"},
        {".", null},
        {" \u0000", null},
        {" x", null},
        {"1,5", null},
        {"1_0", null},
        {"0x1p", null},
        {"0x1p\u0000z", null},
        {"1e99999999999", "1"},
        {"\u000b1", "3"},
        {"\f1", "3"},
        {"\r1", "3"},
        {"\u00a01", null},
        {"1\u00a0", null},
        {"2e-324", "5"},
        {"0x1p-1075", "5"},
    };

    private static final double[] ZCOUNT_SCORES = {
        Double.NEGATIVE_INFINITY, -1, 0, 0.5, 1, 16, Double.POSITIVE_INFINITY,
    };

    /**
     * {IEEE bits of the double, ZSCORE reply}, the double written to ZADD in its shortest round-trip form. The
     * zset held 200 other members so that it was skiplist-encoded: a listpack-encoded zset stores {@code -0} as
     * the integer 0 and replies {@code "0"}, but that is the zset's business, not {@code addReplyDouble}'s.
     */
    private static final String[][] FORMAT = {
        {"3ff199999999999a", "1.1000000000000001"}, // 1.1
        {"3ff0000000000000", "1"}, // 1.0
        {"3fb999999999999a", "0.10000000000000001"}, // 0.1
        {"4376345785d8a000", "1e+17"}, // 1e+17
        {"4345ee2a2eb5a5c4", "12345678901234568"}, // 1.2345678901234568e+16
        {"3ee4f8b588e368f1", "1.0000000000000001e-05"}, // 1e-05
        {"3ff8000000000000", "1.5"}, // 1.5
        {"8000000000000000", "-0"}, // -0.0
        {"0000000000000000", "0"}, // 0.0
        {"0000000000000001", "4.9406564584124654e-324"}, // 5e-324
        {"7fefffffffffffff", "1.7976931348623157e+308"}, // 1.7976931348623157e+308
        {"3fd3333333333334", "0.30000000000000004"}, // 0.30000000000000004
        {"3fd5555555555555", "0.33333333333333331"}, // 0.3333333333333333
        {"3fe5555555555555", "0.66666666666666663"}, // 0.6666666666666666
        {"4341c37937e08000", "10000000000000000"}, // 1e+16
        {"3f1a36e2eb1c432d", "0.0001"}, // 0.0001
        {"40fe240c9fbe76c9", "123456.789"}, // 123456.789
        {"4340000000000000", "9007199254740992"}, // 9007199254740992.0
        {"43e0000000000000", "9.2233720368547758e+18"}, // 9.223372036854776e+18
        {"81b01297d23ab683", "-1.5000000000000001e-300"}, // -1.5e-300
        {"000fffffffffffff", "2.2250738585072009e-308"}, // 2.225073858507201e-308
        {"0010000000000000", "2.2250738585072014e-308"}, // 2.2250738585072014e-308
        {"4059000000000000", "100"}, // 100.0
        {"430c6bf526340000", "1000000000000000"}, // 1000000000000000.0
        {"444b1ae4d6e2ef50", "1e+21"}, // 1e+21
        {"4480f0cf064dd592", "1e+22"}, // 1e+22
        {"44b52d02c7e14af6", "9.9999999999999992e+22"}, // 1e+23
        {"3f50624dd2f1a9fc", "0.001"}, // 0.001
        {"bff0000000000000", "-1"}, // -1.0
        {"c05edd2f1a9fbe77", "-123.456"}, // -123.456
        {"400921fb54442d18", "3.1415926535897931"}, // 3.141592653589793
        {"4005bf0a8b145769", "2.7182818284590451"}, // 2.718281828459045
        {"43118b54f22aeb01", "1234567890123456.2"}, // 1234567890123456.2
        {"43118b54f22aeb03", "1234567890123456.8"}, // 1234567890123456.8
        {"3fe0000000000000", "0.5"}, // 0.5
        {"3fd0000000000000", "0.25"}, // 0.25
        {"3fc0000000000000", "0.125"}, // 0.125
        {"01a56e1fc2f8f359", "1e-300"}, // 1e-300
        {"7e37e43c8800759c", "1.0000000000000001e+300"}, // 1e+300
        {"bee4f8b588e368f1", "-1.0000000000000001e-05"}, // -1e-05
        {"4376345785d89fff", "99999999999999984"}, // 9.999999999999998e+16
        {"3e7ad7f29abcaf48", "9.9999999999999995e-08"}, // 1e-07
        {"3f202e4b6ce5dc68", "0.00012344999999999999"}, // 0.00012345
        {"3ee9e3abe16fc70d", "1.2345e-05"}, // 1.2345e-05
        {"0000000000000003", "1.4821969375237396e-323"}, // 1.5e-323
        {"432fffffffffffff", "4503599627370495.5"}, // 4503599627370495.5
        {"4330000000000000", "4503599627370496"}, // 4503599627370496.0
        {"c32ffffffffffffe", "-4503599627370495"}, // -4503599627370495.0
        {"4340000000000000", "9007199254740992"}, // 9007199254740992.0
        {"54b249ad2594c37d", "1e+100"}, // 1e+100
        {"3eb0000000000000", "9.5367431640625e-07"}, // 9.5367431640625e-07
        {"3fefffffffffffff", "0.99999999999999989"}, // 0.9999999999999999
        {"3f0a36e2eb1c432d", "5.0000000000000002e-05"}, // 5e-05
        {"3eb0c6f7a0b5ed8d", "9.9999999999999995e-07"}, // 1e-06
        {"4028000000000000", "12"}, // 12.0
        {"43abc16d674ec800", "1e+18"}, // 1e+18
        {"441aabdf2145b430", "1.23e+20"}, // 1.23e+20
        {"3fd3333333333333", "0.29999999999999999"}, // 0.3
        {"3fe6666666666666", "0.69999999999999996"}, // 0.7
        {"3ff0000000000001", "1.0000000000000002"}, // 1.0000000000000002
        {"3fefffffffffffff", "0.99999999999999989"}, // 0.9999999999999999
        {"6edd3a249018775a", "1.081839399692538e+226"}, // 1.081839399692538e+226
        {"88cea9fee945a791", "-2.9718254815451495e-266"}, // -2.9718254815451495e-266
        {"d056c66c37316c00", "-1.0548700430607597e+79"}, // -1.0548700430607597e+79
        {"daa0e46bb15779ce", "-3.6591156462290138e+128"}, // -3.659115646229014e+128
        {"c42416dda1204208", "-1.8529126583639867e+20"}, // -1.8529126583639867e+20
        {"aa880385d606563e", "-8.3762896592630584e-104"}, // -8.376289659263058e-104
        {"86c074ecdeaa3171", "-3.713451664076246e-276"}, // -3.713451664076246e-276
        {"4032fe3bfee1ca68", "18.993102960705443"}, // 18.993102960705443
        {"0c7450763c375d47", "1.1349207600462012e-248"}, // 1.1349207600462012e-248
        {"bd1c8831be873bab", "-2.5341514697381639e-14"}, // -2.534151469738164e-14
        {"ae160fd5f6ddf0b8", "-1.1090301523890994e-86"}, // -1.1090301523890994e-86
        {"3741f3ae8d7fd0c6", "1.6099804785441872e-42"}, // 1.6099804785441872e-42
        {"8d1af78861e2412c", "-1.5427479237591671e-245"}, // -1.5427479237591671e-245
        {"9b43380af1de1d00", "-2.3713817535736798e-177"}, // -2.37138175357368e-177
        {"9ec92e15cfdc20f3", "-2.238764419493944e-160"}, // -2.238764419493944e-160
        {"d6f0e60c2d36caa1", "-6.3499418258120769e+110"}, // -6.349941825812077e+110
        {"78fa89d52bbedfc5", "5.7426314563246045e+274"}, // 5.7426314563246045e+274
        {"74612510418466b5", "3.9280614956364533e+252"}, // 3.928061495636453e+252
        {"3a27cceb7bf464dd", "1.5020207113485902e-28"}, // 1.5020207113485902e-28
        {"f530d78640c58b8c", "-3.161019744606894e+256"}, // -3.161019744606894e+256
        {"5ed2fce29c476bc9", "6.0697845269548689e+148"}, // 6.069784526954869e+148
        {"704b041330cc9684", "8.3885402408860098e+232"}, // 8.38854024088601e+232
        {"1317e2c8d419f8d7", "1.082640627103771e-216"}, // 1.082640627103771e-216
        {"36bfb6b9d2a829de", "5.5550576634631896e-45"}, // 5.5550576634631896e-45
        {"95e40570f7d5068d", "-3.1928920290182561e-203"}, // -3.192892029018256e-203
        {"2e28cc720318fb77", "2.4932089304339307e-86"}, // 2.4932089304339307e-86
        {"131dad12b0149b4c", "1.3450841798866742e-216"}, // 1.3450841798866742e-216
        {"df91e44a7ee9d805", "-2.342668990266735e+152"}, // -2.342668990266735e+152
        {"b134aa70ff0ec4a8", "-1.1696420759308908e-71"}, // -1.1696420759308908e-71
        {"cb1bb61960448e56", "-6.6355439915765151e+53"}, // -6.635543991576515e+53
        {"7c43230ec5b1a4ab", "3.7299106004787971e+290"}, // 3.729910600478797e+290
        {"c8344c9faf79fa81", "-6.9074978003847454e+39"}, // -6.907497800384745e+39
        {"04c711fe703b43bf", "1.2120684655431385e-285"}, // 1.2120684655431385e-285
        {"204c1bfd485a61c2", "4.1929797448002746e-153"}, // 4.1929797448002746e-153
        {"c98b708c43c12b59", "-1.9581581631274276e+46"}, // -1.9581581631274276e+46
        {"973f83deb892e89a", "-1.0540028155490557e-196"}, // -1.0540028155490557e-196
        {"fd5e42c14e93334f", "-7.7306430535353758e+295"}, // -7.730643053535376e+295
        {"626e45b403d1bb54", "1.3946098621944723e+166"}, // 1.3946098621944723e+166
        {"0924faaf8b4b122c", "1.3012585433722493e-264"}, // 1.3012585433722493e-264
        {"bbca868e543329ec", "-1.1234032497465416e-20"}, // -1.1234032497465416e-20
        {"9b1eb53b188b2fc3", "-4.7362340933311977e-178"}, // -4.7362340933311977e-178
    };

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.ISO_8859_1);
    }

    private static String format(double d) {
        return new String(Doubles.format(d), StandardCharsets.US_ASCII);
    }

    /** What Redis replies to ZADD then ZSCORE: the printed score, or null for a refusal. */
    private static String zaddZscore(String input) {
        try {
            return format(Doubles.parse(bytes(input), NOT_FLOAT));
        } catch (CommandError e) {
            assertEquals(NOT_FLOAT, e.getMessage());
            return null;
        }
    }

    private static String show(String s) {
        return s.length() > 60 ? s.substring(0, 40) + "...(" + s.length() + " chars)" : s;
    }

    @Test
    void parseAcceptsAndRefusesExactlyWhatZaddDoes() {
        for (String[] c : PARSE) {
            assertEquals(c[1], zaddZscore(c[0]), () -> "ZADD t '" + show(c[0]) + "' m");
        }
    }

    @Test
    void parseThrowsTheGivenError() {
        CommandError e = assertThrows(CommandError.class, () -> Doubles.parse(bytes("x"), "ERR some other text"));
        assertEquals("ERR some other text", e.getMessage());
    }

    @Test
    void parseGivesTheExactDouble() {
        assertEquals(Double.MIN_VALUE, Doubles.parse(bytes("4.9e-324"), NOT_FLOAT)); // subnormal: ERANGE, kept
        assertEquals(Double.MIN_VALUE, Doubles.parse(bytes("3e-324"), NOT_FLOAT));
        assertEquals(Double.longBitsToDouble(0x7e8L), Doubles.parse(bytes("1e-320"), NOT_FLOAT));
        assertEquals(12.0, Doubles.parse(bytes("0x1.8p3"), NOT_FLOAT));
        assertEquals(0.5, Doubles.parse(bytes("0x.8"), NOT_FLOAT));
        assertEquals(26.0, Doubles.parse(bytes("0X1A"), NOT_FLOAT));
        assertEquals(9007199254740992.0, Doubles.parse(bytes("9007199254740993"), NOT_FLOAT)); // tie to even
        assertEquals(Double.POSITIVE_INFINITY, Doubles.parse(bytes("+inf"), NOT_FLOAT));
        assertEquals(Double.NEGATIVE_INFINITY, Doubles.parse(bytes("-Infinity"), NOT_FLOAT));
        assertEquals(Double.MAX_VALUE, Doubles.parse(bytes("1.7976931348623158e308"), NOT_FLOAT));
        assertEquals(0x8000000000000000L, Double.doubleToRawLongBits(Doubles.parse(bytes("-0"), NOT_FLOAT)));
        assertEquals(0.0, Doubles.parse(bytes("0e99999999999"), NOT_FLOAT)); // zero: no ERANGE
        assertEquals(0.1 + 0.2, Doubles.parse(bytes("0.30000000000000004"), NOT_FLOAT));
    }

    @Test
    void parseOfLongInputsMatchesRedis() {
        String z400 = "0".repeat(400);
        String tie = "1.00000000000000011102230246251565404236316680908203125"; // 1 + 2^-53 exactly
        String[][] cases = {
            {"1" + "2345678901".repeat(39) + "234567890", null}, // a 400-digit integer overflows
            {"0." + "1234567890".repeat(40), "0.12345678901234568"},
            {"0." + z400 + "1e400", "0.10000000000000001"},
            {tie, "1"},
            {tie + z400 + "1", "1.0000000000000002"},
            {"1" + "0".repeat(309), null},
            {"1." + "0".repeat(6000), "1"}, // string2d has no length limit, unlike string2ld
            {"0." + "0".repeat(6000) + "1e6000", "0.10000000000000001"},
            {"0x" + z400 + "1p0", "1"},
            {"0x1" + "0".repeat(300) + "p-1200", "1"},
        };
        for (String[] c : cases) {
            assertEquals(c[1], zaddZscore(c[0]), () -> "ZADD t '" + show(c[0]) + "' m");
        }
    }

    @Test
    void parseBoundAcceptsAndRefusesExactlyWhatZcountDoes() {
        for (String[] c : BOUND) {
            byte[] s = bytes(c[0]);
            boolean exclusive = s.length > 0 && s[0] == '(';
            double min = Doubles.parseBound(s, exclusive ? 1 : 0);
            String count = null;
            if (!Double.isNaN(min)) {
                count = Long.toString(Arrays.stream(ZCOUNT_SCORES).filter(x -> exclusive ? x > min : x >= min).count());
            }
            assertEquals(c[1], count, () -> "ZCOUNT t '" + c[0] + "' +inf");
        }
    }

    @Test
    void parseBoundGivesStrtodsValue() {
        assertEquals(0.0, Doubles.parseBound(bytes(""), 0));
        assertEquals(0.0, Doubles.parseBound(bytes("("), 1));
        assertEquals(0.0, Doubles.parseBound(bytes("\0abc"), 0));
        assertEquals(1.0, Doubles.parseBound(bytes("1\0abc"), 0));
        assertEquals(1.0, Doubles.parseBound(bytes(" \t1"), 0));
        assertEquals(1.0, Doubles.parseBound(bytes("x1"), 1)); // bytes before from are not looked at
        assertEquals(Double.POSITIVE_INFINITY, Doubles.parseBound(bytes("1e400"), 0)); // overflow is fine here
        assertEquals(Double.NEGATIVE_INFINITY, Doubles.parseBound(bytes("-1e400"), 0));
        assertEquals(0.0, Doubles.parseBound(bytes("1e-400"), 0));
        assertEquals(16.0, Doubles.parseBound(bytes("0x10"), 0));
        assertTrue(Double.isNaN(Doubles.parseBound(bytes(" "), 0)), "spaces alone are not consumed");
        assertTrue(Double.isNaN(Doubles.parseBound(bytes("1 "), 0)));
        assertTrue(Double.isNaN(Doubles.parseBound(bytes("nan"), 0)));
        assertTrue(Double.isNaN(Doubles.parseBound(bytes("0x"), 0)));
    }

    @Test
    void formatPrintsWhatZscoreDoes() {
        for (String[] c : FORMAT) {
            double d = Double.longBitsToDouble(Long.parseUnsignedLong(c[0], 16));
            assertEquals(c[1], format(d), () -> "ZSCORE of 0x" + c[0]);
        }
    }

    @Test
    void formatOfTheSpecialValues() {
        assertEquals("inf", format(Double.POSITIVE_INFINITY));
        assertEquals("-inf", format(Double.NEGATIVE_INFINITY));
        assertEquals("0", format(0.0));
        assertEquals("-0", format(-0.0));
        assertEquals("1234567890123456.2", format(1234567890123456.25)); // exact tie: half to even
        assertEquals("1234567890123456.8", format(1234567890123456.75));
        assertEquals("-4.9406564584124654e-324", format(-Double.MIN_VALUE));
        assertEquals("2.2250738585072009e-308", format(Math.nextDown(Double.MIN_NORMAL))); // largest subnormal
        assertEquals("0.0001", format(1e-4)); // exponent -4: still fixed
        assertEquals("9.9999999999999991e-05", format(Math.nextDown(1e-4)));
        assertEquals("99999999999999984", format(Math.nextDown(1e17))); // exponent 16: still fixed
        assertEquals("9007199254740994", format(9007199254740994.0));
        assertEquals("-9.2233720368547758e+18", format(-0x1p63));
    }

    @Test
    void randomDoublesSurviveFormatThenParse() {
        Random random = new Random(20240607);
        for (int i = 0; i < 5000; i++) {
            double d = Double.longBitsToDouble(random.nextLong());
            if (Double.isNaN(d)) {
                continue;
            }
            byte[] printed = Doubles.format(d);
            double back = Doubles.parse(printed, NOT_FLOAT);
            assertEquals(Double.doubleToRawLongBits(d), Double.doubleToRawLongBits(back),
                    () -> d + " printed as " + new String(printed, StandardCharsets.US_ASCII));
            assertEquals(back, Doubles.parseBound(printed, 0), () -> d + " as a bound");
        }
    }

    private static int order(double a, double b) {
        return a < b ? -1 : a > b ? 1 : 0; // C's comparison, so -0.0 == 0.0
    }

    private static void assertSortableOrder(double a, double b) {
        byte[] ka = new byte[10];
        byte[] kb = new byte[10];
        Doubles.putSortable(ka, 1, a);
        Doubles.putSortable(kb, 1, b);
        int want = order(a, b);
        assertEquals(want, Integer.signum(Long.compareUnsigned(Doubles.sortable(a), Doubles.sortable(b))),
                () -> a + " vs " + b);
        assertEquals(want, Integer.signum(Arrays.compareUnsigned(ka, 1, 9, kb, 1, 9)), () -> a + " vs " + b);
    }

    @Test
    void sortableKeepsTheOrderOfEdgeValues() {
        double[] ascending = {
            Double.NEGATIVE_INFINITY, -Double.MAX_VALUE, -1e300, -2, -1, -Math.nextDown(1.0), -Double.MIN_NORMAL,
            -Math.nextDown(Double.MIN_NORMAL), -2 * Double.MIN_VALUE, -Double.MIN_VALUE, 0.0, Double.MIN_VALUE,
            2 * Double.MIN_VALUE, Math.nextDown(Double.MIN_NORMAL), Double.MIN_NORMAL, 0.5, 1, Math.nextUp(1.0), 2,
            1e300, Double.MAX_VALUE, Double.POSITIVE_INFINITY,
        };
        for (int i = 0; i < ascending.length; i++) {
            for (int j = 0; j < ascending.length; j++) {
                assertSortableOrder(ascending[i], ascending[j]);
            }
            assertEquals(ascending[i], Doubles.fromSortable(Doubles.sortable(ascending[i])));
        }
        assertEquals(Doubles.sortable(0.0), Doubles.sortable(-0.0));
        assertSortableOrder(-0.0, 0.0);
        assertSortableOrder(-0.0, -Double.MIN_VALUE);
        assertSortableOrder(-0.0, Double.MIN_VALUE);
        assertEquals(0L, Double.doubleToRawLongBits(Doubles.fromSortable(Doubles.sortable(-0.0))));
    }

    @Test
    void sortableKeepsTheOrderOfRandomDoubles() {
        Random random = new Random(42);
        double previous = 0;
        for (int i = 0; i < 5000; i++) {
            double d = Double.longBitsToDouble(random.nextLong());
            if (Double.isNaN(d)) {
                continue;
            }
            assertSortableOrder(previous, d);
            assertSortableOrder(d, Math.nextUp(d));
            assertSortableOrder(-d, d);
            double back = Doubles.fromSortable(Doubles.sortable(d));
            assertEquals(Double.doubleToRawLongBits(d), Double.doubleToRawLongBits(back), () -> "key of " + d);
            previous = d;
        }
    }

    @Test
    void putSortableWritesBigEndian() {
        byte[] key = new byte[8];
        Doubles.putSortable(key, 0, 1.0); // 0x3ff0... with the sign bit set
        assertArrayEquals(new byte[] {(byte) 0xbf, (byte) 0xf0, 0, 0, 0, 0, 0, 0}, key);
        Doubles.putSortable(key, 0, Double.NEGATIVE_INFINITY); // ~0xfff0...
        assertArrayEquals(new byte[] {0, 0x0f, -1, -1, -1, -1, -1, -1}, key);
        assertEquals(1.0, Doubles.fromSortable(0xbff0000000000000L));
    }
}
