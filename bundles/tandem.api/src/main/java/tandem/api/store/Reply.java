package tandem.api.store;

import org.osgi.annotation.versioning.ConsumerType;

/**
 * Where a command writes its reply. Each command writes exactly one reply (an array, map or set counts as one).
 *
 * <p>The connection decides the protocol: RESP2, or RESP3 after {@code HELLO 3}. A command writes the RESP3 shape
 * through {@link #map}, {@link #set}, {@link #doubleValue} and {@link #verbatim}; their default methods render the
 * RESP2 shape Redis sends for the same call, so a reply that speaks only RESP2 implements the first seven methods.
 * A reply whose nesting differs between the protocols (Redis' score pairs) asks {@link #protocol()}. A null is
 * written as {@link #nullBulk()} or {@link #nullArray()}, as in RESP2; RESP3 has one null, {@code _}, for both.
 */
@ConsumerType
public interface Reply {

    /** {@code +text}. */
    Reply simple(String text);

    /** {@code -text}; {@code text} starts with the error code ({@code ERR}, {@code WRONGTYPE}…). */
    Reply error(String text);

    /** {@code :value}. */
    Reply integer(long value);

    /** {@code $len bytes}. */
    Reply bulk(byte[] value);

    /** {@code $-1} (RESP3 {@code _}). */
    Reply nullBulk();

    /** {@code *-1} (RESP3 {@code _}). */
    Reply nullArray();

    /** {@code *count}, followed by {@code count} replies. */
    Reply array(int count);

    /**
     * A map of {@code pairs} entries, followed by {@code 2 * pairs} replies, each key before its value: RESP3
     * {@code %pairs}, RESP2 {@code *(2 * pairs)}.
     */
    default Reply map(int pairs) {
        return array(2 * pairs);
    }

    /** A set of {@code count} elements, followed by them: RESP3 {@code ~count}, RESP2 {@code *count}. */
    default Reply set(int count) {
        return array(count);
    }

    /**
     * A double, already formatted as Redis formats it ({@code %.17g}, {@code inf}, {@code -inf}): RESP3
     * {@code ,text}, RESP2 a bulk string of the same text.
     */
    default Reply doubleValue(byte[] text) {
        return bulk(text);
    }

    /** Text for a person to read ({@code INFO}, {@code CLIENT LIST}): RESP3 {@code =len txt:text}, RESP2 a bulk string. */
    default Reply verbatim(byte[] text) {
        return bulk(text);
    }

    /** @return 2 or 3: the protocol the connection speaks */
    default int protocol() {
        return 2;
    }
}
