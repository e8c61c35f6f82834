package tandem.server;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import tandem.api.replication.PsyncSession;
import tandem.server.command.ClientSession;
import tandem.server.command.CommandTable;
import tandem.server.command.ServerContext;
import tandem.server.pipeline.Connection;
import tandem.server.pipeline.InlineSink;
import tandem.server.pipeline.RequestSink;
import tandem.server.resp.RespProtocolError;
import tandem.server.resp.RespRequest;

/**
 * Hands each decoded request of one connection, in order, to the sink that executes it; once the connection was
 * handed to the psync protocol ({@code PSYNC}), to its psync session instead.
 */
final class RespConnectionHandler extends ChannelInboundHandlerAdapter {

    private static final Logger LOG = System.getLogger("tandem.server");

    private final ClientSession session;
    private final CommandTable table;
    private final ServerContext server;
    private final RequestSink sink;
    private Connection connection;
    private String closeReason = "the connection closed";

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
        sink.opened(connection);
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        PsyncSession psync = connection.psync();
        if (psync == null) {
            sink.submit(connection, msg);
        } else if (msg instanceof RespRequest request) {
            psync.command(request.args());
        } else if (msg instanceof RespProtocolError error) {
            closeReason = "protocol error from the replica: " + error.reason();
            LOG.log(Level.WARNING, "closing replica connection {0}: {1}", session.remoteAddress(), closeReason);
            ctx.close();
        }
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        if (connection.psync() == null) {
            sink.readComplete(connection);
        }
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        PsyncSession psync = connection.psync();
        if (psync != null) {
            // a replica's acknowledgements keep being read while its stream is throttled
            if (ctx.channel().isWritable()) {
                psync.writable();
            }
        } else {
            // a client that pipelines without reading its replies stops being read until it catches up (and
            // stays unread while the node works off the requests it already holds)
            ctx.channel().config().setAutoRead(ctx.channel().isWritable() && !connection.budgetPaused()
                    && !connection.holding());
        }
        ctx.fireChannelWritabilityChanged();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        sink.closed(connection);
        connection.closed();
        PsyncSession psync = connection.psync();
        if (psync != null) {
            psync.closed(closeReason);
        }
        ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        closeReason = String.valueOf(cause);
        if (cause instanceof java.io.IOException || tandem.protocol.net.TlsFailures.isTls(cause)) {
            // the peer went away (a reset, a broken pipe): ordinary for clients that close without QUIT; or its TLS
            // failed, which the handshake's listener logged once with the reason
            LOG.log(Level.DEBUG, "closing client id={0} addr={1}: {2}", session.id(), session.remoteAddress(),
                    closeReason);
        } else {
            LOG.log(Level.WARNING, "closing client id=" + session.id() + " addr=" + session.remoteAddress(), cause);
        }
        ctx.close();
    }
}
