package tandem.server.acl;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HexFormat;
import java.util.List;
import java.util.TreeMap;
import java.util.function.BiConsumer;

import tandem.server.acl.AclCatalog.Cmd;
import tandem.server.acl.Selector.RuleException;
import tandem.protocol.command.InlineSplitter;

/**
 * The node's ACL users, as Redis 7.0 keeps them: the {@code default} user (every command, key and channel, no
 * password, until {@code requirepass} or a rule says otherwise), the users {@code ACL SETUSER} or the ACL file made,
 * and the ACL log. Users are replaced whole on every change, in a map that is itself replaced, so that the event
 * loops check commands against a consistent set without a lock; changes are serialized.
 *
 * <p>ACLs are each node's configuration, as in Redis: they are not journaled and do not replicate. A failover group
 * keeps them consistent through the same ACL file on every node (docs/operator-guide.md, "Users and permissions").
 */
public final class Acl {

    /** Redis's reply when a command is refused, by reason. */
    public static final String NOPERM_COMMAND = "NOPERM this user has no permissions to run the '%s' command";
    public static final String NOPERM_KEY = "NOPERM this user has no permissions to access one of the keys used as "
            + "arguments";
    public static final String NOPERM_CHANNEL = "NOPERM this user has no permissions to access one of the channels "
            + "used as arguments";

    private final AclCatalog catalog;
    /** Users by name in byte order, as Redis's rax lists them. */
    private volatile TreeMap<String, User> users = new TreeMap<>();
    private final AclLog log = new AclLog();
    /** {@code acl-pubsub-default}: whether new users start with every channel (Redis 7.0: no). */
    private volatile boolean allChannelsByDefault;
    /** Told of users whose clients must go: deleted, or their channels narrowed (name, the user now or null). */
    private volatile BiConsumer<String, User> changed = (name, user) -> { };

    public Acl(AclCatalog catalog) {
        this.catalog = catalog;
        TreeMap<String, User> initial = new TreeMap<>();
        initial.put("default", defaultUser(catalog));
        users = initial;
    }

    private static User defaultUser(AclCatalog catalog) {
        User u = new User(catalog, "default", false);
        try {
            for (String op : List.of("+@all", "~*", "&*", "on", "nopass")) {
                u.apply(op);
            }
        } catch (RuleException e) {
            throw new IllegalStateException(e);
        }
        return u;
    }

    /** @param listener told, on the changing thread, of each user deleted (null) or whose channels narrowed */
    public void onChange(BiConsumer<String, User> listener) {
        this.changed = listener;
    }

    public boolean allChannelsByDefault() {
        return allChannelsByDefault;
    }

    public void allChannelsByDefault(boolean value) {
        allChannelsByDefault = value;
    }

    public AclCatalog catalog() {
        return catalog;
    }

    public AclLog log() {
        return log;
    }

    /** @return whether every command, key and channel is allowed to {@code user}: no check is needed */
    public boolean unrestricted(User user) {
        return user.unrestricted();
    }

    /** @return the user named, or null */
    public User user(String name) {
        return users.get(name);
    }

    /** @return every user, in name order */
    public Collection<User> users() {
        return users.values();
    }

    /** Redis's {@code authRequired}: the default user has a password, or is off. */
    public boolean authRequired() {
        User d = users.get("default");
        return !d.nopass() || !d.enabled();
    }

    /**
     * {@code ACLCheckUserCredentials}.
     *
     * @return the user, or null when it does not exist, is off, or the password is not one of its own
     */
    public User authenticate(String name, byte[] password) {
        User u = users.get(name);
        if (u == null || !u.enabled() || !u.passwordMatches(password)) {
            return null;
        }
        return u;
    }

    /** {@code requirepass}: the default user's password, or none ({@code ACLUpdateDefaultUserPassword}). */
    public synchronized void requirePass(String password) {
        User d = users.get("default").copy("default");
        try {
            d.apply("resetpass");
            d.apply(password == null ? "nopass" : ">" + password);
        } catch (RuleException e) {
            throw new IllegalStateException(e);
        }
        replace("default", d);
    }

    /**
     * {@code ACL SETUSER name rules…} ({@code ACLStringSetUser}): every rule applies to a copy, and the user changes
     * only when all of them applied.
     *
     * @return null when done, else Redis's error without its {@code -}
     */
    public synchronized String setUser(String name, List<String> rules) {
        List<String> merged = mergeSelectors(rules);
        if (merged == null) {
            String start = rules.stream().filter(r -> r.startsWith("(") && !r.endsWith(")")).findFirst().orElse("");
            return "ERR Unmatched parenthesis in acl selector starting at '" + start + "'.";
        }
        User existing = users.get(name);
        User next = existing == null ? new User(catalog, name, allChannelsByDefault) : existing.copy(name);
        for (String rule : merged) {
            try {
                next.apply(rule);
            } catch (RuleException e) {
                return "ERR Error in ACL SETUSER modifier '" + rule + "': " + e.refusal.message;
            }
        }
        replace(name, next);
        if (existing != null && channelsNarrowed(next, existing)) {
            changed.accept(name, next);
        }
        return null;
    }

    /** @return whether a client of {@code before} may hold a subscription {@code after} no longer allows */
    private static boolean channelsNarrowed(User after, User before) {
        List<String> upcoming = new ArrayList<>();
        for (Selector s : after.selectors) {
            if ((s.flags & Selector.ALLCHANNELS) != 0) {
                return false;
            }
            upcoming.addAll(s.channels);
        }
        for (Selector s : before.selectors) {
            if ((s.flags & Selector.ALLCHANNELS) != 0) {
                return true;
            }
            for (String c : s.channels) {
                if (!upcoming.contains(c)) {
                    return true;
                }
            }
        }
        return false;
    }

    /**
     * {@code ACL DELUSER}: the users' clients are disconnected.
     *
     * @return how many were deleted, or -1 when one named is {@code default} (then none is)
     */
    public synchronized int delUsers(List<String> names) {
        if (names.contains("default")) {
            return -1;
        }
        int deleted = 0;
        for (String name : names) {
            if (users.containsKey(name)) {
                TreeMap<String, User> next = new TreeMap<>(users);
                next.remove(name);
                users = next;
                deleted++;
                changed.accept(name, null);
            }
        }
        return deleted;
    }

    private void replace(String name, User user) {
        TreeMap<String, User> next = new TreeMap<>(users);
        next.put(name, user);
        users = next;
    }

    /**
     * {@code ACLMergeSelectorArguments}: a selector written over several arguments, {@code "(~a*" "+get)"}, becomes
     * one.
     *
     * @return the rules, or null when a parenthesis is not closed
     */
    static List<String> mergeSelectors(List<String> rules) {
        List<String> out = new ArrayList<>();
        StringBuilder selector = null;
        for (String op : rules) {
            if (selector == null && op.startsWith("(") && !op.endsWith(")")) {
                selector = new StringBuilder(op);
                continue;
            }
            if (selector != null) {
                selector.append(' ').append(op);
                if (op.endsWith(")")) {
                    out.add(selector.toString());
                    selector = null;
                }
                continue;
            }
            out.add(op);
        }
        return selector == null ? out : null;
    }

    /** @return whether a user name or pattern holds a blank or a NUL, which Redis refuses ({@code ACLStringHasSpaces}) */
    public static boolean hasSpaces(String s) {
        return Selector.hasSpaces(s);
    }

    /** Splits a selector's rules as Redis's {@code sdssplitargs}; an unbalanced quote leaves it whole. */
    static List<String> splitArgs(String text) {
        byte[][] args = InlineSplitter.split(text.getBytes(StandardCharsets.ISO_8859_1));
        List<String> out = new ArrayList<>();
        if (args == null) {
            out.add(text);
            return out;
        }
        for (byte[] a : args) {
            out.add(new String(a, StandardCharsets.ISO_8859_1));
        }
        return out;
    }

    // ---------------------------------------------------------------------------------------------------- checks

    /**
     * {@code ACLCheckAllUserCommandPerm}: allowed when one selector allows it; otherwise the most specific refusal
     * (a channel over a key over a command; among equals, the one naming the later argument).
     *
     * @return null when {@code user} may run {@code args}, else why not
     */
    public Denial check(User user, Cmd cmd, byte[][] args) {
        if (user.unrestricted()) {
            return null;
        }
        Denial relevant = new Denial(Denial.COMMAND, 0);
        Selector.KeyCache keys = new Selector.KeyCache();
        for (Selector s : user.selectors) {
            Denial d = s.check(cmd, args, keys);
            if (d == null) {
                return null;
            }
            if (d.reason() > relevant.reason() || (d.reason() == relevant.reason() && d.index() > relevant.index())) {
                relevant = d;
            }
        }
        return relevant;
    }

    /**
     * {@code ACLUserCheckCmdWithUnrestrictedKeyAccess}: whether a selector that allows the command also reads (or
     * writes, as {@code perm} says) every key: SORT's BY and GET patterns need it.
     */
    public boolean unrestrictedKeys(User user, Cmd cmd, byte[][] args, int perm) {
        Selector.KeyCache keys = new Selector.KeyCache();
        for (Selector s : user.selectors) {
            if (s.check(cmd, args, keys) == null && s.unrestricted(perm)) {
                return true;
            }
        }
        return false;
    }

    /** @return whether {@code user} may subscribe to {@code channel} (a pattern when {@code pattern}) */
    public boolean channelAllowed(User user, String channel, boolean pattern) {
        for (Selector s : user.selectors) {
            if (s.channelAllowed(channel, pattern)) {
                return true;
            }
        }
        return false;
    }

    /** @return the error reply for {@code d} of {@code cmd}, without its {@code -} */
    public static String error(Denial d, Cmd cmd) {
        return switch (d.reason()) {
            case Denial.KEY -> NOPERM_KEY;
            case Denial.CHANNEL -> NOPERM_CHANNEL;
            default -> String.format(NOPERM_COMMAND, cmd.fullName());
        };
    }

    // ---------------------------------------------------------------------------------------------------- files

    /**
     * {@code ACLLoadFromFile}: every line {@code user <name> <rules…>}; all of it or nothing. The default user comes
     * from the file when it names one, otherwise it is made anew.
     *
     * @return null when loaded, else the errors as Redis words them
     */
    public synchronized String load(Path file) {
        List<String> lines;
        try {
            lines = List.of(Files.readString(file, StandardCharsets.ISO_8859_1).split("\n", -1));
        } catch (IOException e) {
            return "Error loading ACLs, opening file '" + file + "': " + e.getMessage();
        }
        StringBuilder errors = new StringBuilder();
        TreeMap<String, User> loaded = new TreeMap<>();
        for (int i = 0; i < lines.size(); i++) {
            int lineNumber = i + 1;
            String line = lines.get(i).strip();
            if (line.isEmpty()) {
                continue;
            }
            List<String> argv = new ArrayList<>();
            for (String a : line.split(" ")) {
                if (!a.isEmpty()) {
                    argv.add(a);
                }
            }
            if (argv.isEmpty()) {
                continue;
            }
            if (!argv.get(0).equals("user") || argv.size() < 2) {
                errors.append(file).append(':').append(lineNumber)
                        .append(" should start with user keyword followed by the username. ");
                continue;
            }
            String name = argv.get(1);
            if (Selector.hasSpaces(name)) {
                errors.append("'").append(file).append(':').append(lineNumber).append(": username '").append(name)
                        .append("' contains invalid characters. ");
                continue;
            }
            if (loaded.containsKey(name)) {
                errors.append("WARNING: Duplicate user '").append(name).append("' found on line ").append(lineNumber)
                        .append(". ");
                continue;
            }
            User u = new User(catalog, name, allChannelsByDefault);
            loaded.put(name, u);
            List<String> rules = mergeSelectors(argv.subList(2, argv.size()));
            if (rules == null) {
                errors.append(file).append(':').append(lineNumber)
                        .append(": Unmatched parenthesis in selector definition.");
                continue;
            }
            boolean syntaxError = false;
            for (String rule : rules) {
                try {
                    u.apply(rule.strip());
                } catch (RuleException e) {
                    if (e.refusal == Selector.Refusal.UNKNOWN) {
                        errors.append(file).append(':').append(lineNumber).append(": Error in applying operation '")
                                .append(rule).append("': ").append(e.refusal.message).append(". ");
                    } else if (!syntaxError) {
                        errors.append(file).append(':').append(lineNumber).append(": ").append(e.refusal.message)
                                .append(". ");
                        syntaxError = true;
                    }
                }
            }
        }
        if (errors.length() > 0) {
            return errors.append("WARNING: ACL errors detected, no change to the previously active ACL rules was "
                    + "performed").toString();
        }
        if (!loaded.containsKey("default")) {
            loaded.put("default", defaultUser(catalog));
        }
        TreeMap<String, User> before = users;
        users = loaded;
        for (String name : before.keySet()) {
            User now = loaded.get(name);
            if (now == null) {
                changed.accept(name, null);
            } else if (channelsNarrowed(now, before.get(name))) {
                changed.accept(name, now);
            }
        }
        return null;
    }

    /** {@code ACLSaveToFile}: every user as {@code ACL LIST} shows it, written beside and moved over the file. */
    public synchronized void save(Path file) throws IOException {
        StringBuilder sb = new StringBuilder();
        for (String line : list()) {
            sb.append(line).append('\n');
        }
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp-" + ProcessHandle.current().pid());
        try {
            Files.writeString(tmp, sb, StandardCharsets.ISO_8859_1);
            try (var channel = java.nio.channels.FileChannel.open(tmp, java.nio.file.StandardOpenOption.WRITE)) {
                channel.force(true);
            }
            Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } finally {
            Files.deleteIfExists(tmp);
        }
    }

    /** What {@code ACL GETUSER} shows of one selector. */
    public record SelectorDescription(String commands, String keys, String channels) {
    }

    /** What {@code ACL GETUSER} shows of a user: flags, password hashes, its root selector and the others. */
    public record Description(List<String> flags, List<String> passwords, SelectorDescription root,
            List<SelectorDescription> selectors) {
    }

    public static Description describe(User u) {
        List<SelectorDescription> others = new ArrayList<>();
        for (Selector s : u.selectors.subList(1, u.selectors.size())) {
            others.add(new SelectorDescription(s.commandRules(), s.keysDescription(), s.channelsDescription()));
        }
        Selector root = u.root();
        return new Description(u.flagNames(), List.copyOf(u.passwords),
                new SelectorDescription(root.commandRules(), root.keysDescription(), root.channelsDescription()),
                others);
    }

    /** @return {@code ACL LIST}: {@code user <name> <description>} for each user, in name order */
    public List<String> list() {
        List<String> out = new ArrayList<>();
        for (User u : users.values()) {
            out.add("user " + u.name + " " + u.describe());
        }
        return out;
    }

    /** @return {@code ACL GENPASS}'s password: {@code bits} random bits as hex characters, rounded up */
    public static String genpass(int bits) {
        byte[] random = new byte[(bits + 7) / 8 + 1];
        new SecureRandom().nextBytes(random);
        return HexFormat.of().formatHex(random).substring(0, (bits + 3) / 4);
    }

    /** {@code ACL CAT category}: the commands and subcommands of the category, in the table's order. */
    public List<String> category(long flag) {
        List<String> out = new ArrayList<>();
        addCategory(catalog.commands(), flag, out);
        return out;
    }

    private static void addCategory(List<Cmd> commands, long flag, List<String> out) {
        for (Cmd cmd : commands) {
            if ((cmd.categories() & flag) != 0) {
                out.add(cmd.fullName());
            }
            if (!cmd.subs().isEmpty()) {
                addCategory(List.copyOf(cmd.subs().values()), flag, out);
            }
        }
    }
}
