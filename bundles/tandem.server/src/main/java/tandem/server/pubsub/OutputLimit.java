package tandem.server.pubsub;

/**
 * Redis' {@code client-output-buffer-limit} of one client class: a subscriber whose unsent output reaches
 * {@code hardBytes} is disconnected at once, one that stays at or over {@code softBytes} for {@code softSeconds} is
 * disconnected then. 0 turns a limit off.
 */
public record OutputLimit(long hardBytes, long softBytes, int softSeconds) {

    /** Redis' default for the {@code pubsub} class: 32mb 8mb 60. */
    public static final OutputLimit PUBSUB_DEFAULT = new OutputLimit(32L << 20, 8L << 20, 60);

    /**
     * @param value the parameter as {@code CONFIG GET} renders it:
     *              {@code normal 0 0 0 slave 268435456 67108864 60 pubsub 33554432 8388608 60}
     * @return the limit of the {@code pubsub} class
     */
    public static OutputLimit pubsub(String value) {
        String[] f = value.split(" ");
        for (int i = 0; i + 3 < f.length; i += 4) {
            if (f[i].equals("pubsub")) {
                return new OutputLimit(Long.parseUnsignedLong(f[i + 1]), Long.parseUnsignedLong(f[i + 2]),
                        Integer.parseInt(f[i + 3]));
            }
        }
        throw new IllegalArgumentException("no pubsub class in client-output-buffer-limit: " + value);
    }

    /** @return why a client with {@code bytes} unsent and over the soft limit since {@code overSinceNanos} goes */
    String exceeded(long bytes, long overSinceNanos, long nowNanos) {
        if (hardBytes > 0 && Long.compareUnsigned(bytes, hardBytes) >= 0) {
            return "output buffer of " + bytes + " bytes reached the pubsub hard limit of " + hardBytes;
        }
        if (softBytes > 0 && overSinceNanos != 0 && nowNanos - overSinceNanos > softSeconds * 1_000_000_000L) {
            return "output buffer of " + bytes + " bytes stayed over the pubsub soft limit of " + softBytes + " for "
                    + softSeconds + " s";
        }
        return null;
    }

    /** @return whether {@code bytes} are at or over the soft limit */
    boolean overSoft(long bytes) {
        return softBytes > 0 && Long.compareUnsigned(bytes, softBytes) >= 0;
    }
}
