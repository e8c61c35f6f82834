package tandem.server.command;

import java.nio.charset.StandardCharsets;

import tandem.api.server.ClientInfo;

/**
 * Per-connection state. Only the connection's event loop writes it; the shell reads it through the volatile fields.
 */
public final class ClientSession {

    private final long id;
    private final String remoteAddress;
    private final long createdNanos = System.nanoTime();
    private volatile long lastCommandNanos = createdNanos;
    private volatile String lastCommand = "";
    private volatile byte[] name;
    private int db;

    public ClientSession(long id, String remoteAddress) {
        this.id = id;
        this.remoteAddress = remoteAddress;
    }

    public long id() {
        return id;
    }

    public String remoteAddress() {
        return remoteAddress;
    }

    /** @return the name set by {@code CLIENT SETNAME}, or null */
    public byte[] name() {
        return name;
    }

    public void name(byte[] newName) {
        this.name = newName == null || newName.length == 0 ? null : newName;
    }

    public String nameAsString() {
        byte[] n = name;
        return n == null ? "" : new String(n, StandardCharsets.UTF_8);
    }

    public int db() {
        return db;
    }

    public void db(int index) {
        this.db = index;
    }

    public void commandReceived(String commandName) {
        lastCommand = commandName;
        lastCommandNanos = System.nanoTime();
    }

    public String lastCommand() {
        return lastCommand;
    }

    public long ageSeconds() {
        return (System.nanoTime() - createdNanos) / 1_000_000_000L;
    }

    /** @return a snapshot for {@code CLIENT LIST} and the shell */
    public ClientInfo info() {
        return new ClientInfo(id, nameAsString(), remoteAddress, ageSeconds(), idleSeconds(), lastCommand);
    }

    public long idleSeconds() {
        return (System.nanoTime() - lastCommandNanos) / 1_000_000_000L;
    }
}
