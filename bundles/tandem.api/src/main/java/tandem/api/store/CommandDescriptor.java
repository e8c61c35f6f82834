package tandem.api.store;

import java.util.List;

/**
 * What the pipeline needs to know of a keyspace command before it runs it.
 *
 * @param name     lower-case name
 * @param arity    Redis' arity: n exactly n arguments including the name, -n at least n
 * @param write    true when the command may change the keyspace: it is sequenced and journaled
 * @param firstKey index of the first key argument (0 when none), for {@code key_hash} and {@code WATCH}
 * @param lastKey  index of the last key argument (-1 = the last argument, 0 when none)
 * @param keyStep  distance between key arguments (0 when none)
 * @param flags    Redis command flags ({@code write}, {@code readonly}, {@code fast}, {@code denyoom}…)
 * @param group    documentation group ({@code string}, {@code generic}, {@code hash}, {@code server})
 * @param since    the Redis version that introduced it
 * @param summary  one line of documentation
 */
public record CommandDescriptor(String name, int arity, boolean write, int firstKey, int lastKey, int keyStep,
        List<String> flags, String group, String since, String summary) {
}
