package tandem.transport.tcp;

import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.ByteBuffer;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import tandem.api.transport.FrameLink;

/**
 * A {@link FrameLink} over one Netty channel.
 *
 * <p>{@link #send} copies into a pooled direct buffer because the caller reuses its buffer as soon as the call
 * returns, and a direct buffer is what the socket write needs anyway; the caller's position is left as it was.
 * The close reason is recorded before the channel is closed so that the session's {@code closed} callback, which
 * follows on the event loop, reports why rather than a generic "closed by peer"; the first reason wins.
 */
final class NettyFrameLink implements FrameLink {

    private final Channel channel;
    private volatile String closeReason;
    private volatile String remote;

    NettyFrameLink(Channel channel) {
        this.channel = channel;
    }

    /** For an outbound link: the address is known before the channel connects, and failures must name it. */
    NettyFrameLink(Channel channel, String remote) {
        this.channel = channel;
        this.remote = remote;
    }

    @Override
    public void send(ByteBuffer frames) {
        int n = frames.remaining();
        if (n == 0 || !channel.isOpen()) {
            // a session racing its own close: the bytes could only be failed and released on the event loop
            return;
        }
        ByteBuf buf = channel.alloc().directBuffer(n);
        buf.writeBytes(frames.duplicate());
        // A failed write (the channel closed under us, an I/O error) reaches the pipeline's exceptionCaught, which
        // closes the link with the cause as reason: one path for every failure, and no promise per send.
        channel.writeAndFlush(buf, channel.voidPromise());
    }

    @Override
    public boolean writable() {
        return channel.isWritable();
    }

    @Override
    public void close(String reason) {
        recordReason(reason == null ? "closed" : reason);
        channel.close();
    }

    /** Records why the link closes unless a reason is already recorded; returns whether this one was. */
    synchronized boolean recordReason(String reason) {
        if (closeReason != null) {
            return false;
        }
        closeReason = reason;
        return true;
    }

    /** @return the recorded reason, or null when nobody on this side asked the link to close */
    String closeReason() {
        return closeReason;
    }

    boolean closing() {
        return closeReason != null;
    }

    Channel channel() {
        return channel;
    }

    @Override
    public String remoteAddress() {
        String r = remote;
        if (r == null) {
            r = format(channel.remoteAddress());
            if (r != null) {
                remote = r;
            }
        }
        return r == null ? "unconnected" : r;
    }

    /** {@code ip:port} from the socket's numeric address; never a name lookup (getHostName would do one). */
    static String format(SocketAddress address) {
        if (address instanceof InetSocketAddress isa) {
            return isa.getAddress() == null ? isa.getHostString() + ":" + isa.getPort()
                    : isa.getAddress().getHostAddress() + ":" + isa.getPort();
        }
        return address == null ? null : address.toString();
    }

    @Override
    public String toString() {
        return "link " + remoteAddress();
    }
}
