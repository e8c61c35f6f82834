package tandem.node;

import java.nio.charset.StandardCharsets;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import tandem.api.store.Command;
import tandem.api.store.CommandDescriptor;
import tandem.api.store.Keyspace;
import tandem.api.store.KeyspaceEvents;
import tandem.api.store.Reply;
import tandem.api.store.StoreStatus;

/** GET, SET and INCR over a map; enough to observe ordering. */
public final class MapKeyspace implements Keyspace {
    private final Map<String, String> data = new HashMap<>();
    private volatile long applied;

    private static final List<CommandDescriptor> COMMANDS = List.of(
            new CommandDescriptor("get", 2, false, 1, 1, 1, List.of("readonly"), "string", "1.0.0", "Get"),
            new CommandDescriptor("set", 3, true, 1, 1, 1, List.of("write"), "string", "1.0.0", "Set"),
            new CommandDescriptor("incr", 2, true, 1, 1, 1, List.of("write"), "string", "1.0.0", "Incr"),
            new CommandDescriptor("boom", 2, true, 1, 1, 1, List.of("write"), "string", "1.0.0", "Boom"));

    @Override
    public Collection<CommandDescriptor> commands() {
        return COMMANDS;
    }

    @Override
    public CommandDescriptor describe(String name) {
        return COMMANDS.stream().filter(d -> d.name().equals(name)).findFirst().orElse(null);
    }

    @Override
    public Command resolve(byte[][] args) {
        String name = new String(args[0], StandardCharsets.ISO_8859_1).toLowerCase(java.util.Locale.ROOT);
        CommandDescriptor d = describe(name);
        return d == null ? null : Command.keyspace(args, d.name(), d, this, 0);
    }

    @Override
    public void apply(long sequence, long timestampNs, Command command, Reply reply) {
        run(command.args(), reply);
        applied = sequence;
    }

    private void run(byte[][] args, Reply reply) {
        String name = new String(args[0], StandardCharsets.ISO_8859_1).toLowerCase();
        String key = new String(args[1], StandardCharsets.ISO_8859_1);
        switch (name) {
            case "get" -> {
                String v = data.get(key);
                if (v == null) {
                    reply.nullBulk();
                } else {
                    reply.bulk(v.getBytes(StandardCharsets.ISO_8859_1));
                }
            }
            case "set" -> {
                data.put(key, new String(args[2], StandardCharsets.ISO_8859_1));
                reply.simple("OK");
                KeyspaceEvents sink = events;
                if (sink != null && sink.classes() != 0) {
                    sink.event(KeyspaceEvents.STRING, "set", 0, args[1]);
                }
            }
            case "incr" -> {
                long v = Long.parseLong(data.getOrDefault(key, "0")) + 1;
                data.put(key, Long.toString(v));
                reply.integer(v);
            }
            case "boom" -> {
                // the apply bug the fail-stop tests inject: half a reply, then an unexpected exception
                if (!defused) {
                    reply.array(2);
                    throw new ArrayIndexOutOfBoundsException("boom");
                }
                data.put(key, "boomed");
                reply.simple("OK");
            }
            default -> throw new IllegalArgumentException(name);
        }
    }

    private volatile KeyspaceEvents events;

    @Override
    public void events(KeyspaceEvents sink) {
        events = sink;
    }

    /** Set by a test to play a fixed store bundle: BOOM then applies. */
    public volatile boolean defused;

    @Override
    public void applyTransaction(long sequence, long timestampNs, List<Command> commands, Reply reply) {
        reply.array(commands.size());
        for (Command c : commands) {
            run(c.args(), reply);
        }
        applied = sequence;
    }

    @Override
    public void tick(long sequence, long timestampNs) {
        applied = sequence;
    }

    @Override
    public void advance(long sequence) {
        applied = sequence;
    }

    long epoch;

    @Override
    public void epochBump(long sequence, long newEpoch) {
        applied = sequence;
        epoch = newEpoch;
    }

    @Override
    public long epoch() {
        return epoch;
    }

    @Override
    public void read(long nowNs, Command command, Reply reply) {
        run(command.args(), reply);
    }

    /** A SET of the value {@code bad} fails whatever the map holds. */
    @Override
    public String check(Command command, long nowNs) {
        byte[][] args = command.args();
        return args.length == 3 && new String(args[2], StandardCharsets.ISO_8859_1).equals("bad")
                ? "ERR bad value" : null;
    }

    @Override
    public void refuse(long nowNs, Command command, Reply reply) {
        byte[][] args = command.args();
        refused++;
        reply.error("ERR bad value (the key holds " + data.get(new String(args[1], StandardCharsets.ISO_8859_1))
                + ")");
    }

    public volatile int refused;

    @Override
    public long checkpoint(java.nio.file.Path directory) {
        throw new UnsupportedOperationException("not used by these tests");
    }

    /** What {@link #install} puts in place, by checkpoint path: a test prepares it. */
    public final Map<java.nio.file.Path, Map<String, String>> checkpoints = new java.util.concurrent.ConcurrentHashMap<>();
    private volatile Origin origin;

    @Override
    public long install(java.nio.file.Path checkpoint, long sequence, byte[] chain) {
        Map<String, String> content = checkpoints.remove(checkpoint);
        if (content == null) {
            throw new IllegalArgumentException("no checkpoint at " + checkpoint);
        }
        data.clear();
        data.putAll(content);
        applied = sequence;
        origin = new Origin(sequence, chain);
        return sequence;
    }

    @Override
    public Origin origin() {
        return origin;
    }

    @Override
    public void reconciled() {
        origin = null;
    }

    /** The applied sequence at the last commit: what a real store would have written to disk. */
    public volatile long committed;

    @Override
    public void commit() {
        committed = applied; // applies are visible at once here; the test sees what would reach the disk
    }

    @Override
    public long appliedSequence() {
        return applied;
    }

    @Override
    public long nextDeadlineNs() {
        return Long.MAX_VALUE;
    }

    @Override
    public byte[] digest() {
        return new byte[32];
    }

    @Override
    public StoreStatus status() {
        return new StoreStatus("mem", applied, applied, data.size(), 0, 0);
    }
}
