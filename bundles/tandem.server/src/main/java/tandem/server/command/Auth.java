package tandem.server.command;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;

/**
 * The {@code requirepass} check of {@code AUTH} and {@code HELLO … AUTH}, with Redis 7's answers. Tandem has one
 * user, Redis' {@code default}: with no password set it accepts any password for {@code default}, as Redis' nopass
 * default user does.
 */
public final class Auth {

    static final String WRONGPASS = "WRONGPASS invalid username-password pair or user is disabled.";

    private Auth() {
    }

    /**
     * @param requirePass the configured password, or null
     * @param user        the user named, or null for the one-argument {@code AUTH <password>}
     * @return null when the credentials are accepted, else the error reply without its {@code -}
     */
    public static String check(String requirePass, byte[] user, byte[] password) {
        if (user == null && requirePass == null) {
            return "ERR AUTH <password> called without any password configured for the default user. Are you sure "
                    + "your configuration is correct?";
        }
        if (user != null && !"default".equals(new String(user, StandardCharsets.ISO_8859_1))) {
            return WRONGPASS;
        }
        if (requirePass == null) {
            return null;
        }
        // constant time: the comparison must not tell an attacker how much of a guess was right
        return MessageDigest.isEqual(requirePass.getBytes(StandardCharsets.UTF_8), password) ? null : WRONGPASS;
    }

    /** @return the credentials of {@code AUTH [user] password} or of {@code HELLO … AUTH user password}, or null */
    public static byte[][] credentials(byte[][] args) {
        String name = new String(args[0], StandardCharsets.ISO_8859_1);
        if (name.equalsIgnoreCase("auth")) {
            if (args.length == 2) {
                return new byte[][] {null, args[1]};
            }
            return args.length == 3 ? new byte[][] {args[1], args[2]} : null;
        }
        for (int i = 2; i < args.length; i++) {
            String option = new String(args[i], StandardCharsets.ISO_8859_1);
            if (option.equalsIgnoreCase("auth") && i + 2 < args.length) {
                return new byte[][] {args[i + 1], args[i + 2]};
            } else if (option.equalsIgnoreCase("setname")) {
                i++;
            } else {
                return null;
            }
        }
        return null;
    }
}
