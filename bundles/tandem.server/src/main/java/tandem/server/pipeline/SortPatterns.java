package tandem.server.pipeline;

import java.nio.charset.StandardCharsets;

import tandem.server.acl.Acl;
import tandem.server.acl.AclCatalog;
import tandem.server.acl.User;

/**
 * SORT's {@code BY} and {@code GET} patterns name keys the key specs do not: Redis allows them only to a user who may
 * read every key ({@code sortCommandGeneric}), and refuses the first one it meets while it parses the options, with
 * its own error. The same parse, stopped where Redis's would stop with another error.
 */
final class SortPatterns {

    private SortPatterns() {
    }

    /** @return Redis's refusal of a BY or GET pattern {@code user} may not use, or null */
    static String refusal(Acl acl, User user, AclCatalog.Cmd cmd, byte[][] args) {
        boolean readonly = cmd.fullName().equals("sort_ro");
        Boolean full = null;
        for (int j = 2; j < args.length; j++) {
            int left = args.length - j - 1;
            String option = new String(args[j], StandardCharsets.ISO_8859_1);
            if (option.equalsIgnoreCase("asc") || option.equalsIgnoreCase("desc")
                    || option.equalsIgnoreCase("alpha")) {
                continue;
            }
            if (option.equalsIgnoreCase("limit") && left >= 2) {
                if (!integer(args[j + 1]) || !integer(args[j + 2])) {
                    return null; // SORT answers its own error first
                }
                j += 2;
            } else if (!readonly && option.equalsIgnoreCase("store") && left >= 1) {
                j++;
            } else if (option.equalsIgnoreCase("by") && left >= 1) {
                if (new String(args[j + 1], StandardCharsets.ISO_8859_1).indexOf('*') >= 0) {
                    full = full != null ? full : acl.unrestrictedKeys(user, cmd, args, 1);
                    if (!full) {
                        return "ERR BY option of SORT denied due to insufficient ACL permissions.";
                    }
                }
                j++;
            } else if (option.equalsIgnoreCase("get") && left >= 1) {
                full = full != null ? full : acl.unrestrictedKeys(user, cmd, args, 1);
                if (!full) {
                    return "ERR GET option of SORT denied due to insufficient ACL permissions.";
                }
                j++;
            } else {
                return null;
            }
        }
        return null;
    }

    private static boolean integer(byte[] b) {
        try {
            Long.parseLong(new String(b, StandardCharsets.ISO_8859_1));
            return true;
        } catch (NumberFormatException e) {
            return false;
        }
    }
}
