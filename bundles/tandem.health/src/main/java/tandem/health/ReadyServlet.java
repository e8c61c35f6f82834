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

/**
 * {@code /ready}: 200 {@code ready} once the store has replayed the journal and the role is settled; 503
 * {@code not ready: <reason>} otherwise. For a load balancer or an orchestrator's readiness probe.
 */
@Component(service = Servlet.class)
@HttpWhiteboardServletPattern("/ready")
public final class ReadyServlet extends HttpServlet {

    private static final long serialVersionUID = 1L;

    private final transient NodeProbe probe;

    @Activate
    public ReadyServlet(@Reference NodeProbe probe) {
        this.probe = probe;
    }

    @Override
    protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        String notReady = probe.notReady();
        resp.setStatus(notReady == null ? 200 : 503);
        resp.setContentType("text/plain");
        resp.setCharacterEncoding("UTF-8");
        resp.setHeader("Cache-Control", "no-store");
        resp.getWriter().println(notReady == null ? "ready" : "not ready: " + notReady);
    }
}
