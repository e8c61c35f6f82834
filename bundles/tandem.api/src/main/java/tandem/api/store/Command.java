package tandem.api.store;

/**
 * One request, understood once. The front end resolves a request's name when it decodes it (the node resolves a
 * journaled entry's when it reads it) and this value then travels through the check, sequencing, journaling, apply,
 * accounting and statistics: nobody turns the name into a string, folds its case or looks it up again.
 *
 * <p>Which table resolved it decides what it holds: a keyspace command ({@link Keyspace#resolve}) has its
 * {@link #descriptor()} and the keyspace's own implementation; a command of the front end's table has its name and
 * the front end's implementation; a name no table knows has neither ({@link #unknown}). The implementation is the
 * resolving table's business: another party passes it back untouched, and a table that finds someone else's (a
 * command resolved by a keyspace since replaced) resolves the arguments again.
 *
 * <p>A check before sequencing may leave what it parsed ({@link #parsed(Object)}) for the apply of the same command
 * to use, so that options are parsed once on the node that sequences the write; a replica or a replay, which never
 * ran the check, parses them while applying.
 *
 * <p>Not thread-safe: a command belongs to one thread at a time, and is handed from the front end's thread to the
 * node's logic thread through a queue.
 */
public final class Command {

    private final byte[][] args;
    private final String name;
    private final CommandDescriptor descriptor;
    private final Object implementation;
    private final long keyHash;
    private Object parsed;
    private int db;

    private Command(byte[][] args, String name, CommandDescriptor descriptor, Object implementation, long keyHash) {
        if (args == null || args.length == 0) {
            throw new IllegalArgumentException("a command has at least its name");
        }
        this.args = args;
        this.name = name;
        this.descriptor = descriptor;
        this.implementation = implementation;
        this.keyHash = keyHash;
    }

    /** A request whose name no table knows: answered with Redis' unknown-command error. */
    public static Command unknown(byte[][] args) {
        return new Command(args, null, null, null, 0);
    }

    /**
     * A command of the front end's own table.
     *
     * @param name           its lower-case name as the table spells it ({@code ping}, {@code client|list})
     * @param implementation the front end's, opaque to everyone else
     */
    public static Command frontend(byte[][] args, String name, Object implementation) {
        return new Command(args, name, null, implementation, 0);
    }

    /**
     * A keyspace command.
     *
     * @param name           its lower-case name as the keyspace's table spells it (a woken form too:
     *                       {@code blpop|woken}, see {@link Keyspace#WOKEN_SUFFIX})
     * @param implementation the keyspace's, opaque to everyone else
     * @param keyHash        the FNV-1a 64-bit hash of its first key, 0 when it names none (the journal's
     *                       {@code key_hash})
     */
    public static Command keyspace(byte[][] args, String name, CommandDescriptor descriptor, Object implementation,
            long keyHash) {
        if (descriptor == null) {
            throw new IllegalArgumentException("a keyspace command has a descriptor");
        }
        return new Command(args, name, descriptor, implementation, keyHash);
    }

    /** @return the name followed by the arguments, as received; never modify them */
    public byte[][] args() {
        return args;
    }

    /** @return the lower-case name as the resolving table spells it, or null when no table knows it */
    public String name() {
        return name;
    }

    /** @return what the keyspace says of it, or null when it is not a keyspace command */
    public CommandDescriptor descriptor() {
        return descriptor;
    }

    /** @return the resolving table's implementation, or null */
    public Object implementation() {
        return implementation;
    }

    /** @return true for a keyspace command */
    public boolean isKeyspace() {
        return descriptor != null;
    }

    /** @return true for a keyspace command that may change the keyspace: it is sequenced and journaled */
    public boolean isWrite() {
        return descriptor != null && descriptor.write();
    }

    /** @return true for a command of the front end's table */
    public boolean isFrontend() {
        return descriptor == null && name != null;
    }

    /** @return the FNV-1a 64-bit hash of the first key, 0 when none or not a keyspace command */
    public long keyHash() {
        return keyHash;
    }

    /** @return whether the arguments' count satisfies the arity of a keyspace command (false for others) */
    public boolean arityHolds() {
        if (descriptor == null) {
            return false;
        }
        int arity = descriptor.arity();
        return arity >= 0 ? args.length == arity : args.length >= -arity;
    }

    /** @return what the keyspace's check parsed, for its apply, or null */
    public Object parsed() {
        return parsed;
    }

    /** Keeps what the keyspace's check parsed, for the apply of this same command. */
    public void parsed(Object value) {
        this.parsed = value;
    }

    /**
     * @return the database the command works in ({@code SELECT}'s index, 0 to {@link Keyspace#DATABASES} - 1),
     *         as the node core set it when the command took its turn
     * @since 4.1
     */
    public int db() {
        return db;
    }

    /**
     * Sets the database the command works in; the node core does, in the order of the connection's commands.
     *
     * @return this command
     * @since 4.1
     */
    public Command db(int index) {
        if (index < 0 || index >= Keyspace.DATABASES) {
            throw new IllegalArgumentException("database " + index + " is not within 0.." + (Keyspace.DATABASES - 1));
        }
        this.db = index;
        return this;
    }

    @Override
    public String toString() {
        return name != null ? name : new String(args[0], java.nio.charset.StandardCharsets.ISO_8859_1);
    }
}
