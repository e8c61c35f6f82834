package tandem.server.command;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeoutException;

/**
 * {@code MIGRATE host port key|"" destination-db timeout [COPY] [REPLACE] [AUTH password] [AUTH2 username password]
 * [KEYS key…]}, Redis 7.0's checks and replies: the keys are dumped here, restored on the target with {@code RESTORE}
 * (their remaining TTL, REPLACE when asked) and, without COPY, deleted here once the target acknowledged them.
 *
 * <p>Redis blocks its whole server while it migrates; Tandem finishes the command off the logic thread, so other
 * clients go on meanwhile. The keys are read and deleted by the server's own client ({@link InternalClient}), the
 * delete in a transaction guarded by a WATCH taken before the read: a key written while it was on its way is not
 * deleted (the source keeps the newer value), and MIGRATE answers an error that says so. No socket is cached between
 * calls, so each one connects and selects the database again.
 */
final class Migrate {

    private Migrate() {
    }

    static void register(CommandTable.Builder b) {
        b.add("migrate", -6, List.of("write", "movablekeys"), List.of("keyspace", "write", "slow", "dangerous"),
                "generic", "2.6.0", "Atomically transfer a key from a Redis instance to another one.",
                Migrate::migrate);
    }

    private record Request(String host, int port, long db, int timeoutMillis, boolean copy, boolean replace,
            byte[] user, byte[] password, List<byte[]> keys) {
    }

    private static void migrate(CommandContext c, byte[][] a) {
        if (c.server().upstream() != null) {
            // a write, as Redis flags it, refused before its options are read and before anything reaches the target
            c.reply().error("READONLY You can't write against a read only replica.");
            return;
        }
        boolean copy = false;
        boolean replace = false;
        byte[] user = null;
        byte[] password = null;
        int firstKey = 3;
        int keyCount = 1;
        for (int j = 6; j < a.length; j++) {
            int more = a.length - 1 - j;
            if (is(a[j], "copy")) {
                copy = true;
            } else if (is(a[j], "replace")) {
                replace = true;
            } else if (is(a[j], "auth")) {
                if (more == 0) {
                    c.reply().error("ERR syntax error");
                    return;
                }
                password = a[++j];
            } else if (is(a[j], "auth2")) {
                if (more < 2) {
                    c.reply().error("ERR syntax error");
                    return;
                }
                user = a[++j];
                password = a[++j];
            } else if (is(a[j], "keys")) {
                if (a[3].length != 0) {
                    c.reply().error("ERR When using MIGRATE KEYS option, the key argument must be set to the empty "
                            + "string");
                    return;
                }
                firstKey = j + 1;
                keyCount = a.length - j - 1;
                break;
            } else {
                c.reply().error("ERR syntax error");
                return;
            }
        }
        Long timeout = number(a[5]);
        Long db = number(a[4]);
        if (timeout == null || db == null) {
            c.reply().error("ERR value is not an integer or out of range");
            return;
        }
        int port = atoi(a[2]); // Redis's atoi: "6379x" is 6379, "x" is 0
        Request r = new Request(new String(a[1], StandardCharsets.UTF_8), port, db,
                (int) Math.min(Integer.MAX_VALUE, timeout <= 0 ? 1000 : timeout), copy, replace, user, password,
                Arrays.asList(a).subList(firstKey, firstKey + keyCount));
        int from = c.session().db();
        c.later(() -> run(c.server(), from, r));
    }

    private static String run(ServerContext server, int db, Request r) {
        try (InternalClient self = server.internalClient()) {
            if (self == null) {
                return "-ERR MIGRATE needs the node core, which is not bound";
            }
            return migrate(self, db, r);
        } catch (TimeoutException e) {
            return "-ERR MIGRATE: the node did not answer its own reads and deletes in time";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "-ERR MIGRATE interrupted";
        }
    }

    private static String migrate(InternalClient self, int db, Request r) throws TimeoutException, InterruptedException {
        long wait = Math.max(10_000, r.timeoutMillis() * 2L);
        List<byte[][]> reads = new ArrayList<>();
        reads.add(InternalClient.args("SELECT", Integer.toString(db)));
        if (!r.copy()) {
            List<Object> watch = new ArrayList<>(List.of("WATCH"));
            watch.addAll(r.keys());
            reads.add(InternalClient.args(watch.toArray()));
        }
        for (byte[] key : r.keys()) {
            reads.add(InternalClient.args("PTTL", key));
            reads.add(InternalClient.args("DUMP", key));
        }
        List<Object> read = self.call(wait, reads);
        int base = r.copy() ? 1 : 2;
        List<byte[]> keys = new ArrayList<>();
        ByteArrayOutputStream commands = new ByteArrayOutputStream();
        if (r.password() != null) {
            bulkArray(commands, r.user() == null ? List.of("AUTH".getBytes(), r.password())
                    : List.of("AUTH".getBytes(), r.user(), r.password()));
        }
        bulkArray(commands, List.of("SELECT".getBytes(), Long.toString(r.db()).getBytes()));
        for (int i = 0; i < r.keys().size(); i++) {
            Object pttl = read.get(base + 2 * i);
            Object payload = read.get(base + 2 * i + 1);
            if (!(payload instanceof byte[] dump) || !(pttl instanceof Long ms) || ms == -2) {
                continue; // gone, or expired between the two reads
            }
            long ttl = ms == -1 ? 0 : Math.max(1, ms);
            keys.add(r.keys().get(i));
            List<byte[]> restore = new ArrayList<>(List.of("RESTORE".getBytes(), r.keys().get(i),
                    Long.toString(ttl).getBytes(), dump));
            if (r.replace()) {
                restore.add("REPLACE".getBytes());
            }
            bulkArray(commands, restore);
        }
        if (keys.isEmpty()) {
            if (!r.copy()) {
                self.call(wait, List.<byte[][]>of(InternalClient.args("UNWATCH")));
            }
            return "+NOKEY";
        }
        List<byte[]> moved = new ArrayList<>();
        String error = transfer(r, commands.toByteArray(), keys, moved);
        if (r.copy()) {
            return error == null ? "+OK" : error;
        }
        if (moved.isEmpty()) {
            self.call(wait, List.<byte[][]>of(InternalClient.args("UNWATCH")));
            return error;
        }
        List<Object> del = new ArrayList<>(List.of("DEL"));
        del.addAll(moved);
        List<Object> exec = self.call(wait, List.of(InternalClient.args("MULTI"), InternalClient.args(del.toArray()),
                InternalClient.args("EXEC")));
        Object result = exec.get(2);
        if (result instanceof InternalClient.Error e) {
            return "-" + e.text();
        }
        if (result == null) {
            return "-ERR MIGRATE: a key was written while it was migrated; the target holds the value it had "
                    + "before, this node kept the newer one (nothing was deleted)";
        }
        return error == null ? "+OK" : error;
    }

    /**
     * Sends the prepared commands and reads one line per reply, as Redis's MIGRATE does.
     *
     * @param moved receives the keys the target acknowledged
     * @return null on success, else the reply line of the error
     */
    private static String transfer(Request r, byte[] commands, List<byte[]> keys, List<byte[]> moved) {
        try (Socket socket = new Socket()) {
            try {
                socket.connect(new InetSocketAddress(r.host(), r.port()), r.timeoutMillis());
                socket.setTcpNoDelay(true);
                socket.setSoTimeout(r.timeoutMillis());
            } catch (java.net.ConnectException e) {
                // Redis connects without blocking and learns of a refusal only when it writes
                return "-IOERR error or timeout writing to target instance";
            } catch (IOException | IllegalArgumentException e) {
                return "-IOERR error or timeout connecting to the client";
            }
            try {
                OutputStream o = socket.getOutputStream();
                o.write(commands);
                o.flush();
            } catch (IOException e) {
                return "-IOERR error or timeout writing to target instance";
            }
            try {
                InputStream in = socket.getInputStream();
                String auth = r.password() != null ? line(in) : null;
                String select = line(in);
                String error = null;
                for (byte[] key : keys) {
                    String restore = line(in);
                    String failed = auth != null && auth.startsWith("-") ? auth
                            : select.startsWith("-") ? select : restore.startsWith("-") ? restore : null;
                    if (failed != null) {
                        if (error == null) {
                            error = "-ERR Target instance replied with error: " + failed.substring(1);
                        }
                    } else {
                        moved.add(key);
                    }
                }
                return error;
            } catch (IOException e) {
                return "-IOERR error or timeout reading to target instance";
            }
        } catch (IOException e) {
            return "-IOERR error or timeout connecting to the client";
        }
    }

    /** {@code connSyncReadLine}: one line, without CRLF; at most 1023 bytes of it kept, as Redis's buffer holds. */
    private static String line(InputStream in) throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        while (true) {
            int ch = in.read();
            if (ch < 0) {
                throw new IOException("the target closed the connection");
            }
            if (ch == '\n') {
                break;
            }
            if (b.size() < 1023) {
                b.write(ch);
            }
        }
        byte[] line = b.toByteArray();
        int n = line.length > 0 && line[line.length - 1] == '\r' ? line.length - 1 : line.length;
        return new String(line, 0, n, StandardCharsets.ISO_8859_1);
    }

    private static void bulkArray(ByteArrayOutputStream out, List<byte[]> args) {
        out.writeBytes(("*" + args.size() + "\r\n").getBytes(StandardCharsets.US_ASCII));
        for (byte[] a : args) {
            out.writeBytes(("$" + a.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
            out.writeBytes(a);
            out.writeBytes(new byte[] {'\r', '\n'});
        }
    }

    /** {@code getLongFromObjectOrReply}'s number, or null. */
    private static Long number(byte[] arg) {
        try {
            return tandem.protocol.command.String2ll.parse(arg);
        } catch (NumberFormatException e) {
            return null;
        }
    }

    /** C's {@code atoi}: blanks, a sign, the digits that follow; 0 when there are none. */
    private static int atoi(byte[] s) {
        int i = 0;
        while (i < s.length && (s[i] == ' ' || s[i] >= '\t' && s[i] <= '\r')) {
            i++;
        }
        boolean negative = i < s.length && s[i] == '-';
        if (i < s.length && (s[i] == '-' || s[i] == '+')) {
            i++;
        }
        long v = 0;
        while (i < s.length && s[i] >= '0' && s[i] <= '9' && v < Integer.MAX_VALUE) {
            v = v * 10 + (s[i++] - '0');
        }
        return (int) (negative ? -v : v);
    }

    private static boolean is(byte[] arg, String word) {
        return new String(arg, StandardCharsets.ISO_8859_1).equalsIgnoreCase(word);
    }
}
