package tandem.api.server;

/**
 * One connected RESP client.
 *
 * @param id            the connection's id, unique for the life of the node, as {@code CLIENT ID} answers it
 * @param name          the name set by {@code CLIENT SETNAME}, empty when none
 * @param remoteAddress the peer as {@code ip:port}
 * @param ageSeconds    seconds since the connection was accepted
 * @param idleSeconds   seconds since the last command was received
 * @param lastCommand   the name of the last command received, lower case, empty before the first
 * @param db            the database the connection selected ({@code SELECT}), 0 until it selects another
 * @param resp          the protocol the connection speaks, 2 or 3 ({@code HELLO}), as {@code CLIENT LIST}'s
 *                      {@code resp=} (since 1.8)
 * @param localAddress  this node's end of the connection as {@code ip:port}, {@code CLIENT LIST}'s {@code laddr=};
 *                      empty when unknown (since 1.8)
 * @param user          the ACL user the connection runs as, {@code CLIENT LIST}'s {@code user=} (since 1.10)
 * @param multi         whether the connection is in a transaction ({@code MULTI} sent, no {@code EXEC} yet),
 *                      {@code CLIENT LIST}'s flag {@code x} (since 1.10)
 */
public record ClientInfo(long id, String name, String remoteAddress, long ageSeconds, long idleSeconds,
        String lastCommand, int db, int resp, String localAddress, String user, boolean multi) {

    /** A client of the {@code default} user, outside a transaction. */
    public ClientInfo(long id, String name, String remoteAddress, long ageSeconds, long idleSeconds,
            String lastCommand, int db, int resp, String localAddress) {
        this(id, name, remoteAddress, ageSeconds, idleSeconds, lastCommand, db, resp, localAddress, "default", false);
    }

    /** A client speaking RESP2. */
    public ClientInfo(long id, String name, String remoteAddress, long ageSeconds, long idleSeconds,
            String lastCommand, int db) {
        this(id, name, remoteAddress, ageSeconds, idleSeconds, lastCommand, db, 2, "");
    }

    /** A client in database 0. */
    public ClientInfo(long id, String name, String remoteAddress, long ageSeconds, long idleSeconds,
            String lastCommand) {
        this(id, name, remoteAddress, ageSeconds, idleSeconds, lastCommand, 0);
    }
}
