package tandem.server.pipeline;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;

import tandem.server.resp.RespProtocolError;

/** What every sink does with a malformed request: Redis' error, then the connection closes. */
final class Protocol {

    private static final Logger LOG = System.getLogger("tandem.server");

    private Protocol() {
    }

    static void fail(Connection c, RespProtocolError error) {
        log(c, error);
        if (error.reply() != null) {
            c.reply().error("ERR " + error.reply());
        }
        c.closeAfterReply();
    }

    /** Logs why {@code c} is closed. */
    static void log(Connection c, RespProtocolError error) {
        LOG.log(Level.INFO, "closing client id={0} addr={1}: protocol error: {2}", c.session().id(),
                c.session().remoteAddress(), error.reason());
    }
}
