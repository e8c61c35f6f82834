package tandem.server.command;

import java.io.IOException;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.math.BigDecimal;
import java.math.MathContext;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import tandem.server.acl.Acl;
import tandem.server.acl.AclCatalog;
import tandem.server.acl.AclLog;
import tandem.server.acl.Denial;
import tandem.server.acl.User;
import tandem.server.resp.RespWriter;

/** {@code ACL} and its subcommands, as Redis 7.0's {@code aclCommand} answers them. */
public final class AclCommands {

    private static final Logger LOG = System.getLogger("tandem.server");
    private static final List<String> ADMIN = List.of("admin", "noscript", "loading", "stale");
    private static final List<String> PLAIN = List.of("noscript", "loading", "stale");
    private static final List<String> HELP = List.of(
            "CAT [<category>]",
            "    List all commands that belong to <category>, or all command categories",
            "    when no category is specified.",
            "DELUSER <username> [<username> ...]",
            "    Delete a list of users.",
            "DRYRUN <username> <command> [<arg> ...]",
            "    Returns whether the user can execute the given command without executing the command.",
            "GETUSER <username>",
            "    Get the user's details.",
            "GENPASS [<bits>]",
            "    Generate a secure 256-bit user password. The optional `bits` argument can",
            "    be used to specify a different size.",
            "LIST",
            "    Show users details in config file format.",
            "LOAD",
            "    Reload users from the ACL file.",
            "LOG [<count> | RESET]",
            "    Show the ACL log entries.",
            "SAVE",
            "    Save the current config to the ACL file.",
            "SETUSER <username> <attribute> [<attribute> ...]",
            "    Create or modify a user with the specified attributes.",
            "USERS",
            "    List all the registered usernames.",
            "WHOAMI",
            "    Return the current connection username.");
    private static final String NO_FILE = "ERR This Redis instance is not configured to use an ACL file. You may "
            + "want to specify users via the ACL SETUSER command and then issue a CONFIG REWRITE (assuming you have a "
            + "Redis configuration file set) in order to store users in the Redis configuration.";

    private AclCommands() {
    }

    static CommandTable.Builder register(CommandTable.Builder b) {
        Map<String, CommandSpec> acl = new LinkedHashMap<>();
        acl.put("cat", sub("cat", -2, PLAIN, "Lists the ACL categories, or the commands inside a category.",
                AclCommands::cat));
        acl.put("deluser", sub("deluser", -3, ADMIN, "Deletes ACL users, and terminates their connections.",
                AclCommands::deluser));
        acl.put("dryrun", sub("dryrun", -4, ADMIN, "Simulates the execution of a command by a user, without "
                + "executing the command.", AclCommands::dryrun));
        acl.put("genpass", sub("genpass", -2, PLAIN, "Generates a pseudorandom, secure password that can be used to "
                + "identify ACL users.", AclCommands::genpass));
        acl.put("getuser", sub("getuser", 3, ADMIN, "Lists the ACL rules of a user.", AclCommands::getuser));
        acl.put("list", sub("list", 2, ADMIN, "Dumps the effective rules in ACL file format.", AclCommands::list));
        acl.put("load", sub("load", 2, ADMIN, "Reloads the rules from the configured ACL file.",
                AclCommands::load));
        acl.put("log", sub("log", -2, ADMIN, "Lists recent security events generated due to ACL rules.",
                AclCommands::log));
        acl.put("save", sub("save", 2, ADMIN, "Saves the effective ACL rules in the configured ACL file.",
                AclCommands::save));
        acl.put("setuser", sub("setuser", -3, ADMIN, "Creates and modifies an ACL user and its rules.",
                AclCommands::setuser));
        acl.put("users", sub("users", 2, ADMIN, "Lists all ACL users.", AclCommands::users));
        acl.put("whoami", sub("whoami", 2, PLAIN, "Returns the authenticated username of the current connection.",
                (c, a) -> c.reply().bulk(c.session().user())));
        acl.put("help", sub("help", 2, PLAIN, "Returns helpful text about the different subcommands.",
                (c, a) -> Commands.help(c, "ACL", HELP)));
        return b.container("acl", -2, "server", "6.0.0", "A container for Access List Control commands.", null, acl);
    }

    private static CommandSpec sub(String name, int arity, List<String> flags, String summary, Command handler) {
        return CommandTable.sub("acl", name, arity, flags, "server", "6.0.0", summary, handler);
    }

    private static String text(byte[] b) {
        return new String(b, StandardCharsets.ISO_8859_1);
    }

    private static void setuser(CommandContext c, byte[][] a) {
        String name = text(a[2]);
        if (Acl.hasSpaces(name)) {
            c.reply().error("ERR Usernames can't contain spaces or null characters");
            return;
        }
        List<String> rules = new ArrayList<>();
        for (int i = 3; i < a.length; i++) {
            rules.add(text(a[i]));
        }
        String error = c.server().acl().setUser(name, rules);
        if (error == null) {
            c.reply().ok();
        } else {
            c.reply().error(error);
        }
    }


    private static void deluser(CommandContext c, byte[][] a) {
        List<String> names = new ArrayList<>();
        for (int i = 2; i < a.length; i++) {
            names.add(text(a[i]));
        }
        int deleted = c.server().acl().delUsers(names);
        if (deleted < 0) {
            c.reply().error("ERR The 'default' user cannot be removed");
        } else {
            c.reply().integer(deleted);
        }
    }

    private static void getuser(CommandContext c, byte[][] a) {
        User u = c.server().acl().user(text(a[2]));
        if (u == null) {
            c.reply().nullBulk();
            return;
        }
        RespWriter r = c.reply();
        Acl.Description d = Acl.describe(u);
        r.map(6);
        r.bulk("flags").set(d.flags().size());
        d.flags().forEach(r::bulk);
        r.bulk("passwords").array(d.passwords().size());
        d.passwords().forEach(r::bulk);
        selector(r, d.root());
        r.bulk("selectors").array(d.selectors().size());
        for (Acl.SelectorDescription s : d.selectors()) {
            r.map(3);
            selector(r, s);
        }
    }

    private static void selector(RespWriter r, Acl.SelectorDescription s) {
        r.bulk("commands").bulk(latin1(s.commands()));
        r.bulk("keys").bulk(latin1(s.keys()));
        r.bulk("channels").bulk(latin1(s.channels()));
    }

    private static byte[] latin1(String s) {
        return s.getBytes(StandardCharsets.ISO_8859_1);
    }

    private static void list(CommandContext c, byte[][] a) {
        List<String> lines = c.server().acl().list();
        c.reply().array(lines.size());
        lines.forEach(line -> c.reply().bulk(latin1(line)));
    }

    private static void users(CommandContext c, byte[][] a) {
        List<String> names = new ArrayList<>();
        c.server().acl().users().forEach(u -> names.add(u.name()));
        c.reply().array(names.size());
        names.forEach(n -> c.reply().bulk(latin1(n)));
    }

    private static void load(CommandContext c, byte[][] a) {
        Path file = c.server().aclFile();
        if (file == null) {
            c.reply().error(NO_FILE);
            return;
        }
        String errors = c.server().acl().load(file);
        if (errors == null) {
            LOG.log(Level.INFO, "ACL LOAD: users loaded from {0}", file);
            c.reply().ok();
        } else {
            c.reply().error("ERR " + errors);
        }
    }

    private static void save(CommandContext c, byte[][] a) {
        Path file = c.server().aclFile();
        if (file == null) {
            c.reply().error(NO_FILE);
            return;
        }
        try {
            c.server().acl().save(file);
            c.reply().ok();
        } catch (IOException e) {
            LOG.log(Level.WARNING, "ACL SAVE to {0} failed: {1}", file, e.getMessage());
            c.reply().error("ERR There was an error trying to save the ACLs. Please check the server logs for more "
                    + "information");
        }
    }

    private static void cat(CommandContext c, byte[][] a) {
        if (a.length == 2) {
            c.reply().array(AclCatalog.CATEGORIES.size());
            AclCatalog.CATEGORIES.forEach(c.reply()::bulk);
            return;
        }
        if (a.length != 3) {
            syntax(c, a);
            return;
        }
        long flag = AclCatalog.flag(text(a[2]));
        if (flag == 0) {
            String name = text(a[2]);
            c.reply().error("ERR Unknown category '" + (name.length() > 128 ? name.substring(0, 128) : name) + "'");
            return;
        }
        List<String> names = c.server().acl().category(flag);
        c.reply().array(names.size());
        names.forEach(c.reply()::bulk);
    }

    private static void genpass(CommandContext c, byte[][] a) {
        if (a.length > 3) {
            syntax(c, a);
            return;
        }
        long bits = 256;
        if (a.length == 3) {
            try {
                bits = Long.parseLong(text(a[2]));
            } catch (NumberFormatException e) {
                c.reply().error("ERR value is not an integer or out of range");
                return;
            }
        }
        if (bits <= 0 || bits > 4096) {
            c.reply().error("ERR ACL GENPASS argument must be the number of bits for the output password, a positive "
                    + "number up to 4096");
            return;
        }
        c.reply().bulk(Acl.genpass((int) bits));
    }

    private static void log(CommandContext c, byte[][] a) {
        if (a.length > 3) {
            syntax(c, a);
            return;
        }
        long count = 10;
        if (a.length == 3) {
            if (text(a[2]).equalsIgnoreCase("reset")) {
                c.server().acl().log().reset();
                c.reply().ok();
                return;
            }
            try {
                count = Long.parseLong(text(a[2]));
            } catch (NumberFormatException e) {
                c.reply().error("ERR value is not an integer or out of range");
                return;
            }
            count = Math.max(0, count);
        }
        List<AclLog.Entry> entries = c.server().acl().log().newest(count);
        long now = System.currentTimeMillis();
        RespWriter r = c.reply();
        r.array(entries.size());
        for (AclLog.Entry e : entries) {
            r.map(7);
            r.bulk("count").integer(e.count());
            r.bulk("reason").bulk(e.reason());
            r.bulk("context").bulk(e.context());
            r.bulk("object").bulk(latin1(e.object()));
            r.bulk("username").bulk(latin1(e.username()));
            r.bulk("age-seconds").doubleValue(latin1(seconds(now - e.updated())));
            r.bulk("client-info").bulk(latin1(e.clientInfo()));
        }
    }

    /** Milliseconds as seconds, as C's {@code %.17g} prints them. */
    static String seconds(long millis) {
        if (millis == 0) {
            return "0";
        }
        return new BigDecimal(millis / 1000.0).round(new MathContext(17)).stripTrailingZeros().toPlainString();
    }

    private static void dryrun(CommandContext c, byte[][] a) {
        Acl acl = c.server().acl();
        User u = acl.user(text(a[2]));
        if (u == null) {
            c.reply().error("ERR User '" + text(a[2]) + "' not found");
            return;
        }
        byte[][] args = java.util.Arrays.copyOfRange(a, 3, a.length);
        AclCatalog.Cmd cmd = acl.catalog().resolve(args);
        if (cmd == null) {
            c.reply().error("ERR Command '" + text(a[3]) + "' not found");
            return;
        }
        if (!AclCatalog.arityHolds(cmd, args.length)) {
            c.reply().error("ERR wrong number of arguments for '" + cmd.fullName() + "' command");
            return;
        }
        Denial d = acl.check(u, cmd, args);
        if (d == null) {
            c.reply().ok();
            return;
        }
        String why = switch (d.reason()) {
            case Denial.COMMAND -> "This user has no permissions to run the '" + cmd.fullName() + "' command";
            case Denial.KEY -> "This user has no permissions to access the '" + text(args[d.index()]) + "' key";
            default -> "This user has no permissions to access the '" + text(args[d.index()]) + "' channel";
        };
        c.reply().bulk(why);
    }

    private static void syntax(CommandContext c, byte[][] a) {
        c.reply().error("ERR unknown subcommand or wrong number of arguments for '" + text(a[1]) + "'. Try ACL HELP.");
    }

    /** Records a failed {@code AUTH} or {@code HELLO … AUTH} in {@code ACL LOG}, as the command was sent. */
    static void logAuth(CommandContext c, byte[] command, byte[] user) {
        c.server().acl().log().add("auth", c.session().multi() ? "multi" : "toplevel", text(command),
                user == null ? "default" : text(user), Commands.clientInfoLine(c));
    }

    /** Records a refused command in {@code ACL LOG}: the command's name, or the key or channel refused. */
    public static void logDenial(CommandContext c, Denial d, AclCatalog.Cmd cmd, byte[][] args) {
        String object = d.reason() == Denial.COMMAND ? cmd.fullName() : text(args[d.index()]);
        c.server().acl().log().add(d.reasonName(), c.session().multi() ? "multi" : "toplevel", object,
                c.session().user(), Commands.clientInfoLine(c));
    }
}
