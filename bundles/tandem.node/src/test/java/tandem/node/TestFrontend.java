package tandem.node;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Supplier;

import tandem.api.node.Frontend;
import tandem.api.node.NodeClient;
import tandem.api.node.NodeSession;
import tandem.api.server.ServerStatus;
import tandem.api.store.Command;
import tandem.api.store.Reply;

/**
 * A front end for the node core's tests: clients whose replies the test reads as RESP text once the node sends them
 * (at the end of the round in which they are due), a few commands of its own (PING, ECHO, QUIT, and the node's:
 * MULTI, EXEC, WATCH, WAIT…), Redis' unknown-command error for the rest, and the statistics it is told.
 */
public final class TestFrontend implements Frontend {

    /** The names this front end resolves as its own; the node core runs the transaction and WAIT commands. */
    private static final Set<String> OWN = Set.of("ping", "echo", "quit", "multi", "exec", "discard", "watch",
            "unwatch", "wait", "replicaof", "slaveof", "publish", "spublish", "client");

    private final NodeCore core;
    private final List<TestClient> due = new ArrayList<>();
    /** What ran, as the statistics see it: {@code executed get}, {@code rejected set}, {@code exec 2}. */
    public final List<String> accounted = new CopyOnWriteArrayList<>();

    public TestFrontend(NodeCore core) {
        this.core = core;
        core.frontend(this);
    }

    /** @return a new client, connected */
    public TestClient client(long id) {
        return new TestClient(id);
    }

    @Override
    public ServerStatus status() {
        return null;
    }

    @Override
    public void roundEnd() {
        for (TestClient c : due) {
            c.send();
        }
        due.clear();
    }

    @Override
    public void busy(Object what) {
    }

    @Override
    public void idle() {
    }

    @Override
    public void executed(NodeClient client, Command command, long durationNs, boolean failed) {
        accounted.add("executed " + command + (failed ? " failed" : ""));
    }

    @Override
    public void rejected(NodeClient client, Command command) {
        accounted.add("rejected " + command);
    }

    @Override
    public void executedTransaction(NodeClient client, List<Command> commands, long durationNs, boolean failed) {
        accounted.add("exec " + commands.size());
    }

    /** One client: what it sends goes to the node core; what it is answered collects in {@link #received}. */
    public final class TestClient implements NodeClient {

        private final long id;
        /** The replies sent to this client, as RESP text. */
        public final StringBuffer received = new StringBuffer();
        /** The replies written and not sent yet (the logic thread's). */
        private final StringBuilder written = new StringBuilder();
        private final Reply reply = new TextReply();
        private final NodeSession session;
        private long errors;
        private volatile boolean closed;
        private boolean closeAfterReply;

        TestClient(long id) {
            this.id = id;
            this.session = core.open(this);
        }

        /** Sends a request, resolved as a front end resolves it. */
        public void send(String... args) {
            byte[][] a = new byte[args.length][];
            for (int i = 0; i < args.length; i++) {
                a[i] = args[i].getBytes(StandardCharsets.ISO_8859_1);
            }
            String name = args[0].toLowerCase(Locale.ROOT);
            Command command = OWN.contains(name) ? Command.frontend(a, name, null) : core.resolve(a);
            session.request(command != null ? command : Command.unknown(a));
            session.flush();
        }

        /** Waits (up to ten seconds) until the replies sent so far are exactly {@code expected}. */
        public void awaitReplies(String expected) {
            long end = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(10);
            while (!received.toString().equals(expected)) {
                if (System.nanoTime() > end) {
                    throw new AssertionError("timed out waiting for replies " + expected.replace("\r\n", "\\r\\n")
                            + " (got " + received.toString().replace("\r\n", "\\r\\n") + ")");
                }
                java.util.concurrent.locks.LockSupport.parkNanos(1_000_000L); // poll, bounded by the deadline
            }
        }

        /** @return the replies written and not sent yet */
        String written() {
            return written.toString();
        }

        /** The client's connection closed. */
        public void close() {
            session.closed();
        }

        /** @return true once the node closed it (after QUIT or a protocol error) */
        public boolean closed() {
            return closed;
        }

        private void send() {
            received.append(written);
            written.setLength(0);
            if (closeAfterReply) {
                closed = true;
            }
        }

        @Override
        public long id() {
            return id;
        }

        @Override
        public Reply reply() {
            return reply;
        }

        @Override
        public int replyMark() {
            return written.length();
        }

        @Override
        public void resetReply(int mark) {
            written.setLength(mark);
        }

        @Override
        public long errorReplies() {
            return errors;
        }

        @Override
        public Supplier<String> run(Command command) {
            byte[][] args = command.args();
            String name = command.isFrontend() ? command.name() : null;
            if ("ping".equals(name)) {
                reply.simple("PONG");
            } else if ("echo".equals(name) && args.length == 2) {
                reply.bulk(args[1]);
            } else if (("publish".equals(name) || "spublish".equals(name)) && args.length == 3) {
                reply.integer(0); // no subscriber here
            } else if ("client".equals(name) && args.length >= 2) {
                String sub = new String(args[1], StandardCharsets.ISO_8859_1).toLowerCase(Locale.ROOT);
                String arg = args.length > 2 ? new String(args[2], StandardCharsets.ISO_8859_1) : "";
                switch (sub) {
                    case "unblock" -> reply.integer(core.unblock(Long.parseLong(arg), args.length > 3) ? 1 : 0);
                    case "pause" -> {
                        core.pause(Long.parseLong(arg), args.length > 3);
                        reply.simple("OK");
                    }
                    default -> {
                        core.unpause();
                        reply.simple("OK");
                    }
                }
            } else if ("quit".equals(name)) {
                reply.simple("OK");
                closeAfterReply();
            } else {
                StringBuilder quoted = new StringBuilder();
                for (int i = 1; i < args.length; i++) {
                    quoted.append('\'').append(new String(args[i], StandardCharsets.ISO_8859_1)).append("' ");
                }
                reply.error("ERR unknown command '" + new String(args[0], StandardCharsets.ISO_8859_1)
                        + "', with args beginning with: " + quoted);
            }
            return null;
        }

        @Override
        public String queueable(Command command) {
            String name = command.name();
            if ("ping".equals(name) || "echo".equals(name) && command.args().length == 2) {
                return null;
            }
            return "ERR '" + name + "' is not supported inside a transaction by Tandem";
        }

        @Override
        public void closeAfterReply() {
            closeAfterReply = true;
        }

        @Override
        public void due() {
            due.add(this);
        }

        @Override
        public void flush() {
            send();
        }

        @Override
        public void released(Command command) {
        }

        /** RESP2 as text. */
        private final class TextReply implements Reply {
            @Override
            public Reply simple(String text) {
                written.append('+').append(text).append("\r\n");
                return this;
            }

            @Override
            public Reply error(String text) {
                errors++;
                written.append('-').append(text).append("\r\n");
                return this;
            }

            @Override
            public Reply integer(long value) {
                written.append(':').append(value).append("\r\n");
                return this;
            }

            @Override
            public Reply bulk(byte[] value) {
                written.append('$').append(value.length).append("\r\n")
                        .append(new String(value, StandardCharsets.ISO_8859_1)).append("\r\n");
                return this;
            }

            @Override
            public Reply nullBulk() {
                written.append("$-1\r\n");
                return this;
            }

            @Override
            public Reply nullArray() {
                written.append("*-1\r\n");
                return this;
            }

            @Override
            public Reply array(int count) {
                written.append('*').append(count).append("\r\n");
                return this;
            }
        }
    }
}
