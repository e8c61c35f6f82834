package tandem.server.resp;

import java.util.Arrays;
import java.util.List;
import java.util.function.IntSupplier;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;

import tandem.protocol.command.InlineSplitter;

/**
 * Frames RESP2 requests, multibulk or inline, exactly as Redis 7 reads its query buffer.
 *
 * <pre>
 * multibulk:  '*' count CRLF  ( '$' length CRLF  bytes[length] CRLF ){count}
 * inline:     arg ( SP+ arg )* [CR] LF          (quoting as in Redis' sdssplitargs)
 * </pre>
 *
 * <p>Emits a {@link RespRequest} per command and, on the first malformed byte, one {@link RespProtocolError} carrying
 * Redis' message; after that the connection is closing and every further byte is discarded. The rules follow
 * {@code processMultibulkBuffer} and {@code processInlineBuffer} of Redis 7: a count {@code <= 0} is ignored
 * ({@code *-5}), a count above {@link Integer#MAX_VALUE} or not a number is an invalid multibulk length, a bulk length
 * below zero or above the configured maximum is an invalid bulk length, a header line longer than 64 KiB is refused,
 * and the two bytes after a header or a bulk are skipped without inspection, as Redis does.
 *
 * <p>Nothing is ever allocated from a length the peer sent: an argument is copied out only once all of its bytes
 * have arrived, and the argument list grows with the arguments actually received. The total size of one request is
 * bounded by the same maximum; a peer that exceeds it is disconnected, as Redis disconnects a client that reaches
 * its query buffer limit.
 *
 * <p>Written by hand because Netty's {@code RedisDecoder} parses replies (simple strings, integers, nested arrays)
 * rather than requests, has no inline form, and does not produce Redis' error messages.
 */
public final class RespRequestDecoder extends ByteToMessageDecoder {

    /** Redis' {@code PROTO_INLINE_MAX_SIZE}: the longest inline request or header line. */
    public static final int MAX_INLINE_LENGTH = 64 * 1024;

    private static final int INITIAL_ARGS_CAPACITY = 16;

    private enum State { START, BULK_HEADER, BULK_DATA, FAILED }

    /** Redis's bounds for a client that must authenticate and has not: DoS protection before any password. */
    static final int UNAUTHENTICATED_MAX_ARGS = 10;
    static final int UNAUTHENTICATED_MAX_BULK = 16384;

    private final IntSupplier maxRequestSizeSource;
    private final java.util.function.BooleanSupplier authenticated;
    /** Whether this read held an AUTH or HELLO: what follows it may be authenticated, which is decided later. */
    private boolean authPending;
    private int maxRequestSize;

    private State state = State.START;
    private long argsExpected;
    /** The arguments received so far, {@link #argc} of them; grown as they arrive, never from the count sent. */
    private byte[][] args;
    private int argc;
    private int bulkLength;
    private long requestBytes;

    /**
     * @param maxRequestSize the largest bulk argument and the largest whole request, in bytes; read again at the
     *                       start of each request, so that a configuration change applies to live connections
     */
    public RespRequestDecoder(IntSupplier maxRequestSize) {
        this(maxRequestSize, () -> true);
    }

    /**
     * @param authenticated whether the connection may send requests of any size: it authenticated, or need not. A
     *                      client that must and has not is bounded as Redis bounds it: at most 10 arguments, each at
     *                      most 16 kB
     */
    public RespRequestDecoder(IntSupplier maxRequestSize, java.util.function.BooleanSupplier authenticated) {
        this.maxRequestSizeSource = maxRequestSize;
        this.maxRequestSize = maxRequestSize.getAsInt();
        this.authenticated = authenticated;
    }

    private boolean unauthenticated() {
        return !authPending && !authenticated.getAsBoolean();
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        authPending = false;
        while (in.isReadable() && state != State.FAILED) {
            int before = in.readerIndex();
            boolean progressed = switch (state) {
                case START -> in.getByte(before) == '*' ? readCount(in, out) : readInline(in, out);
                case BULK_HEADER -> readBulkHeader(in, out);
                case BULK_DATA -> readBulkData(in, out);
                case FAILED -> false;
            };
            if (!progressed) {
                break; // waiting for bytes, or failed: then the skip below must still consume the input
            }
            if (state == State.BULK_HEADER || state == State.BULK_DATA) {
                requestBytes += in.readerIndex() - before;
                if (requestBytes > maxRequestSize) {
                    fail(out, null, "request of more than " + maxRequestSize + " bytes (max.request.size)");
                }
            }
        }
        if (state == State.FAILED) {
            in.skipBytes(in.readableBytes());
        }
    }

    private boolean readCount(ByteBuf in, List<Object> out) {
        int cr = in.indexOf(in.readerIndex(), in.writerIndex(), (byte) '\r');
        if (cr < 0) {
            if (in.readableBytes() > MAX_INLINE_LENGTH) {
                fail(out, "Protocol error: too big mbulk count string", "multibulk count line too long");
                return false;
            }
            return false;
        }
        if (cr + 1 >= in.writerIndex()) {
            return false; // wait for the byte after CR
        }
        long count = RespNumbers.parseLong(in, in.readerIndex() + 1, cr);
        if (count == RespNumbers.INVALID || count > Integer.MAX_VALUE) {
            fail(out, "Protocol error: invalid multibulk length", "invalid multibulk count");
            return false;
        }
        if (count > UNAUTHENTICATED_MAX_ARGS && unauthenticated()) {
            fail(out, "Protocol error: unauthenticated multibulk length", "unauthenticated multibulk count");
            return false;
        }
        in.readerIndex(cr + 2);
        if (count <= 0) {
            return true; // Redis ignores empty and negative multibulk requests
        }
        maxRequestSize = maxRequestSizeSource.getAsInt();
        argsExpected = count;
        args = new byte[(int) Math.min(count, INITIAL_ARGS_CAPACITY)][];
        argc = 0;
        requestBytes = 0;
        state = State.BULK_HEADER;
        return true;
    }

    private boolean readBulkHeader(ByteBuf in, List<Object> out) {
        int start = in.readerIndex();
        int cr = in.indexOf(start, in.writerIndex(), (byte) '\r');
        if (cr < 0) {
            if (in.readableBytes() > MAX_INLINE_LENGTH) {
                fail(out, "Protocol error: too big bulk count string", "bulk length line too long");
            }
            return false;
        }
        if (cr + 1 >= in.writerIndex()) {
            return false;
        }
        byte marker = in.getByte(start);
        if (marker != '$') {
            fail(out, "Protocol error: expected '$', got '" + (char) (marker & 0xFF) + "'", "expected a bulk string");
            return false;
        }
        long length = RespNumbers.parseLong(in, start + 1, cr);
        if (length == RespNumbers.INVALID || length < 0 || length > maxRequestSize) {
            fail(out, "Protocol error: invalid bulk length", "invalid bulk length");
            return false;
        }
        if (length > UNAUTHENTICATED_MAX_BULK && unauthenticated()) {
            fail(out, "Protocol error: unauthenticated bulk length", "unauthenticated bulk length");
            return false;
        }
        in.readerIndex(cr + 2);
        bulkLength = (int) length;
        state = State.BULK_DATA;
        return true;
    }

    private boolean readBulkData(ByteBuf in, List<Object> out) {
        if (in.readableBytes() < (long) bulkLength + 2) {
            return false;
        }
        byte[] arg = new byte[bulkLength];
        in.readBytes(arg);
        in.skipBytes(2);
        if (argc == args.length) {
            args = Arrays.copyOf(args, (int) Math.min(argsExpected, 2L * argc));
        }
        args[argc++] = arg;
        if (argc == argsExpected) {
            out.add(new RespRequest(args, false)); // exactly the count: the count was reached
            authPending |= isAuth(args[0]);
            args = null;
            state = State.START;
        } else {
            state = State.BULK_HEADER;
        }
        return true;
    }

    private boolean readInline(ByteBuf in, List<Object> out) {
        int start = in.readerIndex();
        int lf = in.indexOf(start, in.writerIndex(), (byte) '\n');
        if (lf < 0) {
            if (in.readableBytes() > MAX_INLINE_LENGTH) {
                fail(out, "Protocol error: too big inline request", "inline request too long");
            }
            return false;
        }
        int end = lf > start && in.getByte(lf - 1) == '\r' ? lf - 1 : lf;
        byte[] line = new byte[end - start];
        in.getBytes(start, line);
        in.readerIndex(lf + 1);
        byte[][] argv = InlineSplitter.split(line);
        if (argv == null) {
            fail(out, "Protocol error: unbalanced quotes in request", "unbalanced quotes in inline request");
            return false;
        }
        if (argv.length > 0) {
            out.add(new RespRequest(argv, true));
            authPending |= isAuth(argv[0]);
        }
        return true;
    }

    /** @return whether {@code name} is AUTH or HELLO, which may authenticate the requests after it */
    private static boolean isAuth(byte[] name) {
        String n = new String(name, java.nio.charset.StandardCharsets.ISO_8859_1);
        return n.equalsIgnoreCase("auth") || n.equalsIgnoreCase("hello");
    }

    private void fail(List<Object> out, String reply, String reason) {
        state = State.FAILED;
        args = null;
        out.add(new RespProtocolError(reply, reason));
    }
}
