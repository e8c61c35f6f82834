package tandem.transport.tcp;

import java.nio.ByteOrder;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.CorruptedFrameException;
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;
import io.netty.handler.codec.TooLongFrameException;
import tandem.protocol.replication.Frames;

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

    static final int PREFIX = Frames.LENGTH_PREFIX;

    /** The largest {@code maxFrame} a link accepts: the decoder's own limit, which counts the prefix, is an int. */
    static final int MAX_FRAME = Frames.MAX_FRAME_LIMIT;

    private final int maxFrame;
    private boolean failed;

    FrameLengthDecoder(int maxFrame) {
        super(ByteOrder.LITTLE_ENDIAN, Frames.checkMaxFrame(maxFrame) + PREFIX, 0, PREFIX, 0, PREFIX, true);
        this.maxFrame = maxFrame;
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
        String refusal = Frames.lengthRefusal(declared, maxFrame);
        if (refusal != null) {
            failed = true;
            throw declared == 0 ? new CorruptedFrameException(refusal) : new TooLongFrameException(refusal);
        }
        return declared;
    }
}
