package tandem.server.acl;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;

import tandem.server.acl.Selector.Refusal;
import tandem.server.acl.Selector.RuleException;

/**
 * One ACL user as Redis 7.0 keeps it: its flags, its password hashes (SHA-256, lowercase hex) and its selectors, the
 * root one first. Changed only on a copy ({@link Acl} replaces the user whole), so that a connection checking a
 * command against it never sees half a change.
 */
public final class User {

    static final int ENABLED = 1;
    static final int DISABLED = 2;
    static final int NOPASS = 4;
    static final int SKIP_SANITIZE = 8;
    static final int SANITIZE = 16;
    /** {@code ACLUserFlags}' names, in the order {@code ACL LIST} writes them. */
    private static final String[] FLAG_NAMES = {"on", "off", "nopass", "skip-sanitize-payload", "sanitize-payload"};

    final String name;
    int flags;
    final List<String> passwords = new ArrayList<>();
    final List<Selector> selectors = new ArrayList<>();
    private final AclCatalog catalog;
    /** Whether new selectors start with every channel ({@code acl-pubsub-default allchannels}). */
    private final boolean allChannelsByDefault;

    User(AclCatalog catalog, String name, boolean allChannelsByDefault) {
        this.catalog = catalog;
        this.name = name;
        this.allChannelsByDefault = allChannelsByDefault;
        this.flags = DISABLED;
        selectors.add(newSelector(Selector.ROOT));
    }

    private Selector newSelector(int flags) {
        return new Selector(catalog, flags | (allChannelsByDefault ? Selector.ALLCHANNELS : 0));
    }

    /** @return a copy with another name ({@code ACLCopyUser}) */
    User copy(String as) {
        User u = new User(catalog, as, allChannelsByDefault);
        u.flags = flags;
        u.passwords.addAll(passwords);
        u.selectors.clear();
        selectors.forEach(s -> u.selectors.add(s.copy()));
        return u;
    }

    public String name() {
        return name;
    }

    Selector root() {
        return selectors.get(0);
    }

    boolean enabled() {
        return (flags & ENABLED) != 0;
    }

    boolean nopass() {
        return (flags & NOPASS) != 0;
    }

    /** @return whether every command, key and channel is allowed: no check is needed */
    boolean unrestricted() {
        for (Selector s : selectors) {
            int all = Selector.ALLCOMMANDS | Selector.ALLKEYS | Selector.ALLCHANNELS;
            if ((s.flags & all) == all) {
                return true;
            }
        }
        return false;
    }

    /** Applies one rule ({@code ACLSetUser}). */
    void apply(String op) throws RuleException {
        if (op.isEmpty()) {
            return;
        }
        String lower = op.toLowerCase(Locale.ROOT);
        switch (lower) {
            case "on" -> flags = (flags | ENABLED) & ~DISABLED;
            case "off" -> flags = (flags | DISABLED) & ~ENABLED;
            case "skip-sanitize-payload" -> flags = (flags | SKIP_SANITIZE) & ~SANITIZE;
            case "sanitize-payload" -> flags = (flags | SANITIZE) & ~SKIP_SANITIZE;
            case "nopass" -> {
                flags |= NOPASS;
                passwords.clear();
            }
            case "resetpass" -> {
                flags &= ~NOPASS;
                passwords.clear();
            }
            case "clearselectors" -> {
                Selector root = root();
                selectors.clear();
                selectors.add(root);
            }
            case "reset" -> {
                apply("resetpass");
                apply("resetkeys");
                apply("resetchannels");
                if (allChannelsByDefault) {
                    apply("allchannels");
                }
                apply("off");
                apply("sanitize-payload");
                apply("clearselectors");
                apply("-@all");
            }
            default -> other(op);
        }
    }

    private void other(String op) throws RuleException {
        char first = op.charAt(0);
        if (first == '>' || first == '#') {
            String hash = first == '>' ? hash(op.substring(1)) : checkedHash(op.substring(1));
            if (!passwords.contains(hash)) {
                passwords.add(hash);
            }
            flags &= ~NOPASS;
        } else if (first == '<' || first == '!') {
            String hash = first == '<' ? hash(op.substring(1)) : checkedHash(op.substring(1));
            if (!passwords.remove(hash)) {
                throw new RuleException(Refusal.NO_SUCH_PASSWORD);
            }
        } else if (first == '(' && op.charAt(op.length() - 1) == ')') {
            Selector s = newSelector(0);
            for (String rule : Acl.splitArgs(op.substring(1, op.length() - 1))) {
                s.apply(rule);
            }
            selectors.add(s);
        } else {
            root().apply(op);
        }
    }

    private static String checkedHash(String hash) throws RuleException {
        if (hash.length() != 64) {
            throw new RuleException(Refusal.BAD_HASH);
        }
        for (int i = 0; i < hash.length(); i++) {
            char c = hash.charAt(i);
            if ((c < 'a' || c > 'f') && (c < '0' || c > '9')) {
                throw new RuleException(Refusal.BAD_HASH);
            }
        }
        return hash;
    }

    /** @return SHA-256 of the password's bytes (ISO-8859-1 characters, one per byte), lowercase hex */
    static String hash(String password) {
        return HexFormat.of().formatHex(sha256(password.getBytes(StandardCharsets.ISO_8859_1)));
    }

    static byte[] sha256(byte[] bytes) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(bytes);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("the JDK has no SHA-256", e);
        }
    }

    /** @return whether {@code password} is one of this user's, compared in constant time */
    boolean passwordMatches(byte[] password) {
        if (nopass()) {
            return true;
        }
        byte[] hashed = HexFormat.of().formatHex(sha256(password)).getBytes(StandardCharsets.US_ASCII);
        boolean match = false;
        for (String p : passwords) {
            match |= MessageDigest.isEqual(hashed, p.getBytes(StandardCharsets.US_ASCII));
        }
        return match;
    }

    /** @return the flags {@code ACL GETUSER} lists, in Redis's order ({@code on}, {@code nopass} …) */
    public List<String> describeFlags() {
        return flagNames();
    }

    List<String> flagNames() {
        List<String> names = new ArrayList<>();
        int[] bits = {ENABLED, DISABLED, NOPASS, SKIP_SANITIZE, SANITIZE};
        for (int i = 0; i < bits.length; i++) {
            if ((flags & bits[i]) != 0) {
                names.add(FLAG_NAMES[i]);
            }
        }
        return names;
    }

    /** {@code ACLDescribeUser}: flags, password hashes, the root selector, then the others in parentheses. */
    String describe() {
        StringBuilder sb = new StringBuilder();
        for (String f : flagNames()) {
            sb.append(f).append(' ');
        }
        for (String p : passwords) {
            sb.append('#').append(p).append(' ');
        }
        for (Selector s : selectors) {
            if ((s.flags & Selector.ROOT) != 0) {
                sb.append(s.describe());
            } else {
                sb.append(" (").append(s.describe()).append(')');
            }
        }
        return sb.toString();
    }
}
