package tandem.store;

import java.util.List;
import java.util.Locale;

import tandem.api.store.Reply;

/**
 * {@code FUNCTION} and its subcommands, over the store's {@link Functions}. {@code LOAD}, {@code DELETE},
 * {@code FLUSH} and {@code RESTORE} change the libraries: on the node that decides writes they run through the
 * keyspace's capture (a library's code runs at its load, bounded there by Redis's 500 ms), which journals the command
 * when it succeeded; replicas and replays apply it here. {@code FCALL} runs through the capture as {@code EVAL} does.
 */
final class FunctionCommands {

    private static final List<String> HELP = List.of(
            "LOAD [REPLACE] <FUNCTION CODE>",
            "    Create a new library with the given library name and code.",
            "DELETE <LIBRARY NAME>",
            "    Delete the given library.",
            "LIST [LIBRARYNAME PATTERN] [WITHCODE]",
            "    Return general information on all the libraries:",
            "    * Library name",
            "    * The engine used to run the Library",
            "    * Library description",
            "    * Functions list",
            "    * Library code (if WITHCODE is given)",
            "    It also possible to get only function that matches a pattern using LIBRARYNAME argument.",
            "STATS",
            "    Return information about the current function running:",
            "    * Function name",
            "    * Command used to run the function",
            "    * Duration in MS that the function is running",
            "    If no function is running, return nil",
            "    In addition, returns a list of available engines.",
            "KILL",
            "    Kill the current running function.",
            "FLUSH [ASYNC|SYNC]",
            "    Delete all the libraries.",
            "    When called without the optional mode argument, the behavior is determined by the",
            "    lazyfree-lazy-user-flush configuration directive. Valid modes are:",
            "    * ASYNC: Asynchronously flush the libraries.",
            "    * SYNC: Synchronously flush the libraries.",
            "DUMP",
            "    Return a serialized payload representing the current libraries, can be restored using FUNCTION "
                    + "RESTORE command",
            "RESTORE <PAYLOAD> [FLUSH|APPEND|REPLACE]",
            "    Restore the libraries represented by the given payload, it is possible to give a restore policy to",
            "    control how to handle existing libraries (default APPEND):",
            "    * FLUSH: delete all existing libraries.",
            "    * APPEND: appends the restored libraries to the existing libraries. On collision, abort.",
            "    * REPLACE: appends the restored libraries to the existing libraries, On collision, replace the old",
            "      libraries with the new libraries (notice that even on this option there is a chance of failure",
            "      in case of functions name collision with another library).");

    private FunctionCommands() {
    }

    /** @return whether {@code args} is a FUNCTION subcommand that changes the libraries */
    static boolean changes(byte[][] args) {
        if (args.length < 2) {
            return false;
        }
        String sub = Args.text(args[1]).toLowerCase(Locale.ROOT);
        return sub.equals("load") || sub.equals("delete") || sub.equals("flush") || sub.equals("restore");
    }

    static void function(Tx tx, byte[][] a, Reply r) {
        byte[] sub = a[1];
        Functions functions = tx.functions;
        if (Args.is(sub, "load")) {
            if (a.length < 3) {
                throw CommandError.arity("function|load");
            }
            boolean replace = false;
            int at = 2;
            while (at < a.length - 1) {
                byte[] option = a[at++];
                if (!Args.is(option, "replace")) {
                    throw new CommandError("ERR Unknown option given: " + Args.text(option));
                }
                replace = true;
            }
            r.bulk(Args.ascii(functions.load(tx, a[at], replace)));
        } else if (Args.is(sub, "delete")) {
            ObjectCommands.arity(a, 3, "function|delete");
            functions.delete(tx, a[2]);
            r.simple("OK");
        } else if (Args.is(sub, "flush")) {
            if (a.length > 3) {
                throw syntax("flush");
            }
            if (a.length == 3 && !Args.is(a[2], "sync") && !Args.is(a[2], "async")) {
                throw new CommandError("ERR FUNCTION FLUSH only supports SYNC|ASYNC option");
            }
            functions.flush(tx);
            r.simple("OK");
        } else if (Args.is(sub, "restore")) {
            if (a.length < 3) {
                throw CommandError.arity("function|restore");
            }
            if (a.length > 4) {
                throw syntax("restore");
            }
            String policy = "append";
            if (a.length == 4) {
                policy = Args.text(a[3]).toLowerCase(Locale.ROOT);
                if (!policy.equals("append") && !policy.equals("replace") && !policy.equals("flush")) {
                    throw new CommandError("ERR Wrong restore policy given, value should be either FLUSH, APPEND or "
                            + "REPLACE.");
                }
            }
            functions.restore(tx, a[2], policy);
            r.simple("OK");
        } else if (Args.is(sub, "dump")) {
            ObjectCommands.arity(a, 2, "function|dump");
            r.bulk(functions.dump());
        } else if (Args.is(sub, "list")) {
            functions.list(a, r);
        } else if (Args.is(sub, "stats")) {
            ObjectCommands.arity(a, 2, "function|stats");
            functions.stats(r);
        } else if (Args.is(sub, "kill")) {
            ObjectCommands.arity(a, 2, "function|kill");
            // a function running now holds the logic thread: the front end answers FUNCTION KILL then, not this
            r.error("NOTBUSY No scripts in execution right now.");
        } else if (Args.is(sub, "help")) {
            ObjectCommands.arity(a, 2, "function|help");
            ObjectCommands.help(r, "FUNCTION", HELP);
        } else {
            throw ObjectCommands.unknownSubcommand(sub, "FUNCTION");
        }
    }

    /** {@code addReplySubcommandSyntaxError}. */
    private static CommandError syntax(String sub) {
        return new CommandError("ERR unknown subcommand or wrong number of arguments for '" + sub
                + "'. Try FUNCTION HELP.");
    }
}
