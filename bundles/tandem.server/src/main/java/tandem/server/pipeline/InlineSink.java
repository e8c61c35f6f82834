package tandem.server.pipeline;

import tandem.server.resp.RespProtocolError;
import tandem.server.resp.RespRequest;

/**
 * Runs connection commands directly on the event loop: the sink of a server without a store, and of the protocol
 * tests. Keyspace commands are unknown here.
 */
public final class InlineSink implements RequestSink {

    @Override
    public void submit(Connection c, Object message) {
        if (c.ending) {
            return;
        }
        if (message instanceof RespRequest request) {
            c.table().dispatch(c, request.args());
            java.util.function.Supplier<String> later = c.takeLater();
            if (later != null) {
                tandem.server.command.CommandContext.replyLine(c.reply(), later.get());
            }
        } else if (message instanceof RespProtocolError error) {
            Protocol.fail(c, error);
        }
    }

    @Override
    public void readComplete(Connection c) {
        c.flush();
    }

    @Override
    public void closed(Connection c) {
        c.discard();
    }
}
