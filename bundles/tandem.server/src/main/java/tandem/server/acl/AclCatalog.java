package tandem.server.acl;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import tandem.server.command.RedisCommandTable;
import tandem.server.command.RedisCommandTable.Items;

/**
 * The commands ACL rules name, with their ids and categories: Redis 7.0.15's whole table (so that a rule naming a
 * command Tandem does not run yet, {@code +eval}, is taken as Redis takes it, and so that a user's rules are described
 * from the same category counts as Redis's), then Tandem's own commands ({@code SENTINEL}).
 *
 * <p>A command's id indexes the selectors' bitmaps; a container's subcommands have ids of their own.
 */
public final class AclCatalog {

    /** Redis's categories, in its order ({@code ACL CAT} lists them so; bit {@code i} of a command's mask is the i-th). */
    public static final List<String> CATEGORIES = List.of("keyspace", "read", "write", "set", "sortedset", "list",
            "hash", "string", "bitmap", "hyperloglog", "geo", "stream", "pubsub", "admin", "fast", "slow", "blocking",
            "dangerous", "connection", "transaction", "scripting");

    /**
     * One command or subcommand.
     *
     * @param id         its bit in the selectors' bitmaps
     * @param fullName   {@code get}, {@code config|get}
     * @param categories bit {@code i} set when it is in {@code CATEGORIES.get(i)}
     * @param noAuth     runs before authentication and is never refused by ACL ({@code AUTH}, {@code HELLO})
     * @param parent     the container, or null
     * @param info       Redis's COMMAND INFO entry, for the command's keys; null for Tandem's own commands
     */
    public record Cmd(int id, String fullName, long categories, boolean noAuth, Cmd parent, Map<String, Cmd> subs,
            Items info) {

        /** @return whether its key specs name keys ({@code doesCommandHaveKeys}) */
        boolean hasKeys() {
            return info != null && RedisCommandTable.hasKeys(info);
        }
    }

    private static volatile AclCatalog loaded;

    private final List<Cmd> top = new ArrayList<>();
    private final List<Cmd> byId = new ArrayList<>();
    private final Map<String, Cmd> byName = new HashMap<>();

    private AclCatalog() {
        for (Items entry : RedisCommandTable.get().entries()) {
            top.add(add(entry, null));
        }
        // Tandem's own: SENTINEL, with the categories Redis's sentinel mode gives it
        top.add(add("sentinel", mask(List.of("admin", "slow", "dangerous")), false, null, null));
    }

    /** @return the catalog, built once */
    public static AclCatalog get() {
        AclCatalog c = loaded;
        if (c == null) {
            c = new AclCatalog();
            loaded = c;
        }
        return c;
    }

    private Cmd add(Items entry, Cmd parent) {
        Cmd cmd = add(RedisCommandTable.name(entry), mask(RedisCommandTable.categories(entry)),
                RedisCommandTable.flags(entry).contains("no_auth"), parent, entry);
        for (Items sub : RedisCommandTable.subcommands(entry)) {
            Cmd s = add(sub, cmd);
            cmd.subs().put(RedisCommandTable.name(sub).substring(RedisCommandTable.name(entry).length() + 1), s);
        }
        return cmd;
    }

    private Cmd add(String name, long categories, boolean noAuth, Cmd parent, Items info) {
        Cmd cmd = new Cmd(byId.size(), name, categories, noAuth, parent, new LinkedHashMap<>(), info);
        byId.add(cmd);
        byName.put(name, cmd);
        return cmd;
    }

    private static long mask(List<String> categories) {
        long m = 0;
        for (String c : categories) {
            m |= flag(c);
        }
        return m;
    }

    /** @return the bit of category {@code name} (any case), or 0 when there is no such category */
    public static long flag(String name) {
        int i = CATEGORIES.indexOf(name.toLowerCase(Locale.ROOT));
        return i < 0 ? 0 : 1L << i;
    }

    /** @return whether {@code argc} arguments (the command's name included) suit the command's arity */
    public static boolean arityHolds(Cmd cmd, int argc) {
        // Tandem's own commands (SENTINEL) take a subcommand at least, as -2
        long arity = cmd.info() == null ? -2 : ((RedisCommandTable.Number) cmd.info().items().get(1)).value();
        return arity > 0 ? arity == argc : argc >= -arity;
    }

    /** @return how many ids there are */
    int size() {
        return byId.size();
    }

    /** @return the top-level commands in the table's order */
    List<Cmd> commands() {
        return Collections.unmodifiableList(top);
    }

    /** @return the command or subcommand {@code name} ({@code get}, {@code config|get}; any case), or null */
    public Cmd lookup(String name) {
        return byName.get(name.toLowerCase(Locale.ROOT));
    }

    /**
     * Redis's {@code lookupCommand}: the command of {@code args}, or its subcommand when it is a container.
     *
     * @return the command, or null when there is none (or a container is given an unknown subcommand)
     */
    public Cmd resolve(byte[][] args) {
        Cmd cmd = byName.get(new String(args[0], StandardCharsets.ISO_8859_1).toLowerCase(Locale.ROOT));
        if (cmd == null || cmd.subs().isEmpty()) {
            return cmd;
        }
        if (args.length < 2) {
            return cmd;
        }
        return cmd.subs().get(new String(args[1], StandardCharsets.ISO_8859_1).toLowerCase(Locale.ROOT));
    }
}
