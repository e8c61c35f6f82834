package tandem.server.acl;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import tandem.protocol.command.Glob;
import tandem.server.acl.AclCatalog.Cmd;
import tandem.server.command.RedisCommandTable;

/**
 * One set of permissions of a user, as Redis 7.0's {@code aclSelector}: the commands it may run (a bit per command id,
 * and first arguments allowed of a command otherwise denied), the keys it may read or write, the channels it may use.
 * A user has its root selector and any number of others in parentheses; a command is allowed when one of them allows
 * it. Strings are ISO-8859-1, one character per byte, as the client sent them.
 */
final class Selector {

    static final int ALLKEYS = 1;
    static final int ALLCHANNELS = 2;
    static final int ALLCOMMANDS = 4;
    static final int ROOT = 8;

    static final int READ = 1;
    static final int WRITE = 2;
    static final int ALL = READ | WRITE;

    /** A key pattern and whether it grants reading, writing or both. */
    static final class KeyPattern {
        final String pattern;
        int flags;

        KeyPattern(String pattern, int flags) {
            this.pattern = pattern;
            this.flags = flags;
        }

        String describe() {
            return switch (flags) {
                case ALL -> "~" + pattern;
                case READ -> "%R~" + pattern;
                case WRITE -> "%W~" + pattern;
                default -> "%RW~" + pattern; // not reached: READ | WRITE is ALL
            };
        }
    }

    /** Why a rule was refused: Redis's {@code errno}, whose message {@link #message} gives. */
    enum Refusal {
        UNKNOWN("Unknown command or category name in ACL"),
        SYNTAX("Syntax error"),
        KEYS_AFTER_ALL("Adding a pattern after the * pattern (or the 'allkeys' flag) is not valid and does not have "
                + "any effect. Try 'resetkeys' to start with an empty list of patterns"),
        CHANNELS_AFTER_ALL("Adding a pattern after the * pattern (or the 'allchannels' flag) is not valid and does "
                + "not have any effect. Try 'resetchannels' to start with an empty list of channels"),
        NO_SUCH_PASSWORD("The password you are trying to remove from the user does not exist"),
        BAD_HASH("The password hash must be exactly 64 characters and contain only lowercase hexadecimal characters"),
        SUBCOMMAND_FIRST_ARG("Allowing first-arg of a subcommand is not supported"),
        FORMAT("Wrong format");

        final String message;

        Refusal(String message) {
            this.message = message;
        }
    }

    /** Refused rule, with Redis's reason. */
    static final class RuleException extends Exception {
        final Refusal refusal;

        RuleException(Refusal refusal) {
            super(refusal.message, null, false, false);
            this.refusal = refusal;
        }
    }

    private final AclCatalog catalog;
    int flags;
    /** The commands allowed, by id. */
    final BitSet allowed;
    /** Set by {@code +@all}, cleared by {@code -@all} only: Redis's reserved bit for commands loaded later. */
    boolean future;
    /** First arguments allowed of a command whose bit is clear, by command id; null when none. */
    Map<Integer, List<String>> firstArgs;
    final List<KeyPattern> patterns = new ArrayList<>();
    final List<String> channels = new ArrayList<>();

    Selector(AclCatalog catalog, int flags) {
        this.catalog = catalog;
        this.flags = flags;
        this.allowed = new BitSet(catalog.size());
    }

    Selector copy() {
        Selector s = new Selector(catalog, flags);
        s.allowed.or(allowed);
        s.future = future;
        if (firstArgs != null) {
            s.firstArgs = new HashMap<>();
            firstArgs.forEach((id, args) -> s.firstArgs.put(id, new ArrayList<>(args)));
        }
        patterns.forEach(p -> s.patterns.add(new KeyPattern(p.pattern, p.flags)));
        s.channels.addAll(channels);
        return s;
    }

    /** Applies one rule ({@code ACLSetSelector}). */
    void apply(String op) throws RuleException {
        String lower = op.toLowerCase(Locale.ROOT);
        if (lower.equals("allkeys") || op.equals("~*")) {
            flags |= ALLKEYS;
            patterns.clear();
        } else if (lower.equals("resetkeys")) {
            flags &= ~ALLKEYS;
            patterns.clear();
        } else if (lower.equals("allchannels") || op.equals("&*")) {
            flags |= ALLCHANNELS;
            channels.clear();
        } else if (lower.equals("resetchannels")) {
            flags &= ~ALLCHANNELS;
            channels.clear();
        } else if (lower.equals("allcommands") || lower.equals("+@all")) {
            allowed.set(0, catalog.size());
            future = true;
            flags |= ALLCOMMANDS;
            firstArgs = null;
        } else if (lower.equals("nocommands") || lower.equals("-@all")) {
            allowed.clear();
            future = false;
            flags &= ~ALLCOMMANDS;
            firstArgs = null;
        } else if (op.startsWith("~") || op.startsWith("%")) {
            keyPattern(op);
        } else if (op.startsWith("&")) {
            if ((flags & ALLCHANNELS) != 0) {
                throw new RuleException(Refusal.CHANNELS_AFTER_ALL);
            }
            String pattern = op.substring(1);
            if (hasSpaces(pattern)) {
                throw new RuleException(Refusal.SYNTAX);
            }
            if (!channels.contains(pattern)) {
                channels.add(pattern);
            }
            flags &= ~ALLCHANNELS;
        } else if (op.startsWith("+") && !op.startsWith("+@")) {
            allowCommand(op.substring(1));
        } else if (op.startsWith("-") && !op.startsWith("-@")) {
            Cmd cmd = catalog.lookup(op.substring(1));
            if (cmd == null) {
                throw new RuleException(Refusal.UNKNOWN);
            }
            change(cmd, false);
        } else if (op.startsWith("+@") || op.startsWith("-@")) {
            long flag = AclCatalog.flag(op.substring(2));
            if (flag == 0) {
                throw new RuleException(Refusal.UNKNOWN);
            }
            category(catalog.commands(), flag, op.charAt(0) == '+');
        } else {
            throw new RuleException(Refusal.SYNTAX);
        }
    }

    private void keyPattern(String op) throws RuleException {
        if ((flags & ALLKEYS) != 0) {
            throw new RuleException(Refusal.KEYS_AFTER_ALL);
        }
        int perm = 0;
        int offset = 1;
        if (op.charAt(0) == '%') {
            for (; offset < op.length(); offset++) {
                char c = Character.toUpperCase(op.charAt(offset));
                if (c == 'R' && (perm & READ) == 0) {
                    perm |= READ;
                } else if (c == 'W' && (perm & WRITE) == 0) {
                    perm |= WRITE;
                } else if (op.charAt(offset) == '~') {
                    offset++;
                    break;
                } else {
                    throw new RuleException(Refusal.SYNTAX);
                }
            }
        } else {
            perm = ALL;
        }
        // Redis takes "%R" with no '~' as a pattern that starts after the flags (offset at the end): the same here
        String pattern = offset >= op.length() ? "" : op.substring(offset);
        if (hasSpaces(pattern)) {
            throw new RuleException(Refusal.SYNTAX);
        }
        for (KeyPattern p : patterns) {
            if (p.pattern.equals(pattern)) {
                p.flags |= perm;
                flags &= ~ALLKEYS;
                return;
            }
        }
        patterns.add(new KeyPattern(pattern, perm));
        flags &= ~ALLKEYS;
    }

    private void allowCommand(String name) throws RuleException {
        int bar = name.lastIndexOf('|');
        if (bar < 0) {
            Cmd cmd = catalog.lookup(name);
            if (cmd == null) {
                throw new RuleException(Refusal.UNKNOWN);
            }
            change(cmd, true);
            return;
        }
        Cmd cmd = catalog.lookup(name.substring(0, bar));
        String sub = name.substring(bar + 1);
        if (cmd == null) {
            throw new RuleException(Refusal.UNKNOWN);
        }
        if (cmd.parent() != null) {
            throw new RuleException(Refusal.SUBCOMMAND_FIRST_ARG);
        }
        if (sub.isEmpty()) {
            throw new RuleException(Refusal.SYNTAX);
        }
        if (!cmd.subs().isEmpty()) {
            Cmd subcommand = catalog.lookup(name);
            if (subcommand == null) {
                throw new RuleException(Refusal.UNKNOWN);
            }
            change(subcommand, true);
        } else {
            // SELECT|0: a first argument of an otherwise denied command, which Redis deprecates but takes
            if (firstArgs == null) {
                firstArgs = new HashMap<>();
            }
            List<String> args = firstArgs.computeIfAbsent(cmd.id(), id -> new ArrayList<>());
            for (String a : args) {
                if (a.equalsIgnoreCase(sub)) {
                    return;
                }
            }
            args.add(sub);
        }
    }

    /** {@code ACLChangeSelectorPerm}: the command's bit, its first arguments forgotten, and its subcommands' bits. */
    void change(Cmd cmd, boolean allow) {
        setBit(cmd.id(), allow);
        if (firstArgs != null) {
            firstArgs.remove(cmd.id());
        }
        for (Cmd sub : cmd.subs().values()) {
            setBit(sub.id(), allow);
        }
    }

    private void setBit(int id, boolean value) {
        if (value) {
            allowed.set(id);
        } else {
            allowed.clear(id);
            flags &= ~ALLCOMMANDS;
        }
    }

    private void category(List<Cmd> commands, long flag, boolean value) {
        for (Cmd cmd : commands) {
            if ((cmd.categories() & flag) != 0) {
                change(cmd, value);
            }
            if (!cmd.subs().isEmpty()) {
                category(List.copyOf(cmd.subs().values()), flag, value);
            }
        }
    }

    // ---------------------------------------------------------------------------------------------------- checks

    /** {@code ACLSelectorCheckCmd}: null when allowed, else the denial with the argument it names. */
    Denial check(Cmd cmd, byte[][] args, KeyCache keys) {
        if ((flags & ALLCOMMANDS) == 0 && !cmd.noAuth() && !allowed.get(cmd.id())) {
            List<String> first = firstArgs == null ? null : firstArgs.get(cmd.id());
            if (args.length < 2 || first == null) {
                return new Denial(Denial.COMMAND, 0);
            }
            int idx = cmd.parent() != null ? 2 : 1;
            String arg = idx < args.length ? new String(args[idx], StandardCharsets.ISO_8859_1) : null;
            boolean match = false;
            for (String f : first) {
                if (arg != null && f.equalsIgnoreCase(arg)) {
                    match = true;
                    break;
                }
            }
            if (!match) {
                return new Denial(Denial.COMMAND, 0);
            }
        }
        if ((flags & ALLKEYS) == 0 && cmd.hasKeys()) {
            for (RedisCommandTable.Key key : keys.keys(cmd, args)) {
                if (!keyAllowed(args[key.position()], perm(key.flags()))) {
                    return new Denial(Denial.KEY, key.position());
                }
            }
        }
        if ((flags & ALLCHANNELS) == 0) {
            int[] channelArgs = channelArgs(cmd, args.length);
            if (channelArgs != null) {
                boolean pattern = cmd.fullName().equals("psubscribe");
                for (int i = channelArgs[0]; i < channelArgs[1]; i++) {
                    if (!channelAllowed(new String(args[i], StandardCharsets.ISO_8859_1), pattern)) {
                        return new Denial(Denial.CHANNEL, i);
                    }
                }
            }
        }
        return null;
    }

    /** @return the argument range [from, to) of the channels a command publishes or subscribes to, or null */
    static int[] channelArgs(Cmd cmd, int argc) {
        return switch (cmd.fullName()) {
            case "publish", "spublish" -> argc > 1 ? new int[] {1, 2} : null;
            case "subscribe", "ssubscribe", "psubscribe" -> new int[] {1, argc};
            default -> null;
        };
    }

    /** @return READ and WRITE as the key's flags ask: {@code access} reads, {@code insert/delete/update} write */
    static int perm(List<String> keyFlags) {
        int perm = 0;
        if (keyFlags.contains("access")) {
            perm |= READ;
        }
        if (keyFlags.contains("insert") || keyFlags.contains("delete") || keyFlags.contains("update")) {
            perm |= WRITE;
        }
        return perm;
    }

    boolean keyAllowed(byte[] key, int perm) {
        if ((flags & ALLKEYS) != 0) {
            return true;
        }
        for (KeyPattern p : patterns) {
            if ((p.flags & perm) == perm && Glob.matches(p.pattern.getBytes(StandardCharsets.ISO_8859_1), key, false)) {
                return true;
            }
        }
        return false;
    }

    /** {@code ACLSelectorHasUnrestrictedKeyAccess}: {@code allkeys}, or a pattern {@code *} with {@code perm}. */
    boolean unrestricted(int perm) {
        if ((flags & ALLKEYS) != 0) {
            return true;
        }
        for (KeyPattern p : patterns) {
            if ((p.flags & perm) == perm && p.pattern.equals("*")) {
                return true;
            }
        }
        return false;
    }

    /** A pattern subscription must name one of the user's patterns exactly; a channel must match one. */
    boolean channelAllowed(String channel, boolean pattern) {
        if ((flags & ALLCHANNELS) != 0) {
            return true;
        }
        for (String p : channels) {
            if (pattern ? p.equals(channel) : Glob.matches(p, channel, false)) {
                return true;
            }
        }
        return false;
    }

    // ---------------------------------------------------------------------------------------------------- describe

    /** {@code ACLDescribeSelector}: keys, channels, then the command rules. */
    String describe() {
        StringBuilder sb = new StringBuilder();
        if ((flags & ALLKEYS) != 0) {
            sb.append("~* ");
        } else {
            for (KeyPattern p : patterns) {
                sb.append(p.describe()).append(' ');
            }
        }
        if ((flags & ALLCHANNELS) != 0) {
            sb.append("&* ");
        } else {
            sb.append("resetchannels ");
            for (String c : channels) {
                sb.append('&').append(c).append(' ');
            }
        }
        return sb.append(commandRules()).toString();
    }

    /** @return the key patterns as {@code ACL GETUSER} shows them */
    String keysDescription() {
        if ((flags & ALLKEYS) != 0) {
            return "~*";
        }
        StringBuilder sb = new StringBuilder();
        for (KeyPattern p : patterns) {
            sb.append(sb.length() == 0 ? "" : " ").append(p.describe());
        }
        return sb.toString();
    }

    /** @return the channel patterns as {@code ACL GETUSER} shows them */
    String channelsDescription() {
        if ((flags & ALLCHANNELS) != 0) {
            return "&*";
        }
        StringBuilder sb = new StringBuilder();
        for (String c : channels) {
            sb.append(sb.length() == 0 ? "" : " ").append('&').append(c);
        }
        return sb.toString();
    }

    /**
     * {@code ACLDescribeSelectorCommandRules}: {@code +@all} or {@code -@all}, then the categories that fit the bitmap
     * best, then single commands until a selector built from the rules has exactly this bitmap.
     */
    String commandRules() {
        StringBuilder rules = new StringBuilder();
        boolean additive = !future;
        Selector fake = new Selector(catalog, 0);
        try {
            fake.apply(additive ? "-@all" : "+@all");
        } catch (RuleException e) {
            throw new IllegalStateException(e);
        }
        rules.append(additive ? "-@all " : "+@all ");
        Selector temp = new Selector(catalog, 0);
        temp.allowed.or(allowed);
        boolean[] applied = new boolean[AclCatalog.CATEGORIES.size()];
        while (true) {
            int best = -1;
            long minDiff = Integer.MAX_VALUE;
            long maxSame = 0;
            for (int j = 0; j < AclCatalog.CATEGORIES.size(); j++) {
                if (applied[j]) {
                    continue;
                }
                long[] onOff = temp.count(1L << j);
                long diff = additive ? onOff[1] : onOff[0];
                long same = additive ? onOff[0] : onOff[1];
                if (same > diff && (diff < minDiff || (diff == minDiff && same > maxSame))) {
                    best = j;
                    minDiff = diff;
                    maxSame = same;
                }
            }
            if (best == -1) {
                break;
            }
            String name = AclCatalog.CATEGORIES.get(best);
            fake.category(catalog.commands(), 1L << best, additive);
            temp.category(catalog.commands(), 1L << best, !additive);
            rules.append(additive ? "+@" : "-@").append(name).append(' ');
            applied[best] = true;
        }
        singles(fake, rules, catalog.commands());
        if (rules.length() > 0) {
            rules.setLength(rules.length() - 1);
        }
        if (!fake.allowed.equals(allowed)) {
            // Redis panics here: the description would not give the user back. Never hand out a wrong one
            throw new IllegalStateException("the ACL description '" + rules + "' does not give this selector's "
                    + "commands back");
        }
        return rules.toString();
    }

    private void singles(Selector fake, StringBuilder rules, List<Cmd> commands) {
        for (Cmd cmd : commands) {
            boolean userBit = allowed.get(cmd.id());
            if (userBit != fake.allowed.get(cmd.id())) {
                rules.append(userBit ? '+' : '-').append(cmd.fullName()).append(' ');
                fake.change(cmd, userBit);
            }
            if (!cmd.subs().isEmpty()) {
                singles(fake, rules, List.copyOf(cmd.subs().values()));
            }
            List<String> first = firstArgs == null ? null : firstArgs.get(cmd.id());
            if (!userBit && first != null) {
                for (String f : first) {
                    rules.append('+').append(cmd.fullName()).append('|').append(f).append(' ');
                }
            }
        }
    }

    /** @return {on, off}: how many commands of the category this selector allows and denies */
    private long[] count(long flag) {
        long[] onOff = new long[2];
        count(catalog.commands(), flag, onOff);
        return onOff;
    }

    private void count(List<Cmd> commands, long flag, long[] onOff) {
        for (Cmd cmd : commands) {
            if ((cmd.categories() & flag) != 0) {
                onOff[allowed.get(cmd.id()) ? 0 : 1]++;
            }
            if (!cmd.subs().isEmpty()) {
                count(List.copyOf(cmd.subs().values()), flag, onOff);
            }
        }
    }

    static boolean hasSpaces(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            // C's isspace: space, \t \n \v \f \r; and NUL
            if (c == ' ' || (c >= '\t' && c <= '\r') || c == 0) {
                return true;
            }
        }
        return false;
    }

    /** The keys of one command, computed once however many selectors ask ({@code aclKeyResultCache}). */
    static final class KeyCache {
        private List<RedisCommandTable.Key> keys;

        List<RedisCommandTable.Key> keys(Cmd cmd, byte[][] args) {
            if (keys == null) {
                List<RedisCommandTable.Key> k = RedisCommandTable.keys(cmd.info(), args);
                keys = k == null ? List.of() : k;
            }
            return keys;
        }
    }
}
