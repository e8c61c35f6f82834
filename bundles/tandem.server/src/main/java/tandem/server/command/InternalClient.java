package tandem.server.command;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import tandem.api.node.NodeClient;
import tandem.api.node.NodeSession;
import tandem.api.store.Command;
import tandem.api.store.Reply;
import tandem.server.resp.RespWriter;

/**
 * A client of the node core that is no connection: the server's own, for a command that must run keyspace commands
 * of its own between other work (MIGRATE reads and deletes the keys it moves). Its requests go through the node as a
 * connection's do, sequenced, journaled and held by the ack policy; their replies come back as values
 * ({@link #call}). Only {@code SELECT} of the front end's commands runs in it.
 */
public final class InternalClient implements NodeClient, AutoCloseable {

    /** An error reply, its text without the leading {@code -}. */
    public record Error(String text) {
    }

    private static final java.util.concurrent.atomic.AtomicLong IDS = new java.util.concurrent.atomic.AtomicLong(
            Long.MIN_VALUE / 2); // far from the connections' ids, never one of them

    private final long id = IDS.incrementAndGet();
    private final Function<byte[][], Command> resolve;
    private final NodeSession session;
    private final ByteBuf out = Unpooled.buffer();
    private final RespWriter writer = new RespWriter().target(out);
    /** Logic thread: the replies parsed so far of the batch in flight, and how many it waits for. */
    private final List<Object> replies = new ArrayList<>();
    private int wanted;
    private CompletableFuture<List<Object>> pending;

    /**
     * @param open    opens a session on the node ({@link tandem.api.node.Node#open})
     * @param resolve resolves a request as the front end does
     */
    public InternalClient(Function<NodeClient, NodeSession> open, Function<byte[][], Command> resolve) {
        this.resolve = resolve;
        this.session = open.apply(this);
    }

    /**
     * Runs {@code commands} in order, as one batch, and waits for their replies.
     *
     * @return one value per command: {@link String} for a status, {@link Error}, {@link Long}, {@code byte[]} for a
     *         bulk string, null, or a {@link List} for an array
     * @throws TimeoutException when the replies take longer than {@code timeoutMillis} (the ack policy may hold them)
     */
    public List<Object> call(long timeoutMillis, List<byte[][]> commands) throws TimeoutException, InterruptedException {
        CompletableFuture<List<Object>> done = new CompletableFuture<>();
        synchronized (this) {
            pending = done;
            wanted = commands.size();
            replies.clear();
        }
        for (byte[][] args : commands) {
            session.request(resolve.apply(args));
        }
        session.flush();
        try {
            return done.get(timeoutMillis, TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            throw new IllegalStateException(e.getCause());
        }
    }

    /** @return {@code parts} as a command's arguments, strings in UTF-8 and byte arrays as they are */
    public static byte[][] args(Object... parts) {
        byte[][] a = new byte[parts.length][];
        for (int i = 0; i < parts.length; i++) {
            a[i] = parts[i] instanceof byte[] b ? b : parts[i].toString().getBytes(StandardCharsets.UTF_8);
        }
        return a;
    }

    @Override
    public void close() {
        session.closed();
    }

    // ---- NodeClient, on the logic thread

    @Override
    public long id() {
        return id;
    }

    @Override
    public Reply reply() {
        return writer;
    }

    @Override
    public int replyMark() {
        writer.saveMark();
        return out.writerIndex();
    }

    @Override
    public void resetReply(int mark) {
        out.writerIndex(mark);
        writer.restoreMark();
    }

    @Override
    public long errorReplies() {
        return writer.errors();
    }

    @Override
    public java.util.function.Supplier<String> run(Command command) {
        if ("select".equals(command.name())) {
            writer.ok(); // the node core switched the database at dispatch; the front end only answers
        } else {
            writer.error("ERR '" + command.name() + "' cannot run in the server's own client");
        }
        return null;
    }

    @Override
    public void closeAfterReply() {
    }

    @Override
    public synchronized void due() {
        while (out.isReadable()) {
            int start = out.readerIndex();
            Object value = parse(out);
            if (value == INCOMPLETE) {
                out.readerIndex(start);
                break;
            }
            replies.add(value);
        }
        if (!out.isReadable()) {
            out.clear(); // between requests: no reply mark is outstanding
        }
        if (pending != null && replies.size() >= wanted) {
            pending.complete(new ArrayList<>(replies));
            pending = null;
        }
    }

    @Override
    public void flush() {
        due();
    }

    @Override
    public void released(Command command) {
    }

    private static final Object INCOMPLETE = new Object();

    /** One RESP2 value from {@code in}, or {@link #INCOMPLETE} when it has not all arrived. */
    private static Object parse(ByteBuf in) {
        int eol = in.indexOf(in.readerIndex(), in.writerIndex(), (byte) '\n');
        if (eol < 0) {
            return INCOMPLETE;
        }
        byte type = in.readByte();
        String line = in.readCharSequence(eol - 1 - in.readerIndex(), StandardCharsets.ISO_8859_1).toString();
        in.skipBytes(2);
        switch (type) {
            case '+':
                return line;
            case '-':
                return new Error(line);
            case ':':
                return Long.parseLong(line);
            case '$': {
                int n = Integer.parseInt(line);
                if (n < 0) {
                    return null;
                }
                if (in.readableBytes() < n + 2) {
                    return INCOMPLETE;
                }
                byte[] b = new byte[n];
                in.readBytes(b);
                in.skipBytes(2);
                return b;
            }
            case '*': {
                int n = Integer.parseInt(line);
                if (n < 0) {
                    return null;
                }
                List<Object> items = new ArrayList<>(n);
                for (int i = 0; i < n; i++) {
                    Object item = parse(in);
                    if (item == INCOMPLETE) {
                        return INCOMPLETE;
                    }
                    items.add(item);
                }
                return items;
            }
            default:
                throw new IllegalStateException("unexpected reply type " + (char) type);
        }
    }
}
