package tandem.health;

import java.io.IOException;

import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.servlet.whiteboard.propertytypes.HttpWhiteboardServletPattern;

import jakarta.servlet.Servlet;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

/** {@code /}: the status page ({@link StatusPage}); any other path not served by health is 404. */
@Component(service = Servlet.class)
@HttpWhiteboardServletPattern("/")
public final class StatusPageServlet extends HttpServlet {

    private static final long serialVersionUID = 1L;

    private final transient NodeProbe probe;
    private final transient History history;

    @Activate
    public StatusPageServlet(@Reference NodeProbe probe, @Reference History history) {
        this.probe = probe;
        this.history = history;
    }

    @Override
    protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        String path = req.getServletPath() + (req.getPathInfo() == null ? "" : req.getPathInfo());
        if (!path.isEmpty() && !path.equals("/")) {
            resp.sendError(404, "health serves /, /health, /ready and /metrics");
            return;
        }
        resp.setStatus(200);
        resp.setContentType("text/html");
        resp.setCharacterEncoding("UTF-8");
        resp.setHeader("Cache-Control", "no-store");
        // no script may run and nothing may load from elsewhere: the page is self-contained by construction
        resp.setHeader("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; img-src 'self'");
        resp.getWriter().write(StatusPage.render(probe.role(), probe.notReady(), probe.ackPolicy(), probe.respPort(),
                probe.replication(), probe.quorumFence(), history.samples()));
    }
}
