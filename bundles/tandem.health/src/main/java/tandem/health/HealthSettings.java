package tandem.health;

/** The health endpoint's configuration: its PID and the checks of its values. */
final class HealthSettings {

    static final String PID = "tandem.health";

    private HealthSettings() {
    }

    /** @throws IllegalArgumentException naming the property that is wrong */
    static void validate(HttpEndpoint.Config c) {
        if (c.port() < -1 || c.port() > 65535) {
            throw new IllegalArgumentException("tandem.health: port must be 1..65535, 0 (the RESP port + 3000) or -1 "
                    + "(off), not " + c.port());
        }
        if (c.threads() < 4 || c.threads() > 64) {
            throw new IllegalArgumentException("tandem.health: threads must be 4..64, not " + c.threads());
        }
        try {
            tandem.protocol.net.IpLiteral.parse(c.bind());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("tandem.health: bind '" + c.bind() + "' " + e.getMessage());
        }
    }
}
