package tandem.system.fuzz;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Two client connections (A and B) to Redis and the same two to Tandem, and the transaction state of each as
 * Redis' replies show it (Redis is the reference: MULTI answered +OK opens a transaction, +QUEUED queues).
 */
final class Session implements AutoCloseable {

    final Conn[] redis = new Conn[2];
    final Conn[] tandem = new Conn[2];
    final boolean[] inMulti = new boolean[2];
    /** The database each connection has selected, as Redis' replies show it. */
    final int[] db = new int[2];
    /**
     * The keys ({@code db:key}) whose deadline both servers were given as the same instant (EXPIREAT, PEXPIREAT,
     * SET or GETEX with EXAT or PXAT) and that nothing has written since: their EXPIRETIME and PEXPIRETIME must be
     * equal to the millisecond.
     */
    private final java.util.Set<String> absolute = new java.util.HashSet<>();
    final List<List<List<byte[]>>> queued = List.of(new ArrayList<>(), new ArrayList<>());

    Session(int redisPort, int tandemPort, Duration timeout, int protocol) throws IOException {
        for (int i = 0; i < 2; i++) {
            redis[i] = new Conn("redis", redisPort, timeout, protocol);
            tandem[i] = new Conn("tandem", tandemPort, timeout, protocol);
        }
    }

    /** Opens connection {@code conn} again on both servers (after QUIT, a drop or a hang). */
    void reconnect(int conn) throws IOException {
        redis[conn].reconnect();
        tandem[conn].reconnect();
        inMulti[conn] = false;
        queued.get(conn).clear();
        db[conn] = 0;
    }

    /** A fresh keyspace (an episode's FLUSHALL): no deadline is known. */
    void flushed() {
        absolute.clear();
    }

    void reconnectAll() throws IOException {
        reconnect(0);
        reconnect(1);
    }

    /** Follows MULTI/EXEC/DISCARD on {@code conn} from Redis' reply to {@code cmd}. */
    void track(int conn, List<byte[]> cmd, Reply redisReply) {
        String n = Commands.name(cmd);
        if (inMulti[conn]) {
            switch (n) {
                case "exec", "discard" -> {
                    if (n.equals("exec") && redisReply.isArray()) {
                        List<List<byte[]>> ran = queued.get(conn);
                        for (int i = 0; i < ran.size() && i < redisReply.items.size(); i++) {
                            selected(conn, ran.get(i), redisReply.items.get(i));
                        }
                    }
                    inMulti[conn] = false;
                    if (n.equals("discard") && redisReply.isError()) {
                        inMulti[conn] = true;
                    }
                }
                default -> {
                    if (redisReply.type == '+' && "QUEUED".equals(redisReply.text())) {
                        queued.get(conn).add(cmd);
                    }
                }
            }
        } else if (selected(conn, cmd, redisReply)) {
            return;
        } else if (n.equals("multi") && redisReply.type == '+') {
            inMulti[conn] = true;
            queued.get(conn).clear();
        }
    }

    /**
     * Follows which keys have a deadline given as an instant: marks the key of a command that set one (as Redis
     * answered it), forgets every key a write names, and all of them after a write that may touch keys it does not
     * name (a transaction, FLUSHALL, SWAPDB…).
     */
    void deadlines(int conn, List<byte[]> cmd, Reply redisReply, boolean write) {
        String n = Commands.name(cmd);
        if (inMulti[conn] && !n.equals("exec")) {
            return;
        }
        if (java.util.Set.of("exec", "flushall", "flushdb", "swapdb", "move", "copy", "rename", "renamenx",
                "restore", "migrate", "select", "reset", "quit").contains(n)) {
            absolute.clear();
            return;
        }
        if (!write || cmd.size() < 2) {
            return;
        }
        for (byte[] arg : cmd.subList(1, cmd.size())) {
            absolute.remove(key(conn, arg));
        }
        boolean instant = (n.equals("expireat") || n.equals("pexpireat")) && redisReply.type == ':'
                && "1".equals(redisReply.text());
        if ((n.equals("set") || n.equals("getex")) && !redisReply.isError()) {
            for (byte[] arg : cmd) {
                String a = new String(arg, java.nio.charset.StandardCharsets.ISO_8859_1);
                instant |= a.equalsIgnoreCase("exat") || a.equalsIgnoreCase("pxat");
            }
        }
        if (instant) {
            absolute.add(key(conn, cmd.get(1)));
        }
    }

    /** @return whether {@code key}, in {@code conn}'s database, has a deadline both servers were given alike */
    boolean absoluteDeadline(int conn, byte[] key) {
        return absolute.contains(key(conn, key));
    }

    private String key(int conn, byte[] key) {
        return db[conn] + ":" + new String(key, java.nio.charset.StandardCharsets.ISO_8859_1);
    }

    /** Follows SELECT and RESET on {@code conn}; true when {@code cmd} was one of them. */
    private boolean selected(int conn, List<byte[]> cmd, Reply reply) {
        String n = Commands.name(cmd);
        if (n.equals("select") && reply.type == '+' && cmd.size() == 2) {
            db[conn] = Integer.parseInt(new String(cmd.get(1), java.nio.charset.StandardCharsets.ISO_8859_1));
            return true;
        }
        if (n.equals("reset") && reply.type == '+') {
            db[conn] = 0;
            return true;
        }
        return false;
    }

    /** The commands queued on {@code conn} (what an EXEC now answers). */
    List<List<byte[]>> queued(int conn) {
        return List.copyOf(queued.get(conn));
    }

    @Override
    public void close() {
        for (int i = 0; i < 2; i++) {
            if (redis[i] != null) {
                redis[i].close();
            }
            if (tandem[i] != null) {
                tandem[i].close();
            }
        }
    }
}
