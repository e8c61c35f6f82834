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
    private volatile int db;
    private volatile int resp = 2;
    private volatile String localAddress = "";
    private volatile boolean authenticated;
    /** The ACL user the connection runs as ({@code AUTH}, {@code HELLO … AUTH}); {@code default} until then. */
    private volatile String user = "default";
    /** Whether the connection is between {@code MULTI} and {@code EXEC}, for {@code ACL LOG}'s context. */
    private volatile boolean multi;
    private volatile boolean replica;
    private int listeningPort;
    private java.util.Set<String> capabilities = java.util.Set.of();
    private String replicaVersion;
    private final tandem.server.pubsub.Subscriptions subscriptions = new tandem.server.pubsub.Subscriptions();

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

    private volatile tandem.server.pubsub.Tracking.Target trackingTarget;

    /** @return where this connection's invalidations of client-side caching go, or null */
    public tandem.server.pubsub.Tracking.Target trackingTarget() {
        return trackingTarget;
    }

    public void trackingTarget(tandem.server.pubsub.Tracking.Target target) {
        this.trackingTarget = target;
    }

    public void db(int index) {
        this.db = index;
    }

    /** @return the ACL user the connection runs as */
    public String user() {
        return user;
    }

    /** Authenticated as {@code name} ({@code AUTH}, {@code HELLO … AUTH}). */
    public void user(String name) {
        this.user = name;
        this.authenticated = true;
    }

    /** {@code RESET}: back to the {@code default} user, authenticated when it needs no password. */
    public void resetUser(boolean authenticated) {
        this.user = "default";
        this.authenticated = authenticated;
    }

    public boolean multi() {
        return multi;
    }

    public void multi(boolean value) {
        this.multi = value;
    }

    /** @return whether the connection authenticated ({@code AUTH}, {@code HELLO}), or needed not */
    public boolean authenticated() {
        return authenticated;
    }

    public void authenticated(boolean value) {
        authenticated = value;
    }

    /** @return whether the connection was handed to the psync protocol ({@code PSYNC}): a replica, not a client */
    public boolean replica() {
        return replica;
    }

    public void replica(boolean value) {
        replica = value;
    }

    /** @return the port announced with {@code REPLCONF listening-port}, 0 when none */
    public int listeningPort() {
        return listeningPort;
    }

    public void listeningPort(int port) {
        listeningPort = port;
    }

    /** @return the tokens announced with {@code REPLCONF capa}, lower case */
    public java.util.Set<String> capabilities() {
        return capabilities;
    }

    public void capability(String token) {
        java.util.Set<String> next = new java.util.LinkedHashSet<>(capabilities);
        next.add(token);
        capabilities = java.util.Set.copyOf(next);
    }

    /** @return the version announced with {@code REPLCONF tandem-version} or {@code frogdb-version}, or null */
    public String replicaVersion() {
        return replicaVersion;
    }

    public void replicaVersion(String version) {
        replicaVersion = version;
    }

    /** @return what the connection is subscribed to (its commands' thread writes it, any thread reads the counts) */
    public tandem.server.pubsub.Subscriptions subscriptions() {
        return subscriptions;
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
        return new ClientInfo(id, nameAsString(), remoteAddress, ageSeconds(), idleSeconds(), lastCommand, db, resp,
                localAddress, user, multi);
    }

    /** Sets this node's end of the connection, {@code ip:port}, for {@code CLIENT LIST}'s {@code laddr=}. */
    public void localAddress(String address) {
        localAddress = address;
    }

    /** @return the protocol the client speaks ({@code HELLO}), for {@code CLIENT LIST}'s {@code resp=} */
    public int resp() {
        return resp;
    }

    public void resp(int version) {
        resp = version;
    }

    public long idleSeconds() {
        return (System.nanoTime() - lastCommandNanos) / 1_000_000_000L;
    }
}
