package tandem.psync;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.reflect.Proxy;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.ToIntFunction;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import tandem.api.checkpoint.Checkpoints;
import tandem.api.frpl.FrplStreams;
import tandem.api.journal.Journal;
import tandem.api.replication.PsyncLink;
import tandem.api.replication.ReplicationHub;

/**
 * A psync replica's link against a primary the test plays on a local socket: what the replica asks for at each
 * connection. Its journal holds five entries, 1234 bytes of stream; the FRPL applier is the test's.
 */
@Timeout(30)
class ReplicaClientTest {

    private static final long HELD_OFFSET = 1234;

    @TempDir
    Path dir;

    private ServerSocket primary;
    private ReplicaClient client;
    private final Node node = new Node();

    @BeforeEach
    void listen() throws IOException {
        primary = new ServerSocket(0, 5, InetAddress.getLoopbackAddress());
        primary.setSoTimeout(10_000);
    }

    @AfterEach
    void stop() throws IOException {
        if (client != null) {
            client.close();
        }
        primary.close();
    }

    @SuppressWarnings("unchecked")
    private static <T> T proxy(Class<T> type, java.util.function.Function<String, Object> answers) {
        return (T) Proxy.newProxyInstance(ReplicaClientTest.class.getClassLoader(), new Class<?>[] {type},
                (p, method, args) -> {
                    Object answer = answers.apply(method.getName());
                    if (answer == null && method.getReturnType() != void.class) {
                        throw new UnsupportedOperationException(type.getSimpleName() + "." + method.getName());
                    }
                    return answer;
                });
    }

    /** The component's side: a journal holding {@value #HELD_OFFSET} bytes of stream, an identity it records. */
    private final class Node implements ReplicaClient.Context {
        volatile Identity identity;
        final List<Identity> stored = new CopyOnWriteArrayList<>();
        /** The offsets the replica's appliers were opened at, one per stream. */
        final List<Long> streams = new CopyOnWriteArrayList<>();
        final Journal journal = proxy(Journal.class, name -> switch (name) {
            case "awaitDurable" -> null;
            case "lastSequence", "durableSequence" -> 5L;
            case "offsetAfter" -> HELD_OFFSET;
            default -> null;
        });
        final ReplicationHub hub = proxy(ReplicationHub.class, name -> name.equals("appliedSequence") ? 5L : null);
        final Checkpoints checkpoints = proxy(Checkpoints.class, name -> null);

        /** An applier that finds whatever the primary streams not to follow this replica's journal. */
        final FrplStreams frpl = new FrplStreams() {
            @Override
            public Outbound stream(PsyncLink link, long fromSequence, long fromOffset, int maxLagFrames,
                    int writeTimeoutMs) {
                throw new UnsupportedOperationException();
            }

            @Override
            public Inbound receive(long fromOffset, long maxPayload, ToIntFunction<String> firstKey, Sink sink) {
                streams.add(fromOffset);
                return new Inbound() {
                    @Override
                    public void feed(ByteBuffer bytes) throws DivergenceException {
                        if (bytes.hasRemaining()) {
                            bytes.position(bytes.limit());
                            throw new DivergenceException("a frame of 9 bytes ends at offset 9999, the stream is at "
                                    + fromOffset);
                        }
                    }

                    @Override
                    public long offset() {
                        return fromOffset;
                    }

                    @Override
                    public long takeOwedAck() {
                        return -1;
                    }
                };
            }
        };

        @Override
        public Journal journal() {
            return journal;
        }

        @Override
        public ReplicationHub hub() {
            return hub;
        }

        @Override
        public Checkpoints checkpoints() {
            return checkpoints;
        }

        @Override
        public FrplStreams frpl() {
            return frpl;
        }

        @Override
        public int firstKey(String name) {
            return 0;
        }

        @Override
        public Identity identity() {
            return identity;
        }

        @Override
        public void identity(Identity next) {
            stored.add(next);
            identity = next;
        }

        @Override
        public PsyncSettings settings() {
            return new PsyncSettings("127.0.0.1", primary.getLocalPort(), null, null, 1000, 5000, 10_000, 10_000, 100, dir);
        }

        @Override
        public int listeningPort() {
            return 6380;
        }

        @Override
        public tandem.api.tls.TlsMaterial replicationTls() {
            return null;
        }

        @Override
        public String version() {
            return "0.1.0";
        }
    }

    /** The primary's end of one connection: the replica's commands, one line each, and the replies. */
    private static final class Connection implements AutoCloseable {
        final Socket socket;
        final InputStream in;
        final OutputStream out;

        Connection(Socket socket) throws IOException {
            this.socket = socket;
            socket.setSoTimeout(10_000);
            this.in = new BufferedInputStream(socket.getInputStream());
            this.out = socket.getOutputStream();
        }

        /** @return the next command the replica sent, its arguments joined by spaces */
        String command() throws IOException {
            String header = line();
            assertThat(header).startsWith("*");
            List<String> args = new ArrayList<>();
            for (int i = Integer.parseInt(header.substring(1)); i > 0; i--) {
                int length = Integer.parseInt(line().substring(1));
                args.add(new String(in.readNBytes(length), StandardCharsets.UTF_8));
                line();
            }
            return String.join(" ", args);
        }

        /** Answers the three REPLCONFs with {@code +OK}. @return what they said */
        List<String> handshake() throws IOException {
            List<String> seen = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                seen.add(command());
                send("+OK\r\n");
            }
            return seen;
        }

        void send(String text) throws IOException {
            out.write(text.getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
        }

        /** Reads (and drops) what the replica still sends until it closes the connection. */
        void awaitClosed() throws IOException {
            while (in.read() >= 0) {
                // an ACK, perhaps
            }
        }

        private String line() throws IOException {
            ByteArrayOutputStream b = new ByteArrayOutputStream();
            int c;
            while ((c = in.read()) != '\n') {
                if (c < 0) {
                    throw new EOFException("the replica closed the connection");
                }
                if (c != '\r') {
                    b.write(c);
                }
            }
            return b.toString(StandardCharsets.ISO_8859_1);
        }

        @Override
        public void close() throws IOException {
            socket.close();
        }
    }

    /**
     * FM-REPLICATION-010: a stream that does not follow this replica's journal (a gap, a foreign command, an entry
     * rebuilt to another length: the applier's {@code DivergenceException}) drops the link and clears the id, so that
     * the next attempt claims nothing and asks {@code PSYNC ? -1}, however much its journal holds.
     */
    @Test
    void aStreamThatDivergesClearsTheIdAndTheNextAttemptAsksForAFullSync() throws Exception {
        Identity held = Identity.fresh(2).promoted(700);
        node.identity = held;
        client = new ReplicaClient(node, new InetSocketAddress(InetAddress.getLoopbackAddress(),
                primary.getLocalPort()), "127.0.0.1:" + primary.getLocalPort());
        client.start();

        try (Connection first = new Connection(primary.accept())) {
            assertThat(first.handshake()).containsExactly("REPLCONF listening-port 6380",
                    "REPLCONF capa eof capa psync2", "REPLCONF tandem-version 0.1.0");
            assertThat(first.command()).as("it holds a history: it asks to continue it")
                    .isEqualTo("PSYNC " + held.replicationId() + " " + HELD_OFFSET);
            first.send("+CONTINUE " + held.replicationId() + "\r\nFRPL\u0002 not what it holds");
            first.awaitClosed();
        }
        assertThat(node.streams).containsExactly(HELD_OFFSET);
        assertThat(node.identity.hasHistory()).as("the id is cleared before the link drops").isFalse();
        assertThat(node.identity.secondaryId()).isEqualTo(Identity.NONE);
        assertThat(node.identity.epoch()).as("promotions seen are kept").isEqualTo(held.epoch());
        assertThat(node.stored).containsExactly(node.identity);
        assertThat(client.status().lastError()).startsWith("the stream diverged from this replica's journal, a "
                + "full sync follows: a frame of 9 bytes ends at offset 9999");

        try (Connection second = new Connection(primary.accept())) {
            second.handshake();
            assertThat(second.command()).isEqualTo("PSYNC ? -1");
        }
    }

    /** The same link without a divergence: a dropped connection keeps the id and the next attempt continues. */
    @Test
    void aConnectionThatDropsWithoutADivergenceKeepsTheIdAndContinues() throws Exception {
        Identity held = Identity.fresh(0);
        node.identity = held;
        client = new ReplicaClient(node, new InetSocketAddress(InetAddress.getLoopbackAddress(),
                primary.getLocalPort()), "127.0.0.1:" + primary.getLocalPort());
        client.start();

        try (Connection first = new Connection(primary.accept())) {
            first.handshake();
            assertThat(first.command()).isEqualTo("PSYNC " + held.replicationId() + " " + HELD_OFFSET);
            first.send("+CONTINUE " + held.replicationId() + "\r\n");
        } // dropped by the primary
        try (Connection second = new Connection(primary.accept())) {
            second.handshake();
            assertThat(second.command()).isEqualTo("PSYNC " + held.replicationId() + " " + HELD_OFFSET);
        }
        assertThat(node.stored).as("nothing cleared").isEmpty();
    }
}
