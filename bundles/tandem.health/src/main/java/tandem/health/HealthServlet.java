package tandem.health;

import java.io.IOException;
import java.util.Map;

import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.servlet.whiteboard.propertytypes.HttpWhiteboardServletPattern;

import jakarta.json.Json;
import jakarta.json.JsonWriter;
import jakarta.json.JsonWriterFactory;
import jakarta.json.stream.JsonGenerator;
import jakarta.servlet.Servlet;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

/** {@code /health}: the node's state as JSON; 200 when ready, 503 otherwise, the same document either way. */
@Component(service = Servlet.class)
@HttpWhiteboardServletPattern("/health")
public final class HealthServlet extends HttpServlet {

    private static final long serialVersionUID = 1L;
    private static final JsonWriterFactory PRETTY = Json.createWriterFactory(Map.of(JsonGenerator.PRETTY_PRINTING,
            true));

    private final transient NodeProbe probe;

    @Activate
    public HealthServlet(@Reference NodeProbe probe) {
        this.probe = probe;
    }

    @Override
    protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        var doc = probe.health();
        resp.setStatus(doc.getBoolean("ready") ? 200 : 503);
        resp.setContentType("application/json");
        resp.setCharacterEncoding("UTF-8");
        resp.setHeader("Cache-Control", "no-store");
        try (JsonWriter w = PRETTY.createWriter(resp.getOutputStream(), java.nio.charset.StandardCharsets.UTF_8)) {
            w.writeObject(doc);
        }
    }
}
