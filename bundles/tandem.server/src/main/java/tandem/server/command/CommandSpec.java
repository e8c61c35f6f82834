package tandem.server.command;

import java.util.List;
import java.util.Map;

/**
 * What the server knows of a command: how to run it, and what {@code COMMAND INFO} and {@code COMMAND DOCS} say
 * of it.
 *
 * @param name        lower-case name ({@code get}); for a subcommand the subcommand alone ({@code getname})
 * @param fullName    the name Redis uses in errors: {@code get}, or {@code client|getname} for a subcommand
 * @param arity       Redis' arity: n means exactly n arguments including the name, -n means at least n
 * @param flags       Redis command flags ({@code fast}, {@code loading}, {@code stale}…)
 * @param aclCategories ACL categories without the {@code @}
 * @param group       documentation group ({@code connection}, {@code server})
 * @param summary     one-line documentation
 * @param since       the Redis version that introduced it
 * @param complexity  documentation of its cost
 * @param handler     the implementation; null for a container whose subcommands do the work
 * @param subcommands by lower-case subcommand name; empty for a plain command
 */
public record CommandSpec(String name, String fullName, int arity, List<String> flags, List<String> aclCategories,
        String group, String summary, String since, String complexity, Command handler,
        Map<String, CommandSpec> subcommands) {

    public boolean isContainer() {
        return !subcommands.isEmpty();
    }

    /** @return whether {@code argc} arguments (the name included) satisfy the arity */
    public boolean acceptsArgc(int argc) {
        return arity >= 0 ? argc == arity : argc >= -arity;
    }
}
