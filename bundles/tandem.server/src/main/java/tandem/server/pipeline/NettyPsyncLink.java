package tandem.server.pipeline;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.DefaultFileRegion;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.stream.ChunkedNioFile;
import io.netty.handler.stream.ChunkedWriteHandler;
import tandem.api.replication.PsyncLink;

/**
 * A client channel handed to the psync protocol. Bytes are copied into a Netty buffer at once (the caller may reuse
 * its buffer); files go out as a {@link DefaultFileRegion}, which the epoll and NIO transports send with
 * {@code sendfile}. The file is opened here, so the region stays readable even when the caller deletes the file
 * right after (a per-replica checkpoint is deleted when its transfer ends). Over TLS a file goes out in chunks instead,
 * read as the channel drains, since the encryption must see its bytes.
 */
final class NettyPsyncLink implements PsyncLink {

    private static final Logger LOG = System.getLogger("tandem.server");

    /** Bytes of a file read at a time when the channel encrypts, as Netty's default chunk. */
    private static final int CHUNK = 64 * 1024;

    private final Channel channel;

    NettyPsyncLink(Channel channel) {
        this.channel = channel;
    }

    @Override
    public void send(ByteBuffer bytes) {
        channel.writeAndFlush(Unpooled.copiedBuffer(bytes), channel.voidPromise());
    }

    @Override
    public java.util.concurrent.CompletionStage<Void> sendFile(Path file, long position, long count) {
        FileChannel in;
        try {
            in = FileChannel.open(file, StandardOpenOption.READ);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot open " + file + " to send it: " + e.getMessage(), e);
        }
        java.util.concurrent.CompletableFuture<Void> written = new java.util.concurrent.CompletableFuture<>();
        Object region;
        if (channel.pipeline().get(SslHandler.class) == null) {
            region = new DefaultFileRegion(in, position, count);
        } else {
            // TLS must see the bytes to encrypt them: no sendfile, but chunks read as the channel drains
            if (channel.pipeline().get(ChunkedWriteHandler.class) == null) {
                channel.pipeline().addAfter(channel.pipeline().context(SslHandler.class).name(), "chunked-writer",
                        new ChunkedWriteHandler());
            }
            try {
                region = new ChunkedNioFile(in, position, count, CHUNK);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read " + file + " to send it: " + e.getMessage(), e);
            }
        }
        channel.writeAndFlush(region).addListener(f -> {
            if (f.isSuccess()) {
                written.complete(null);
            } else {
                written.completeExceptionally(f.cause());
            }
        });
        return written;
    }

    @Override
    public boolean writable() {
        return channel.isWritable();
    }

    @Override
    public void close(String reason) {
        if (channel.isOpen()) {
            LOG.log(Level.INFO, "closing replica connection {0}: {1}", remoteAddress(), reason);
            channel.close();
        }
    }

    @Override
    public boolean open() {
        return channel.isActive();
    }

    @Override
    public String remoteAddress() {
        InetSocketAddress remote = (InetSocketAddress) channel.remoteAddress();
        return remote == null ? "?" : remote.getAddress().getHostAddress() + ":" + remote.getPort();
    }
}
