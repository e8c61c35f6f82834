package tandem.system.fuzz;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The commands a server implements, read from its {@code COMMAND} reply: name, arity, flags and subcommands. The
 * fuzzer generates exactly these, so a command added to Tandem is fuzzed from the next run on.
 */
final class Catalogue {

    /** One command or subcommand ({@code client|id}). */
    record Cmd(String name, int arity, Set<String> flags, Map<String, Cmd> subcommands) {

        boolean isKeyspace() {
            return flags.contains("write") || flags.contains("readonly");
        }

        boolean isWrite() {
            return flags.contains("write");
        }

        /** The subcommand's own name: {@code id} for {@code client|id}. */
        String shortName() {
            int bar = name.indexOf('|');
            return bar < 0 ? name : name.substring(bar + 1);
        }
    }

    final Map<String, Cmd> commands;

    private Catalogue(Map<String, Cmd> commands) {
        this.commands = Collections.unmodifiableMap(commands);
    }

    static Catalogue parse(Reply command) {
        if (!command.isArray()) {
            throw new IllegalArgumentException("COMMAND answered " + command);
        }
        Map<String, Cmd> out = new LinkedHashMap<>();
        for (Reply entry : command.items) {
            Cmd c = cmd(entry);
            out.put(c.name(), c);
        }
        return new Catalogue(out);
    }

    private static Cmd cmd(Reply entry) {
        List<Reply> e = entry.items;
        String name = e.get(0).text().toLowerCase(Locale.ROOT);
        int arity = Integer.parseInt(e.get(1).text());
        Set<String> flags = new LinkedHashSet<>();
        for (Reply f : e.get(2).items) {
            flags.add(f.text().toLowerCase(Locale.ROOT));
        }
        Map<String, Cmd> subs = new LinkedHashMap<>();
        if (e.size() > 9 && e.get(9).isArray()) {
            for (Reply s : e.get(9).items) {
                Cmd sub = cmd(s);
                subs.put(sub.shortName(), sub);
            }
        }
        return new Cmd(name, arity, flags, subs);
    }

    Cmd get(String name) {
        return commands.get(name);
    }

    /** A stable fingerprint of the catalogue (names, arities, subcommands) for reports. */
    String fingerprint() {
        StringBuilder sb = new StringBuilder();
        commands.values().forEach(c -> sb.append(c.name()).append(c.arity()).append(c.subcommands().keySet()));
        return Integer.toHexString(sb.toString().hashCode());
    }
}
