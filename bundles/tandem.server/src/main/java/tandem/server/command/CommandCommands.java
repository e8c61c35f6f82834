package tandem.server.command;

import static tandem.server.command.CommandTable.ascii;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import tandem.server.resp.RespWriter;

/**
 * {@code COMMAND} and its subcommands {@code INFO}, {@code DOCS}, {@code LIST}, {@code GETKEYS} and
 * {@code GETKEYSANDFLAGS}: each command Tandem shares with Redis described by Redis 7.0.15's own metadata
 * ({@link RedisCommandTable}), with the subcommands Tandem has; Tandem's own commands by their specs.
 */
final class CommandCommands {

    private CommandCommands() {
    }

    static void info(CommandContext c, byte[][] a) {
        RespWriter r = c.reply();
        if (a.length <= 2) {
            r.array(c.table().commands().size());
            for (CommandSpec spec : c.table().commands()) {
                writeInfo(r, spec);
            }
            return;
        }
        r.array(a.length - 2);
        for (int i = 2; i < a.length; i++) {
            CommandSpec spec = c.table().lookup(ascii(a[i]));
            if (spec == null) {
                r.nullBulk();
            } else {
                writeInfo(r, spec);
            }
        }
    }

    private static void writeInfo(RespWriter r, CommandSpec spec) {
        RedisCommandTable.Items redis = RedisCommandTable.get().info(spec.fullName());
        if (redis != null) { // Redis's own description, with the subcommands Tandem has
            RedisCommandTable.write(r, spec.isContainer()
                    ? RedisCommandTable.infoWithSubcommands(redis, name -> has(spec, name)) : redis);
            return;
        }
        r.array(10);
        r.bulk(spec.fullName());
        r.integer(spec.arity());
        r.set(spec.flags().size());
        spec.flags().forEach(r::simple);
        r.integer(0).integer(0).integer(0);
        r.set(spec.aclCategories().size());
        spec.aclCategories().forEach(cat -> r.simple("@" + cat));
        r.set(0); // tips
        r.array(0); // key specs
        r.array(spec.subcommands().size());
        spec.subcommands().values().forEach(sub -> writeInfo(r, sub));
    }

    /** @return whether the container {@code spec} has the subcommand {@code fullName} ({@code client|info}) */
    private static boolean has(CommandSpec spec, String fullName) {
        return spec.subcommands().containsKey(fullName.substring(fullName.indexOf('|') + 1));
    }

    static void docs(CommandContext c, byte[][] a) {
        List<CommandSpec> specs = new ArrayList<>();
        if (a.length == 2) {
            specs.addAll(c.table().commands());
        } else {
            for (int i = 2; i < a.length; i++) {
                CommandSpec spec = c.table().lookup(ascii(a[i]));
                if (spec != null) {
                    specs.add(spec);
                }
            }
        }
        RespWriter r = c.reply();
        r.map(specs.size());
        for (CommandSpec spec : specs) {
            r.bulk(spec.fullName());
            writeDocs(r, spec);
        }
    }

    private static void writeDocs(RespWriter r, CommandSpec spec) {
        RedisCommandTable.Items redis = RedisCommandTable.get().docs(spec.fullName());
        if (redis != null) {
            RedisCommandTable.write(r, spec.isContainer()
                    ? RedisCommandTable.docsWithSubcommands(redis, name -> has(spec, name)) : redis);
            return;
        }
        boolean subs = spec.isContainer();
        r.map(subs ? 5 : 4);
        r.bulk("summary").bulk(spec.summary());
        r.bulk("since").bulk(spec.since());
        r.bulk("group").bulk(spec.group());
        r.bulk("complexity").bulk(spec.complexity());
        if (subs) {
            r.bulk("subcommands").map(spec.subcommands().size());
            for (CommandSpec sub : spec.subcommands().values()) {
                r.bulk(sub.fullName());
                writeDocs(r, sub);
            }
        }
    }

    /**
     * {@code COMMAND LIST [FILTERBY MODULE name|ACLCAT category|PATTERN pattern]}: every command and subcommand, by
     * full name; Tandem loads no module, so a module filter lists nothing.
     */
    static void list(CommandContext c, byte[][] a) {
        String type = null;
        String arg = null;
        for (int i = 2; i < a.length; i++) {
            if (ascii(a[i]).equalsIgnoreCase("filterby") && a.length - 1 - i == 2) {
                type = ascii(a[i + 1]).toLowerCase(Locale.ROOT);
                if (!type.equals("module") && !type.equals("aclcat") && !type.equals("pattern")) {
                    c.reply().error("ERR syntax error");
                    return;
                }
                arg = ascii(a[i + 2]);
                i += 2;
            } else {
                c.reply().error("ERR syntax error");
                return;
            }
        }
        List<String> names = new ArrayList<>();
        for (CommandSpec spec : c.table().commands()) {
            listed(spec, type, arg, names);
            for (CommandSpec sub : spec.subcommands().values()) {
                listed(sub, type, arg, names);
            }
        }
        c.reply().array(names.size());
        names.forEach(c.reply()::bulk);
    }

    private static void listed(CommandSpec spec, String type, String arg, List<String> names) {
        boolean shown = type == null
                || type.equals("pattern") && tandem.protocol.command.Glob.matches(arg, spec.fullName(), true)
                || type.equals("aclcat") && categories(spec).contains(arg.toLowerCase(Locale.ROOT));
        if (shown) {
            names.add(spec.fullName());
        }
    }

    /** A command's ACL categories: Redis's where Redis has the command. */
    private static List<String> categories(CommandSpec spec) {
        RedisCommandTable.Items redis = RedisCommandTable.get().info(spec.fullName());
        return redis != null ? RedisCommandTable.categories(redis) : spec.aclCategories();
    }

    /**
     * {@code COMMAND GETKEYS} and {@code GETKEYSANDFLAGS}: the keys among a command's arguments, found as Redis finds
     * them (the key specs of its COMMAND INFO, or its own rules).
     */
    static void getkeys(CommandContext c, byte[][] a, boolean withFlags) {
        byte[][] args = java.util.Arrays.copyOfRange(a, 2, a.length);
        CommandSpec spec = c.table().lookup(ascii(args[0]));
        if (spec != null && spec.isContainer() && args.length > 1) {
            spec = spec.subcommands().get(ascii(args[1]).toLowerCase(Locale.ROOT)); // unknown: none, as Redis
        }
        if (spec == null) {
            c.reply().error("ERR Invalid command specified");
            return;
        }
        RedisCommandTable.Items redis = RedisCommandTable.get().info(spec.fullName());
        boolean hasKeys = redis != null && (!((RedisCommandTable.Items) redis.items().get(8)).items().isEmpty()
                || spec.fullName().equals("sort") || spec.fullName().equals("migrate"));
        if (!hasKeys) {
            c.reply().error("ERR The command has no key arguments");
            return;
        }
        long arity = ((RedisCommandTable.Number) redis.items().get(1)).value();
        if (arity > 0 && arity != args.length || args.length < -arity) {
            c.reply().error("ERR Invalid number of arguments specified for command");
            return;
        }
        List<RedisCommandTable.Key> keys = RedisCommandTable.keys(redis, args);
        if (keys == null || keys.isEmpty()) {
            if (RedisCommandTable.flags(redis).contains("no_mandatory_keys")) {
                c.reply().array(0);
            } else {
                c.reply().error("ERR Invalid arguments specified for command");
            }
            return;
        }
        RespWriter r = c.reply();
        r.array(keys.size());
        for (RedisCommandTable.Key k : keys) {
            if (withFlags) {
                r.array(2).bulk(args[k.position()]);
                r.set(k.flags().size());
                k.flags().forEach(r::simple);
            } else {
                r.bulk(args[k.position()]);
            }
        }
    }
}
