package tandem.server.command;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;

import tandem.api.store.CommandDescriptor;

/** The keyspace's commands as {@code COMMAND} lists them. */
public final class KeyspaceCommands {

    private KeyspaceCommands() {
    }

    /** @return one spec per descriptor; the specs have no handler, the pipeline runs these commands */
    public static Collection<CommandSpec> specs(Collection<CommandDescriptor> descriptors) {
        List<CommandSpec> specs = new ArrayList<>(descriptors.size());
        for (CommandDescriptor d : descriptors) {
            List<String> acl = List.of(d.write() ? "write" : "read", d.group());
            specs.add(new CommandSpec(d.name(), d.name(), d.arity(), d.flags(), acl, d.group(), d.summary(),
                    d.since(), "O(1)", null, subcommands(d)));
        }
        return specs;
    }

    /**
     * The subcommands the store answers of its containers (its {@code ObjectCommands} and
     * {@code StreamCommands}, {@code ScriptCommands}, {@code FunctionCommands}), for {@code COMMAND}: the store's descriptors name commands, not subcommands.
     */
    private static final Map<String, List<String>> SUBCOMMANDS = Map.of(
            "object", List.of("encoding", "freq", "help", "idletime", "refcount"),
            "memory", List.of("help", "usage"),
            "script", List.of("debug", "exists", "flush", "help", "kill", "load"),
            "function", List.of("delete", "dump", "flush", "help", "kill", "list", "load", "restore", "stats"),
            "xgroup", List.of("create", "createconsumer", "delconsumer", "destroy", "help", "setid"),
            "xinfo", List.of("consumers", "groups", "help", "stream"));

    private static Map<String, CommandSpec> subcommands(CommandDescriptor d) {
        List<String> names = SUBCOMMANDS.get(d.name());
        if (names == null) {
            return Map.of();
        }
        Map<String, CommandSpec> subs = new java.util.LinkedHashMap<>();
        for (String sub : names) {
            subs.put(sub, new CommandSpec(sub, d.name() + "|" + sub, -2, d.flags(), List.of(d.write() ? "write"
                    : "read", d.group()), d.group(), d.summary(), d.since(), "O(1)", null, Map.of()));
        }
        return subs;
    }
}
