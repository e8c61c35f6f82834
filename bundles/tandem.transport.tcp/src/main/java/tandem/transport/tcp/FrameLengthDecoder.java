package tandem.transport.tcp;

import java.nio.ByteOrder;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.CorruptedFrameException;
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;
import io.netty.handler.codec.TooLongFrameException;

/**
 * Frames the journal protocol: {@code [length u32 LE][payload]}, passing the payload on without its prefix.
 *
 * <p>The declared length is judged as soon as its four bytes are in, before anything is kept for the payload: 0
 * (every payload starts with its tag) and anything over the link's limit are refused there, with a reason naming
 * the length, so a hostile or broken peer cannot make the node reserve memory it announces. Netty's own fail-fast
 * check would catch an oversized length too, but its limit counts the prefix and its message names the adjusted
 * length; checking here keeps the limit and the reason in payload bytes, as the contract states them.
 *
 * <p>After a refusal the stream has no frame boundary left to trust, so everything that follows is discarded
 * unread (the link is being closed anyway); without that, the bytes still buffered would be decoded again when the
 * channel goes inactive and fail a second time.
 */
final class FrameLengthDecoder extends LengthFieldBasedFrameDecoder {

    static final int PREFIX = 4;

    /** The largest {@code maxFrame} a link accepts: the decoder's own limit, which counts the prefix, is an int. */
    static final int MAX_FRAME = Integer.MAX_VALUE - PREFIX;

    private final int maxFrame;
    private boolean failed;

    FrameLengthDecoder(int maxFrame) {
        super(ByteOrder.LITTLE_ENDIAN, checkMaxFrame(maxFrame) + PREFIX, 0, PREFIX, 0, PREFIX, true);
        this.maxFrame = maxFrame;
    }

    static int checkMaxFrame(int maxFrame) {
        if (maxFrame < 1 || maxFrame > MAX_FRAME) {
            throw new IllegalArgumentException("maxFrame=" + maxFrame + " must be between 1 and " + MAX_FRAME);
        }
        return maxFrame;
    }

    @Override
    protected Object decode(ChannelHandlerContext ctx, ByteBuf in) throws Exception {
        if (failed) {
            in.skipBytes(in.readableBytes());
            return null;
        }
        return super.decode(ctx, in);
    }

    @Override
    protected long getUnadjustedFrameLength(ByteBuf buf, int offset, int length, ByteOrder order) {
        long declared = buf.getUnsignedIntLE(offset);
        if (declared == 0) {
            failed = true;
            throw new CorruptedFrameException("empty frame (declared length 0)");
        }
        if (declared > maxFrame) {
            failed = true;
            throw new TooLongFrameException("frame length " + declared + " exceeds the limit of " + maxFrame
                    + " bytes");
        }
        return declared;
    }
}
