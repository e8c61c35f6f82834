package tandem.protocol.replication;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.BufferOverflowException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.function.Consumer;

/**
 * Little-endian access at absolute indexes, shared by the frame classes. View var handles fix the byte order, so
 * the buffer's own {@link ByteBuffer#order()} never matters and is never changed.
 */
final class Wire {

    static final VarHandle U16 = MethodHandles.byteBufferViewVarHandle(short[].class, ByteOrder.LITTLE_ENDIAN);
    static final VarHandle U32 = MethodHandles.byteBufferViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
    static final VarHandle U64 = MethodHandles.byteBufferViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    private Wire() {
    }

    /**
     * Writes the length prefix and the tag of a frame whose payload has {@code payloadLength} bytes at dst's
     * position, after checking the whole frame fits, so that a refused frame leaves no partial bytes behind.
     *
     * @return the absolute index of the payload (its tag)
     * @throws BufferOverflowException when the frame does not fit in dst's remaining bytes
     */
    static int begin(ByteBuffer dst, int payloadLength, byte tag) {
        int at = dst.position();
        if (dst.remaining() < Frames.LENGTH_PREFIX + payloadLength) {
            throw new BufferOverflowException();
        }
        U32.set(dst, at, payloadLength);
        dst.put(at + Frames.LENGTH_PREFIX, tag);
        return at + Frames.LENGTH_PREFIX;
    }

    /** Moves dst's position past a frame {@link #begin} started at payload index {@code payload}. */
    static void end(ByteBuffer dst, int payload, int payloadLength) {
        dst.position(payload + payloadLength);
    }

    /**
     * The allocating {@code frame()} helpers' one body.
     *
     * @param payloadLength the payload's length, which {@code writer} must fill exactly
     * @return a new array holding the length prefix and the payload {@code writer} wrote
     */
    static byte[] frame(int payloadLength, Consumer<ByteBuffer> writer) {
        ByteBuffer written = ByteBuffer.allocate(Frames.LENGTH_PREFIX + payloadLength);
        writer.accept(written);
        if (written.hasRemaining()) {
            throw new IllegalStateException("frame size miscomputed: " + written.remaining() + " bytes left");
        }
        return written.array();
    }

    static void putLong(ByteBuffer dst, int index, long v) {
        U64.set(dst, index, v);
    }

    static void putInt(ByteBuffer dst, int index, int v) {
        U32.set(dst, index, v);
    }

    static void putShort(ByteBuffer dst, int index, int v) {
        U16.set(dst, index, (short) v);
    }

    static long getLong(ByteBuffer p, int offset) {
        return (long) U64.get(p, p.position() + offset);
    }

    static int getInt(ByteBuffer p, int offset) {
        return (int) U32.get(p, p.position() + offset);
    }

    static int getUnsignedShort(ByteBuffer p, int offset) {
        return Short.toUnsignedInt((short) U16.get(p, p.position() + offset));
    }

    static byte getByte(ByteBuffer p, int offset) {
        return p.get(p.position() + offset);
    }

    /** Copies {@code length} bytes at {@code offset} into the first bytes of {@code dst}. */
    static byte[] getBytes(ByteBuffer p, int offset, byte[] dst, int length) {
        p.get(p.position() + offset, dst, 0, length);
        return dst;
    }

    /** Refuses a fixed-size field of the wrong size before anything is written. */
    static void requireLength(byte[] field, int length, String name) {
        if (field.length != length) {
            throw new IllegalArgumentException(name + " of " + field.length + " bytes, must be " + length);
        }
    }

    /** The check every frame class runs: a tag, this frame's tag, and at least {@code length} bytes. */
    static void check(ByteBuffer payload, byte tag, int length) {
        byte actual = Frames.tag(payload);
        if (actual != tag) {
            throw new FrameException(Frames.name(tag) + " frame expected, got " + Frames.describe(actual));
        }
        if (payload.remaining() < length) {
            throw new FrameException(Frames.name(tag) + " frame has " + payload.remaining() + " bytes, needs at least "
                    + length);
        }
    }
}
