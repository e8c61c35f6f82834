package tandem.health;

import java.io.IOException;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Dictionary;
import java.util.Hashtable;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.osgi.framework.BundleContext;
import org.osgi.framework.ServiceRegistration;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.servlet.whiteboard.HttpWhiteboardConstants;
import org.osgi.service.servlet.whiteboard.annotations.RequireHttpWhiteboard;

import jakarta.json.Json;
import jakarta.json.JsonWriter;
import jakarta.json.JsonWriterFactory;
import jakarta.json.stream.JsonGenerator;
import jakarta.servlet.Servlet;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

/**
 * The HTTP endpoints, registered with the Servlet Whiteboard from one table while the probe and the history are
 * there: {@code /health} (the node's state as JSON; 200 when ready, 503 otherwise, the same document either way),
 * {@code /ready} (200 {@code ready} once the store has replayed the journal and the role is settled, 503
 * {@code not ready: <reason>} otherwise: for a load balancer or an orchestrator's readiness probe), {@code /metrics}
 * (every metric in Prometheus' text exposition format, written by Prometheus' client library) and {@code /} (the
 * status page, {@link StatusPage}; any other path not served by health is 404). No answer is cached.
 */
@Component(immediate = true)
@RequireHttpWhiteboard
public final class Endpoints {

    private static final Logger LOG = System.getLogger("tandem.health");

    private static final JsonWriterFactory PRETTY = Json.createWriterFactory(Map.of(JsonGenerator.PRETTY_PRINTING,
            true));

    /** What one endpoint answers a GET with. */
    @FunctionalInterface
    private interface Responder {
        void respond(HttpServletRequest req, HttpServletResponse resp) throws IOException;
    }

    private final NodeProbe probe;
    private final History history;
    private final List<ServiceRegistration<Servlet>> registrations = new ArrayList<>();

    @Activate
    public Endpoints(BundleContext context, @Reference NodeProbe probe, @Reference History history) {
        this.probe = probe;
        this.history = history;
        Map<String, Responder> paths = new LinkedHashMap<>();
        paths.put("/health", this::health);
        paths.put("/ready", this::ready);
        paths.put("/metrics", this::metrics);
        paths.put("/", this::statusPage);
        paths.forEach((pattern, responder) -> {
            Dictionary<String, Object> properties = new Hashtable<>();
            properties.put(HttpWhiteboardConstants.HTTP_WHITEBOARD_SERVLET_PATTERN, pattern);
            registrations.add(context.registerService(Servlet.class, new ResponderServlet(responder), properties));
        });
    }

    @Deactivate
    void deactivate() {
        registrations.forEach(ServiceRegistration::unregister);
    }

    private void health(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        var doc = probe.health();
        start(resp, doc.getBoolean("ready") ? 200 : 503, "application/json");
        try (JsonWriter w = PRETTY.createWriter(resp.getOutputStream(), StandardCharsets.UTF_8)) {
            w.writeObject(doc);
        }
    }

    private void ready(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        String notReady = probe.notReady();
        start(resp, notReady == null ? 200 : 503, "text/plain");
        resp.getWriter().println(notReady == null ? "ready" : "not ready: " + notReady);
    }

    private void metrics(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        PrometheusSink sink = new PrometheusSink();
        java.io.ByteArrayOutputStream text = new java.io.ByteArrayOutputStream(16 * 1024);
        try {
            probe.collect(sink);
            sink.write(text);
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "/metrics could not be rendered", e);
            resp.sendError(500, "metrics could not be rendered: " + e);
            return;
        }
        if (!sink.conflicts().isEmpty()) {
            LOG.log(Level.WARNING, "/metrics left out what its sources reported wrongly: {0}", sink.conflicts());
        }
        resp.setStatus(200);
        resp.setContentType(PrometheusSink.contentType());
        resp.setHeader("Cache-Control", "no-store");
        text.writeTo(resp.getOutputStream());
    }

    private void statusPage(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        String path = req.getServletPath() + (req.getPathInfo() == null ? "" : req.getPathInfo());
        if (!path.isEmpty() && !path.equals("/")) {
            resp.sendError(404, "health serves /, /health, /ready and /metrics");
            return;
        }
        start(resp, 200, "text/html");
        // no script may run and nothing may load from elsewhere: the page is self-contained by construction
        resp.setHeader("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; img-src 'self'");
        resp.getWriter().write(StatusPage.render(probe.role(), probe.notReady(), probe.ackPolicy(), probe.respPort(),
                probe.replication(), probe.quorumFence(), probe.archive(), history.samples()));
    }

    /** The status, a UTF-8 content type and no caching: what every text answer starts with. */
    private static void start(HttpServletResponse resp, int status, String contentType) {
        resp.setStatus(status);
        resp.setContentType(contentType);
        resp.setCharacterEncoding("UTF-8");
        resp.setHeader("Cache-Control", "no-store");
    }

    /** One endpoint as a servlet. */
    private static final class ResponderServlet extends HttpServlet {

        private static final long serialVersionUID = 1L;

        private final transient Responder responder;

        ResponderServlet(Responder responder) {
            this.responder = responder;
        }

        @Override
        protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
            responder.respond(req, resp);
        }
    }
}
