package tandem.protocol.config;

import java.net.InetAddress;

import tandem.protocol.net.IpLiteral;

/**
 * The checks of one configuration PID's properties, with the one wording every component's settings use: an error
 * names the PID, the property and the refused value, then why, as in
 * {@code tandem.store: scan.cursors=0 is invalid: must be between 1 and 1000000}, so that an operator who mistypes
 * a line of {@code etc/<pid>.cfg} reads which one. Tests and the operator guide quote these messages.
 */
public final class PropertyCheck {

    private final String pid;

    /** @param pid the configuration PID every error names */
    public PropertyCheck(String pid) {
        this.pid = pid;
    }

    /** @return the PID every error names */
    public String pid() {
        return pid;
    }

    /**
     * @param value the value as configured, or as the operator wrote it
     * @param why   what the value must be, or what is wrong with it
     * @return the error refusing {@code property=value}: {@code <pid>: <property>=<value> is invalid: <why>}
     */
    public IllegalArgumentException invalid(String property, String value, String why) {
        return new IllegalArgumentException(pid + ": " + property + "=" + value + " is invalid: " + why);
    }

    /**
     * @return {@code value}
     * @throws IllegalArgumentException {@code must be between <min> and <max>} unless {@code min <= value <= max}
     */
    public int range(String property, int value, int min, int max) {
        return (int) range(property, (long) value, min, max);
    }

    /**
     * @return {@code value}
     * @throws IllegalArgumentException {@code must be between <min> and <max>} unless {@code min <= value <= max}
     */
    public long range(String property, long value, long min, long max) {
        if (value < min || value > max) {
            throw invalid(property, Long.toString(value), "must be between " + min + " and " + max);
        }
        return value;
    }

    /**
     * Accepts an IP address literal only: a host name would need a lookup, and a node must never depend on DNS.
     *
     * @return the address
     * @throws IllegalArgumentException naming the property, with {@link IpLiteral#parse}'s reason
     */
    public InetAddress ipLiteral(String property, String text) {
        try {
            return IpLiteral.parse(text);
        } catch (IllegalArgumentException e) {
            throw invalid(property, text, e.getMessage());
        }
    }
}
