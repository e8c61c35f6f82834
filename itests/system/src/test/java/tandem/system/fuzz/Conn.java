package tandem.system.fuzz;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * One client connection to a server on 127.0.0.1. A pipelined batch is written by a thread of its own while the
 * caller reads the replies, so a server that stops reading while its replies are not read cannot deadlock the
 * fuzzer.
 */
final class Conn implements AutoCloseable {

    /** How a batch ended. */
    enum End {
        /** every reply arrived */
        OK,
        /** the server closed the connection (or reset it) before every reply arrived */
        CLOSED,
        /** a reply did not arrive within the reply timeout */
        TIMEOUT,
        /** the bytes were not RESP2 */
        GARBAGE
    }

    /** The replies to a batch (as many as arrived), how the batch ended and when each reply arrived. */
    record Result(List<Reply> replies, End end, String detail) {
    }

    private static final ExecutorService WRITERS = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "fuzz-writer");
        t.setDaemon(true);
        return t;
    });

    final String name;
    final int port;
    /** 2, or 3: each connection (and reconnection) starts with {@code HELLO 3}. */
    final int protocol;
    private final Duration replyTimeout;
    private Socket socket;
    private InputStream in;
    private OutputStream out;

    Conn(String name, int port, Duration replyTimeout) throws IOException {
        this(name, port, replyTimeout, 2);
    }

    Conn(String name, int port, Duration replyTimeout, int protocol) throws IOException {
        this.name = name;
        this.port = port;
        this.replyTimeout = replyTimeout;
        this.protocol = protocol;
        open();
    }

    private void open() throws IOException {
        socket = new Socket();
        socket.connect(new InetSocketAddress("127.0.0.1", port), 5000);
        socket.setTcpNoDelay(true);
        socket.setSoTimeout((int) replyTimeout.toMillis());
        in = new BufferedInputStream(socket.getInputStream(), 64 * 1024);
        out = new BufferedOutputStream(socket.getOutputStream(), 64 * 1024);
        if (protocol == 3) {
            Commands.write(out, List.of(Commands.of("HELLO", "3")));
            out.flush();
            Reply hello = Reply.read(in, 1 << 20);
            if (hello.type != '%') {
                throw new IOException(name + " did not switch to RESP3: " + hello.show(200));
            }
        }
    }

    /** Closes and opens the connection again (after QUIT, a drop or a timeout). */
    void reconnect() throws IOException {
        close();
        open();
    }

    /** Sends {@code commands} as one pipelined write and reads one reply per command. */
    Result exchange(List<List<byte[]>> commands) {
        OutputStream o = out;
        Future<?> writing = WRITERS.submit(() -> {
            Commands.write(o, commands);
            o.flush();
            return null;
        });
        List<Reply> replies = new ArrayList<>(commands.size());
        End end = End.OK;
        String detail = "";
        try {
            while (replies.size() < commands.size()) {
                replies.add(Reply.read(in, 1L << 31));
            }
        } catch (SocketTimeoutException e) {
            end = End.TIMEOUT;
            detail = "no reply within " + replyTimeout.toMillis() + " ms";
        } catch (EOFException | SocketException e) {
            end = End.CLOSED;
            detail = String.valueOf(e.getMessage());
        } catch (IOException e) {
            end = End.GARBAGE;
            detail = String.valueOf(e.getMessage());
        }
        try {
            writing.get(end == End.OK ? replyTimeout.toMillis() : 1000, TimeUnit.MILLISECONDS);
        } catch (Exception e) {
            writing.cancel(true);
            if (end == End.OK) {
                end = End.TIMEOUT;
                detail = "the request was not taken within " + replyTimeout.toMillis() + " ms: " + e;
            }
        }
        return new Result(replies, end, detail);
    }

    /** Waits (briefly) for the server to close the connection, as it does after QUIT; @return whether it did */
    boolean closedByPeer(Duration within) {
        try {
            socket.setSoTimeout((int) within.toMillis());
            int b = in.read();
            return b < 0;
        } catch (SocketTimeoutException e) {
            return false;
        } catch (IOException e) {
            return true;
        } finally {
            try {
                socket.setSoTimeout((int) replyTimeout.toMillis());
            } catch (IOException e) {
                // closed
            }
        }
    }

    @Override
    public void close() {
        try {
            socket.close();
        } catch (IOException e) {
            // nothing to do
        }
    }
}
