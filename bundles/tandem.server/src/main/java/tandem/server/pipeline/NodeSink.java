package tandem.server.pipeline;

import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Supplier;

import tandem.api.node.NodeClient;
import tandem.api.node.NodeSession;
import tandem.api.store.Command;
import tandem.server.command.Auth;
import tandem.server.command.CommandTable;
import tandem.server.resp.RespProtocolError;
import tandem.server.resp.RespRequest;

/**
 * Hands each connection's decoded requests to the node core, in arrival order, on the connection's event loop. The
 * {@code requirepass} gate is here: a client that has not authenticated gets {@code -NOAUTH} for everything but
 * {@code AUTH}, {@code HELLO} and {@code QUIT}, answered in order with its other replies by the node core.
 *
 * @param node        opens a connection's session with the node core
 * @param keyspace    resolves a keyspace command ({@link tandem.api.node.Node#resolve}), or null
 * @param table       the server's own commands, resolved first
 * @param frontend    sends the replies and keeps the statistics
 * @param requirePass the password of {@code requirepass} now, or null
 */
public record NodeSink(Function<NodeClient, NodeSession> node, Function<byte[][], Command> keyspace,
        CommandTable table, NodeFrontend frontend, Supplier<String> requirePass) implements RequestSink {

    private static final Set<String> AUTH_EXEMPT = Set.of("auth", "hello", "quit");
    static final String NOAUTH = "NOAUTH Authentication required.";

    @Override
    public void opened(Connection c) {
        c.node(node.apply(c), frontend);
    }

    @Override
    public void submit(Connection c, Object message) {
        if (message instanceof RespProtocolError error) {
            Protocol.log(c, error);
            c.node().fail(error.reply() == null ? null : "ERR " + error.reply());
            return;
        }
        byte[][] args = ((RespRequest) message).args();
        frontend.received(c, args);
        Command command = table.resolve(args, keyspace);
        String name = command.name() != null ? command.name()
                : new String(args[0], StandardCharsets.ISO_8859_1).toLowerCase(Locale.ROOT);
        // CLIENT LIST's cmd= and idle=: every command counts, those the node core runs (GET, BLPOP…) too
        c.session().commandReceived(name);
        String password = requirePass.get();
        if (password != null && !c.session().authenticated()) {
            if (name.equals("auth") || name.equals("hello")) {
                // decided now, in arrival order: a client may pipeline its first command right behind AUTH
                byte[][] credentials = Auth.credentials(args);
                if (credentials != null && Auth.check(password, credentials[0], credentials[1]) == null) {
                    c.session().authenticated(true);
                }
            }
            if (!c.session().authenticated() && !AUTH_EXEMPT.contains(name)) {
                c.node().refuse(command, NOAUTH);
                return;
            }
        }
        c.node().request(command);
    }

    @Override
    public void readComplete(Connection c) {
        frontend.readComplete(c);
        c.node().flush(); // the read's requests reach the node core together; its replies leave at its round's end
    }

    @Override
    public void closed(Connection c) {
        frontend.closed(c);
        c.node().closed();
    }
}
