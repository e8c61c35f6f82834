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
 */
public record ClientInfo(long id, String name, String remoteAddress, long ageSeconds, long idleSeconds,
        String lastCommand, int db) {

    /** A client in database 0. */
    public ClientInfo(long id, String name, String remoteAddress, long ageSeconds, long idleSeconds,
            String lastCommand) {
        this(id, name, remoteAddress, ageSeconds, idleSeconds, lastCommand, 0);
    }
}
