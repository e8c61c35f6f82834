package tandem.shell;

import java.util.List;
import java.util.Locale;

import org.apache.felix.service.command.Descriptor;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;

import tandem.api.server.ClientInfo;
import tandem.api.server.ServerStatus;
import tandem.api.tls.TlsMaterial;
import tandem.api.tls.TlsStatus;

/** {@code server:*}: the RESP listener and its clients. */
@Component(service = ServerCommands.class, immediate = true, property = {
    "osgi.command.scope=server",
    "osgi.command.function=status",
    "osgi.command.function=clients",
    "osgi.command.function=kill"
})
public final class ServerCommands {

    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC)
    private volatile ServerStatus server;
    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC)
    private volatile TlsMaterial tls;

    @Descriptor("shows the RESP listeners (plain and TLS), the TLS material loaded, and client counts")
    public String status() {
        ServerStatus s = server;
        if (s == null) {
            return "RESP server: not running (is tandem.server active? see scr:list)";
        }
        String listening = s.port() < 0 ? "NOT listening on " + s.bindAddress() + " (see the log)"
                : "listening on " + s.bindAddress() + ":" + s.port();
        String stopped = s.applyStopped();
        String notReady = s.notReady();
        return String.format(Locale.ROOT,
                "RESP server: %s (%s)%nTLS: %s%nclients: %d connected, %d max, %d accepted in total%napply: %s%n"
                        + "node: %s",
                listening, s.transport(), tls(s), s.connectedClients(), s.maxClients(), s.totalConnections(),
                stopped == null ? "ok" : "STOPPED, writes are refused: " + stopped,
                notReady == null ? "ready" : "NOT READY: " + notReady);
    }

    /** The TLS port and what the node's TLS material holds. */
    private String tls(ServerStatus s) {
        TlsMaterial t = tls;
        String port = s.tlsPort() < 0 ? "no TLS port" : "port " + s.tlsPort();
        if (t == null) {
            return port + "; tandem.tls is not active";
        }
        TlsStatus st = t.status();
        String loaded = st.subject().isEmpty() ? "no certificate loaded"
                : String.format(Locale.ROOT, "%s, expires %s, SHA-256 %s, %d trusted CA(s), %s, clients: %s",
                        st.subject(), java.time.Instant.ofEpochMilli(st.notAfter()), st.fingerprint(), st.cas(),
                        st.provider(), t.clientAuth().name().toLowerCase(Locale.ROOT));
        return port + "; " + loaded + (st.lastError().isEmpty() ? "" : "; last load FAILED: " + st.lastError());
    }

    @Descriptor("lists the connected RESP clients")
    public String clients() {
        ServerStatus s = server;
        if (s == null) {
            return "RESP server: not running";
        }
        List<ClientInfo> clients = s.clients();
        StringBuilder sb = new StringBuilder(String.format(Locale.ROOT, "%-8s %-22s %-16s %8s %8s %s%n", "ID",
                "ADDRESS", "NAME", "AGE(s)", "IDLE(s)", "LAST COMMAND"));
        for (ClientInfo c : clients) {
            sb.append(String.format(Locale.ROOT, "%-8d %-22s %-16s %8d %8d %s%n", c.id(), c.remoteAddress(),
                    c.name(), c.ageSeconds(), c.idleSeconds(), c.lastCommand()));
        }
        sb.append(clients.size()).append(clients.size() == 1 ? " client" : " clients");
        return sb.toString();
    }

    @Descriptor("closes one RESP client connection")
    public String kill(@Descriptor("the client id, as server:clients and CLIENT ID show it") long id) {
        ServerStatus s = server;
        if (s == null) {
            return "RESP server: not running";
        }
        return s.kill(id) ? "client " + id + " closed" : "no client with id " + id;
    }
}
