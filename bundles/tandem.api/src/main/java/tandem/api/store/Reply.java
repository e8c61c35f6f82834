package tandem.api.store;

import org.osgi.annotation.versioning.ConsumerType;

/** Where a command writes its RESP2 reply. Each command writes exactly one reply (an array counts as one). */
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

    /** {@code $-1}. */
    Reply nullBulk();

    /** {@code *-1}. */
    Reply nullArray();

    /** {@code *count}, followed by {@code count} replies. */
    Reply array(int count);
}
