package tandem.server;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import tandem.server.command.ClientSession;
import tandem.server.command.CommandTable;
import tandem.server.command.ServerContext;
import tandem.server.pipeline.Connection;
import tandem.server.pipeline.InlineSink;
import tandem.server.pipeline.RequestSink;

/** Hands each decoded request of one connection, in order, to the sink that executes it. */
final class RespConnectionHandler extends ChannelInboundHandlerAdapter {

    private static final Logger LOG = System.getLogger("tandem.server");

    private final ClientSession session;
    private final CommandTable table;
    private final ServerContext server;
    private final RequestSink sink;
    private Connection connection;

    /** A handler that runs connection commands inline, without a store. */
    RespConnectionHandler(ClientSession session, CommandTable table, ServerContext server) {
        this(session, table, server, new InlineSink());
    }

    RespConnectionHandler(ClientSession session, CommandTable table, ServerContext server, RequestSink sink) {
        this.session = session;
        this.table = table;
        this.server = server;
        this.sink = sink;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        connection = new Connection(ctx.channel(), session, table, server);
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        sink.submit(connection, msg);
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        sink.readComplete(connection);
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        // a client that pipelines without reading its replies stops being read until it catches up
        ctx.channel().config().setAutoRead(ctx.channel().isWritable());
        ctx.fireChannelWritabilityChanged();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        sink.closed(connection);
        ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        LOG.log(Level.WARNING, "closing client id=" + session.id() + " addr=" + session.remoteAddress(), cause);
        ctx.close();
    }
}
