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

/** {@code /metrics}: every metric in Prometheus' text exposition format, written by Prometheus' client library. */
@Component(service = Servlet.class)
@HttpWhiteboardServletPattern("/metrics")
public final class MetricsServlet extends HttpServlet {

    private static final long serialVersionUID = 1L;

    private final transient NodeProbe probe;

    @Activate
    public MetricsServlet(@Reference NodeProbe probe) {
        this.probe = probe;
    }

    @Override
    protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        PrometheusSink sink = new PrometheusSink();
        probe.collect(sink);
        resp.setStatus(200);
        resp.setContentType(PrometheusSink.contentType());
        resp.setHeader("Cache-Control", "no-store");
        sink.write(resp.getOutputStream());
    }
}
