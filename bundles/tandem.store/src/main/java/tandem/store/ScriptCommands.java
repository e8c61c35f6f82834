package tandem.store;

import java.util.List;

import tandem.api.store.Reply;

/**
 * {@code SCRIPT LOAD|EXISTS|FLUSH|KILL|DEBUG|HELP}: the node's own script cache, which is not replicated (Redis 7
 * replicates what scripts write, not the scripts). {@code EVAL} and its kin never run here: the node runs them through
 * {@link RocksKeyspace#capture}, which journals their effects.
 */
final class ScriptCommands {

    private static final List<String> HELP = List.of(
            "DEBUG (YES|SYNC|NO)",
            "    Set the debug mode for subsequent scripts executed.",
            "EXISTS <sha1> [<sha1> ...]",
            "    Return information about the existence of the scripts in the script cache.",
            "FLUSH [ASYNC|SYNC]",
            "    Flush the Lua scripts cache. Very dangerous on replicas.",
            "    When called without the optional mode argument, the behavior is determined by the",
            "    lazyfree-lazy-user-flush configuration directive. Valid modes are:",
            "    * ASYNC: Asynchronously flush the scripts cache.",
            "    * SYNC: Synchronously flush the scripts cache.",
            "KILL",
            "    Kill the currently executing Lua script.",
            "LOAD <script>",
            "    Load a script into the scripts cache without executing it.");

    private ScriptCommands() {
    }

    /** EVAL, EVALSHA and their _RO forms reach the keyspace only through its capture. */
    static void elsewhere(Tx tx, byte[][] a, Reply r) {
        r.error("ERR " + Args.text(a[0]) + " runs through the node, which journals what it writes");
    }

    static void script(Tx tx, byte[][] a, Reply r) {
        byte[] sub = a[1];
        if (Args.is(sub, "help")) {
            ObjectCommands.arity(a, 2, "script|help");
            ObjectCommands.help(r, "SCRIPT", HELP);
        } else if (Args.is(sub, "load")) {
            ObjectCommands.arity(a, 3, "script|load");
            String sha = tx.scripts.load(a[2]);
            if (sha.startsWith("-")) {
                r.error(sha.substring(1));
            } else {
                r.bulk(Args.ascii(sha));
            }
        } else if (Args.is(sub, "exists")) {
            if (a.length < 3) {
                throw CommandError.arity("script|exists");
            }
            r.array(a.length - 2);
            for (int i = 2; i < a.length; i++) {
                r.integer(tx.scripts.exists(a[i]) ? 1 : 0);
            }
        } else if (Args.is(sub, "flush")) {
            if (a.length > 3 || a.length == 3 && !Args.is(a[2], "sync") && !Args.is(a[2], "async")) {
                throw new CommandError("ERR SCRIPT FLUSH only support SYNC|ASYNC option");
            }
            tx.scripts.flush();
            r.simple("OK");
        } else if (Args.is(sub, "kill")) {
            ObjectCommands.arity(a, 2, "script|kill");
            // a script running now holds the logic thread: the front end answers SCRIPT KILL then, not this
            r.error("NOTBUSY No scripts in execution right now.");
        } else if (Args.is(sub, "debug")) {
            ObjectCommands.arity(a, 3, "script|debug");
            if (!Args.is(a[2], "no")) {
                throw new CommandError("ERR Tandem has no Lua debugger: SCRIPT DEBUG supports NO only");
            }
            r.simple("OK");
        } else {
            throw ObjectCommands.unknownSubcommand(sub, "SCRIPT");
        }
    }
}
