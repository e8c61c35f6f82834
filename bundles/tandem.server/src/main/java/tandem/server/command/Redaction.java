package tandem.server.command;

import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Set;

/**
 * Hides secrets in a request before it is kept anywhere (the slow log), as Redis'
 * {@code redactClientCommandArgument} does: every argument of {@code AUTH}, the user and password after
 * {@code HELLO … AUTH} and after MIGRATE's {@code AUTH}/{@code AUTH2}, every argument of {@code ACL SETUSER} after
 * the subcommand (passwords are among its rules), and the value of a sensitive parameter in {@code CONFIG SET}.
 */
public final class Redaction {

    private static final byte[] REDACTED = "(redacted)".getBytes(StandardCharsets.US_ASCII);
    private static final Set<String> SENSITIVE = Set.of("requirepass", "masterauth", "masteruser", "tls-key-file-pass", "tls-client-key-file-pass");

    private Redaction() {
    }

    /** @return {@code args} itself when it holds no secret, else a copy with the secrets replaced */
    public static byte[][] redact(byte[][] args) {
        if (args.length < 2) {
            return args;
        }
        String name = lower(args[0]);
        byte[][] out = null;
        switch (name) {
            case "auth" -> {
                out = args.clone();
                for (int i = 1; i < out.length; i++) {
                    out[i] = REDACTED;
                }
            }
            case "hello" -> {
                for (int i = 2; i < args.length; i++) {
                    if (lower(args[i]).equals("auth") && i + 2 < args.length) {
                        out = out == null ? args.clone() : out;
                        out[i + 1] = REDACTED;
                        out[i + 2] = REDACTED;
                        i += 2;
                    }
                }
            }
            case "config" -> {
                if (lower(args[1]).equals("set")) {
                    for (int i = 2; i + 1 < args.length; i += 2) {
                        if (SENSITIVE.contains(lower(args[i]))) {
                            out = out == null ? args.clone() : out;
                            out[i + 1] = REDACTED;
                        }
                    }
                }
            }
            case "acl" -> {
                if (lower(args[1]).equals("setuser")) {
                    out = args.clone();
                    for (int i = 2; i < out.length; i++) {
                        out[i] = REDACTED; // the user's name too, as Redis redacts every argument after SETUSER
                    }
                }
            }
            case "migrate" -> {
                // MIGRATE host port key db timeout [COPY] [REPLACE] [AUTH pw] [AUTH2 user pw] [KEYS key...]
                for (int i = 6; i < args.length; i++) {
                    String option = lower(args[i]);
                    int secrets = option.equals("auth") ? 1 : option.equals("auth2") ? 2 : 0;
                    if (option.equals("keys")) {
                        break;
                    }
                    for (int j = 1; j <= secrets && i + j < args.length; j++) {
                        out = out == null ? args.clone() : out;
                        out[i + j] = REDACTED;
                    }
                    i += secrets;
                }
            }
            default -> {
            }
        }
        return out == null ? args : out;
    }

    private static String lower(byte[] b) {
        return new String(b, StandardCharsets.ISO_8859_1).toLowerCase(Locale.ROOT);
    }
}
