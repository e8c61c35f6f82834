package tandem.server.command;

/** Executes one command whose name, subcommand and arity the table has already checked. */
@FunctionalInterface
public interface Command {

    /**
     * @param ctx  the connection, its reply writer and the server
     * @param args the command name followed by its arguments, as received
     */
    void execute(CommandContext ctx, byte[][] args);
}
