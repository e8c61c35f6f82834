package tandem.server;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import tandem.server.command.ClientSession;
import tandem.server.command.CommandContext;
import tandem.server.command.CommandTable;
import tandem.server.command.ServerContext;
import tandem.server.resp.RespProtocolError;
import tandem.server.resp.RespRequest;
import tandem.server.resp.RespWriter;

/**
 * Runs the requests of one connection in order and flushes their replies once per read batch, so that a pipelining
 * client gets one write per batch rather than one per command.
 */
final class RespConnectionHandler extends ChannelInboundHandlerAdapter implements CommandContext {

    private static final Logger LOG = System.getLogger("tandem.server");

    private final ClientSession session;
    private final CommandTable table;
    private final ServerContext server;
    private final RespWriter writer = new RespWriter();
    private ByteBuf pending;
    private boolean closing;

    RespConnectionHandler(ClientSession session, CommandTable table, ServerContext server) {
        this.session = session;
        this.table = table;
        this.server = server;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (closing) {
            return; // after QUIT or a protocol error nothing more is answered, as in Redis
        }
        if (pending == null) {
            pending = ctx.alloc().buffer();
            writer.target(pending);
        }
        if (msg instanceof RespRequest request) {
            table.dispatch(this, request.args());
        } else if (msg instanceof RespProtocolError error) {
            LOG.log(Level.INFO, "closing client id={0} addr={1}: protocol error: {2}", session.id(),
                    session.remoteAddress(), error.reason());
            if (error.reply() != null) {
                writer.error("ERR " + error.reply());
            }
            closing = true;
        } else {
            ctx.fireChannelRead(msg);
        }
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        flush(ctx);
    }

    private void flush(ChannelHandlerContext ctx) {
        ByteBuf out = pending;
        pending = null;
        if (out == null) {
            return;
        }
        if (closing) {
            ctx.writeAndFlush(out).addListener(ChannelFutureListener.CLOSE);
        } else if (out.isReadable()) {
            ctx.writeAndFlush(out, ctx.voidPromise());
        } else {
            out.release();
        }
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        // a client that pipelines without reading its replies stops being read until it catches up
        ctx.channel().config().setAutoRead(ctx.channel().isWritable());
        ctx.fireChannelWritabilityChanged();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        if (pending != null) {
            pending.release();
            pending = null;
        }
        ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        LOG.log(Level.WARNING, "closing client id=" + session.id() + " addr=" + session.remoteAddress(), cause);
        ctx.close();
    }

    @Override
    public ClientSession session() {
        return session;
    }

    @Override
    public RespWriter reply() {
        return writer;
    }

    @Override
    public ServerContext server() {
        return server;
    }

    @Override
    public CommandTable table() {
        return table;
    }

    @Override
    public void closeAfterReply() {
        closing = true;
    }
}
