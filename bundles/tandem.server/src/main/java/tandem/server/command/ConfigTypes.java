package tandem.server.command;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Pattern;

import tandem.protocol.command.String2ll;

/**
 * How Redis 7.0.15 reads the value {@code CONFIG SET} gives each kind of parameter and renders it for
 * {@code CONFIG GET}: the parsing, bounds and error texts of {@code config.c} and its helpers ({@code memtoull},
 * {@code strtoll}, {@code string2d}, {@code sdssplitlen}), quirks included, because clients and test suites compare
 * these replies byte for byte. Values travel as the ISO-8859-1 characters of the request's bytes; where Redis reads
 * a C string, the value ends at its first NUL here too.
 */
final class ConfigTypes {

    /** A parameter's value rule. */
    @FunctionalInterface
    interface Type {

        /**
         * @param raw     the value as {@code CONFIG SET} received it
         * @param current the parameter's value now, as rendered: client-output-buffer-limit changes only the
         *                classes it names
         * @return the new value as {@code CONFIG GET} renders it
         * @throws Refused with Redis' reason
         */
        String set(String raw, String current) throws Refused;
    }

    /** A value Redis refuses; the message is the text after {@code CONFIG SET failed (…) - }. */
    static final class Refused extends Exception {

        private static final long serialVersionUID = 1L;

        Refused(String reason) {
            super(reason, null, false, false);
        }
    }

    /** Redis' {@code numericConfig} flags: how the value is read, and how its bounds are checked. */
    static final int MEMORY = 1;
    static final int PERCENT = 2;
    /** The bounds check of unsigned C types ({@code unsigned int}, {@code size_t}, {@code unsigned long long}). */
    static final int UNSIGNED = 4;

    static final long INT_MAX = Integer.MAX_VALUE;
    static final long INT_MIN = Integer.MIN_VALUE;
    static final long UINT_MAX = 0xFFFF_FFFFL;
    static final long LONG_MAX = Long.MAX_VALUE;
    /** {@code ULLONG_MAX}, as the bits of a long. */
    static final long ULLONG_MAX = -1L;

    /** {@code yes} or {@code no}, in any case. */
    static final Type BOOL = (raw, current) -> switch (lower(cString(raw))) {
        case "yes" -> "yes";
        case "no" -> "no";
        default -> throw new Refused("argument must be 'yes' or 'no'");
    };

    /** A string config: stored as a C string. */
    static final Type STRING = (raw, current) -> cString(raw);

    /** An sds config ({@code requirepass}, {@code masterauth}): every byte is kept. */
    static final Type SDS = (raw, current) -> raw;

    private ConfigTypes() {
    }

    /** A numeric config read with {@code string2ll}, checked as a signed C type. */
    static Type integer(long lower, long upper) {
        return number(lower, upper, 0);
    }

    /**
     * Redis' numeric configs: {@code numericParseString} (a memory value with a unit, a percentage stored negated,
     * or a plain {@code string2ll} integer), {@code numericBoundaryCheck}, then {@code numericConfigGet}.
     */
    static Type number(long lower, long upper, int flags) {
        return (raw, current) -> {
            long value = parseNumber(raw, flags);
            if ((flags & UNSIGNED) != 0) {
                if (Long.compareUnsigned(value, upper) > 0 || Long.compareUnsigned(value, lower) < 0) {
                    throw new Refused("argument must be between " + Long.toUnsignedString(lower) + " and "
                            + Long.toUnsignedString(upper) + " inclusive");
                }
            } else if ((flags & PERCENT) != 0 && value < 0) {
                // a huge memory value wraps negative in Redis too, and is then judged as a percentage
                if (value < lower) {
                    throw new Refused("percentage argument must be less or equal to " + -lower);
                }
            } else if (value > upper || value < lower) {
                throw new Refused("argument must be between " + lower + " and " + upper + " inclusive");
            }
            if ((flags & PERCENT) != 0 && value < 0) {
                return -value + "%";
            }
            return (flags & MEMORY) != 0 ? Long.toUnsignedString(value) : Long.toString(value);
        };
    }

    private static long parseNumber(String raw, int flags) throws Refused {
        if ((flags & MEMORY) != 0) {
            Long bytes = memtoull(raw);
            if (bytes != null) {
                return bytes;
            }
        }
        if ((flags & PERCENT) != 0 && raw.length() > 1 && raw.endsWith("%")) {
            Long percent = string2ll(raw.substring(0, raw.length() - 1));
            if (percent != null && percent >= 0) {
                return -percent;
            }
        }
        if ((flags & (MEMORY | PERCENT)) == 0) {
            Long plain = string2ll(raw);
            if (plain != null) {
                return plain;
            }
        }
        throw new Refused((flags & PERCENT) != 0 ? "argument must be a memory or percent value"
                : (flags & MEMORY) != 0 ? "argument must be a memory value"
                : "argument couldn't be parsed into an integer");
    }

    /**
     * An enum config; {@code names[i]} stands for {@code values[i]}. Several names may share a value: the first
     * one renders it ({@code oom-score-adj relative} reads back {@code yes}).
     *
     * @param flags a bit set (multi-argument enum): the value is a space-separated list of names whose values are
     *              or-ed, and renders as the fewest names that make it up
     */
    static Type choices(String[] names, int[] values, boolean flags) {
        String refusal = truncate("argument(s) must be one of the following: " + String.join(", ", names), 255);
        return (raw, current) -> {
            List<String> args = flags ? split(raw) : List.of(raw);
            if (args.isEmpty()) {
                throw new Refused(refusal);
            }
            int value = 0;
            for (String arg : args) {
                int i = indexOf(names, lower(cString(arg)));
                if (i < 0) {
                    throw new Refused(refusal);
                }
                value |= values[i];
            }
            return flags ? flagNames(names, values, value) : names[indexOf(values, value)];
        };
    }

    /** An enum whose names stand for their positions. */
    static Type oneOf(String... names) {
        int[] values = new int[names.length];
        Arrays.setAll(values, i -> i);
        return choices(names, values, false);
    }

    /** {@code configEnumGetName} for a bit set: an exact name first, else the names of its bits in table order. */
    private static String flagNames(String[] names, int[] values, int value) {
        int exact = indexOf(values, value);
        if (exact >= 0) {
            return names[exact];
        }
        List<String> parts = new ArrayList<>();
        int unmatched = value;
        for (int i = 0; i < names.length; i++) {
            if (values[i] != 0 && values[i] == (unmatched & values[i])) {
                parts.add(names[i]);
                unmatched &= ~values[i];
            }
        }
        return unmatched != 0 ? "unknown" : String.join(" ", parts);
    }

    /** Redis' {@code is_valid_fn}: a check of the value as it would be rendered. */
    @FunctionalInterface
    interface Check {

        /** @return null when valid, else Redis' reason */
        String refusal(String value);
    }

    static Type validated(Type type, Check check) {
        return (raw, current) -> {
            String value = type.set(raw, current);
            String refusal = check.refusal(value);
            if (refusal != null) {
                throw new Refused(refusal);
            }
            return value;
        };
    }

    /** {@code activedefrag}: Debian's Redis is built without the modified jemalloc, and Tandem has no defrag. */
    static final Type ACTIVEDEFRAG = validated(BOOL, value -> value.equals("yes") ? "Active defragmentation cannot "
            + "be enabled: it requires a Redis server compiled with a modified Jemalloc like the one shipped by "
            + "default with the Redis source distribution" : null);

    /** {@code shutdown-on-sigint}, {@code shutdown-on-sigterm}: a set of flags, not both save and nosave. */
    static final Type SHUTDOWN_FLAGS = validated(
            choices(new String[] {"default", "save", "nosave", "now", "force"}, new int[] {0, 1, 2, 4, 8}, true),
            value -> split(value).containsAll(List.of("save", "nosave"))
                    ? "shutdown options SAVE and NOSAVE can't be used simultaneously" : null);

    /** {@code cluster-announce-hostname}: {@code isValidAnnouncedHostname}. */
    static final Type HOSTNAME = validated(STRING, value -> {
        if (value.length() >= 256) {
            return "Hostnames must be less than 256 characters";
        }
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (!(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '.')) {
                return "Hostnames may only contain alphanumeric characters, hyphens or dots";
            }
        }
        return null;
    });

    /**
     * {@code proc-title-template}: {@code validateProcTitleTemplate} expands the template with an empty title and
     * refuses a syntax error, an unknown variable, or a result that is empty once spaces are trimmed. Only
     * {@code {title}}, {@code {server-mode}} (outside a cluster) and {@code {unixsocket}} (none) expand to nothing.
     */
    static final Type PROC_TITLE_TEMPLATE = validated(STRING, value -> {
        final String invalid = "template format is invalid or contains unknown variables";
        List<String> empty = List.of("title", "server-mode", "unixsocket");
        List<String> known = List.of("title", "listen-addr", "server-mode", "config-file", "port", "tls-port",
                "unixsocket");
        StringBuilder text = new StringBuilder();
        boolean content = false;
        int p = 0;
        while (p < value.length()) {
            int open = value.indexOf('{', p);
            if (open < 0) {
                text.append(value, p, value.length());
                break;
            }
            text.append(value, p, open);
            if (open + 1 == value.length()) {
                return invalid;
            }
            if (value.charAt(open + 1) == '{') {
                text.append('{');
                p = open + 2;
                continue;
            }
            int close = value.indexOf('}', open + 1);
            if (close < 0) {
                return invalid;
            }
            String variable = value.substring(open + 1, close);
            if (!known.contains(variable)) {
                return invalid;
            }
            content |= !empty.contains(variable);
            p = close + 1;
        }
        return content || !text.toString().replace(" ", "").isEmpty() ? null : invalid;
    });

    /** {@code save}: pairs of seconds (at least 1) and changes (at least 0), read with {@code strtoll}. */
    static final Type SAVE = (raw, current) -> {
        List<String> args = split(raw);
        if (args.size() % 2 != 0) {
            throw new Refused("Invalid save parameters");
        }
        List<String> out = new ArrayList<>();
        for (int j = 0; j < args.size(); j++) {
            CLong n = strtoll(cString(args.get(j)));
            if (!n.whole() || (j % 2 == 0 && n.value() < 1) || (j % 2 == 1 && n.value() < 0)) {
                throw new Refused("Invalid save parameters");
            }
            // seconds is a time_t, changes an int
            out.add(j % 2 == 0 ? Long.toString(n.value()) : Integer.toString((int) n.value()));
        }
        return String.join(" ", out);
    };

    /**
     * {@code client-output-buffer-limit}: groups of {@code <class> <hard> <soft> <seconds>} that replace the limits
     * of the classes they name; every class is rendered.
     */
    static final Type CLIENT_OUTPUT_BUFFER_LIMIT = (raw, current) -> {
        List<String> args = split(raw);
        if (args.size() % 4 != 0) {
            throw new Refused("Wrong number of arguments in buffer limit configuration.");
        }
        String[] limits = current.split(" ");
        for (int j = 0; j < args.size(); j += 4) {
            int position = switch (lower(cString(args.get(j)))) {
                case "normal" -> 0;
                case "slave", "replica" -> 4;
                case "pubsub" -> 8;
                default -> throw new Refused("Invalid client class specified in buffer limit configuration.");
            };
            Long hard = memtoull(args.get(j + 1));
            Long soft = memtoull(args.get(j + 2));
            CLong parsed = strtoll(cString(args.get(j + 3)));
            int seconds = (int) parsed.value(); // Redis keeps it in an int before it checks the sign
            if (hard == null || soft == null || seconds < 0 || !parsed.whole()) {
                throw new Refused("Error in hard, soft or soft_seconds setting in buffer limit configuration.");
            }
            limits[position + 1] = Long.toUnsignedString(hard);
            limits[position + 2] = Long.toUnsignedString(soft);
            limits[position + 3] = Integer.toString(seconds);
        }
        return String.join(" ", limits);
    };

    /** {@code oom-score-adj-values}: three integers within -2000..2000. */
    static final Type OOM_SCORE_ADJ_VALUES = (raw, current) -> {
        List<String> args = split(raw);
        if (args.size() != 3) {
            throw new Refused("wrong number of arguments");
        }
        List<String> out = new ArrayList<>();
        for (String arg : args) {
            CLong n = strtoll(cString(arg));
            if (!n.whole() || n.value() < -2000 || n.value() > 2000) {
                throw new Refused("Invalid oom-score-adj-values, elements must be between -2000 and 2000.");
            }
            out.add(Long.toString(n.value()));
        }
        return String.join(" ", out);
    };

    private static final String EVENT_CLASSES = "Ag$lshzxeKEtmdn";
    /** The bit of each class in {@link #EVENT_CLASSES}, as {@code NOTIFY_*}; {@code A} is every class but m, n. */
    private static final int[] EVENT_BITS = {0x27FC, 1 << 2, 1 << 3, 1 << 4, 1 << 5, 1 << 6, 1 << 7, 1 << 8, 1 << 9,
        1, 1 << 1, 1 << 10, 1 << 11, 1 << 13, 1 << 14};
    /** {@code keyspaceEventsFlagsToString}'s order, after {@code A} or in its place. */
    private static final String EVENT_ORDER = "g$lshzxetdn";

    /**
     * {@code keyspaceEventsStringToFlags}: the classes of a {@code notify-keyspace-events} value as
     * {@code NOTIFY_*} bits ({@link tandem.api.store.KeyspaceEvents}), or -1 when a character is no class.
     */
    static int keyspaceEventFlags(String value) {
        String classes = cString(value);
        int flags = 0;
        for (int i = 0; i < classes.length(); i++) {
            int c = EVENT_CLASSES.indexOf(classes.charAt(i));
            if (c < 0) {
                return -1;
            }
            flags |= EVENT_BITS[c];
        }
        return flags;
    }

    /** {@code notify-keyspace-events}: {@code keyspaceEventsStringToFlags}, then its reverse. */
    static final Type KEYSPACE_EVENTS = (raw, current) -> {
        int flags = keyspaceEventFlags(raw);
        if (flags < 0) {
            throw new Refused("Invalid event class character. Use 'Ag$lshzxeKEtmdn'.");
        }
        StringBuilder out = new StringBuilder();
        int all = EVENT_BITS[0];
        if ((flags & all) == all) {
            out.append('A'); // n, when set, is not shown after A: Redis' own rendering
        } else {
            for (char c : EVENT_ORDER.toCharArray()) {
                if ((flags & EVENT_BITS[EVENT_CLASSES.indexOf(c)]) != 0) {
                    out.append(c);
                }
            }
        }
        for (char c : "KEm".toCharArray()) {
            if ((flags & EVENT_BITS[EVENT_CLASSES.indexOf(c)]) != 0) {
                out.append(c);
            }
        }
        return out.toString();
    };

    /** {@code bind}: up to 16 addresses, as given. */
    static final Type BIND = (raw, current) -> {
        List<String> args = split(raw);
        if (args.size() > 16) {
            throw new Refused("Too many bind addresses specified.");
        }
        return String.join(" ", args.stream().map(ConfigTypes::cString).toList());
    };

    /** {@code latency-tracking-info-percentiles}: doubles read by {@code string2d}, within 0..100, printed as %f. */
    static final Type PERCENTILES = (raw, current) -> {
        List<String> out = new ArrayList<>();
        for (String arg : split(raw)) {
            Double percentile = string2d(arg);
            if (percentile == null) {
                throw new Refused("Invalid latency-tracking-info-percentiles parameters");
            }
            if (percentile > 100.0 || percentile < 0.0) {
                throw new Refused("latency-tracking-info-percentiles parameters should sit between [0.0,100.0]");
            }
            out.add(percentile(percentile));
        }
        return String.join(" ", out);
    };

    /** C's {@code "%f"} (the exact binary value rounded half to even, as glibc does), then trailing zeros trimmed. */
    private static String percentile(double value) {
        String fixed = Double.doubleToRawLongBits(value) == Long.MIN_VALUE ? "-0.000000"
                : new BigDecimal(value).setScale(6, RoundingMode.HALF_EVEN).toPlainString();
        String trimmed = fixed.replaceAll("0+$", "");
        return trimmed.endsWith(".") ? trimmed.substring(0, trimmed.length() - 1) : trimmed;
    }

    // ---- Redis' and libc's helpers -----------------------------------------------------------------------------

    /** {@code sdssplitlen(value, len, " ", 1)}: every single space separates, so two spaces make an empty item. */
    static List<String> split(String raw) {
        return raw.isEmpty() ? List.of() : Arrays.asList(raw.split(" ", -1));
    }

    /** The value as C's string functions see it: up to its first NUL. */
    static String cString(String s) {
        int nul = s.indexOf('\0');
        return nul < 0 ? s : s.substring(0, nul);
    }

    /** {@code strcasecmp}'s folding: ASCII letters only. */
    static String lower(String s) {
        StringBuilder sb = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            sb.append(c >= 'A' && c <= 'Z' ? (char) (c + 32) : c);
        }
        return sb.toString();
    }

    private static Long string2ll(String s) {
        try {
            return String2ll.parse(s.getBytes(StandardCharsets.ISO_8859_1));
        } catch (NumberFormatException e) {
            return null;
        }
    }

    /**
     * Redis' {@code memtoull}: digits then an optional unit (b, k, kb, m, mb, g, gb in any case), or null. No
     * digits read as 0, an overflow as {@code ULLONG_MAX}, and the product wraps, all as in Redis.
     */
    static Long memtoull(String raw) {
        String p = cString(raw);
        if (p.startsWith("-")) {
            return null;
        }
        int u = 0;
        while (u < p.length() && p.charAt(u) >= '0' && p.charAt(u) <= '9') {
            u++;
        }
        long multiplier = switch (lower(p.substring(u))) {
            case "", "b" -> 1;
            case "k" -> 1000;
            case "kb" -> 1024;
            case "m" -> 1000 * 1000;
            case "mb" -> 1024 * 1024;
            case "g" -> 1000L * 1000 * 1000;
            case "gb" -> 1024L * 1024 * 1024;
            default -> -1;
        };
        if (multiplier < 0 || u >= 128) {
            return null;
        }
        long value = 0;
        for (int i = 0; i < u; i++) {
            int d = p.charAt(i) - '0';
            if (Long.compareUnsigned(value, Long.divideUnsigned(ULLONG_MAX - d, 10)) > 0) {
                value = ULLONG_MAX; // strtoull saturates
                break;
            }
            value = value * 10 + d;
        }
        return value * multiplier;
    }

    /** What C's {@code strtoll(s, &end, 10)} gives: the value, and whether {@code *end} is the terminating NUL. */
    record CLong(long value, boolean whole) {
    }

    /** C's {@code strtoll} in base 10: white space, a sign, digits; saturates on overflow. */
    static CLong strtoll(String s) {
        int i = 0;
        while (i < s.length() && " \t\n\u000b\f\r".indexOf(s.charAt(i)) >= 0) {
            i++;
        }
        boolean negative = false;
        if (i < s.length() && (s.charAt(i) == '+' || s.charAt(i) == '-')) {
            negative = s.charAt(i) == '-';
            i++;
        }
        int start = i;
        long v = 0; // accumulated negative, so that LLONG_MIN fits
        boolean overflow = false;
        for (; i < s.length() && s.charAt(i) >= '0' && s.charAt(i) <= '9'; i++) {
            int d = s.charAt(i) - '0';
            if (overflow || v < (Long.MIN_VALUE + d) / 10) {
                overflow = true;
            } else {
                v = v * 10 - d;
            }
        }
        if (i == start) {
            return new CLong(0, s.isEmpty()); // no conversion: end is the start of the string
        }
        long value = negative ? (overflow ? Long.MIN_VALUE : v)
                : (overflow || v == Long.MIN_VALUE ? Long.MAX_VALUE : -v);
        return new CLong(value, i == s.length());
    }

    private static final Pattern DECIMAL = Pattern.compile("[+-]?(\\d+\\.?\\d*|\\.\\d+)([eE][+-]?\\d+)?");
    private static final Pattern HEXADECIMAL =
            Pattern.compile("[+-]?0[xX]([0-9a-fA-F]+\\.?[0-9a-fA-F]*|\\.[0-9a-fA-F]+)([pP][+-]?\\d+)?");
    private static final Pattern INFINITY = Pattern.compile("[+-]?(?i:inf|infinity)");

    /**
     * Redis' {@code string2d}: {@code strtod} must read the whole value, which must not start with a space, be NaN,
     * overflow, or underflow to zero; an infinity spelled out is a value.
     *
     * @return the value, or null when refused
     */
    static Double string2d(String s) {
        if (INFINITY.matcher(s).matches()) {
            return s.startsWith("-") ? Double.NEGATIVE_INFINITY : Double.POSITIVE_INFINITY;
        }
        double value;
        String mantissa;
        if (DECIMAL.matcher(s).matches()) {
            value = Double.parseDouble(s);
            mantissa = s.split("[eE]")[0];
        } else if (HEXADECIMAL.matcher(s).matches()) {
            value = Double.parseDouble(s.matches(".*[pP].*") ? s : s + "p0");
            mantissa = s.substring(Math.max(s.indexOf('x'), s.indexOf('X')) + 1).split("[pP]")[0];
        } else {
            return null;
        }
        boolean zeroMantissa = mantissa.chars().allMatch(c -> c == '0' || c == '.' || c == '+' || c == '-');
        if (Double.isInfinite(value) || (value == 0 && !zeroMantissa)) {
            return null; // ERANGE
        }
        return value;
    }

    private static int indexOf(String[] names, String name) {
        return Arrays.asList(names).indexOf(name);
    }

    private static int indexOf(int[] values, int value) {
        for (int i = 0; i < values.length; i++) {
            if (values[i] == value) {
                return i;
            }
        }
        return -1;
    }

    private static String truncate(String s, int max) {
        return s.length() <= max ? s : s.substring(0, max);
    }
}
