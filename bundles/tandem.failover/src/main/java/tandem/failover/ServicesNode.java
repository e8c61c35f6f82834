package tandem.failover;

import java.io.IOException;
import java.util.Dictionary;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;

import org.osgi.framework.InvalidSyntaxException;
import org.osgi.service.cm.Configuration;
import org.osgi.service.cm.ConfigurationAdmin;

import tandem.api.journal.Journal;
import tandem.api.replication.ReplicationControl;
import tandem.api.replication.ReplicationHub;
import tandem.api.replication.ReplicationStatus;
import tandem.api.replication.ReplicationStatusSource;
import tandem.api.server.ClientInfo;
import tandem.api.server.ServerStatus;

/**
 * The {@link LocalNode} over the node's services as they are bound now (the component's dynamic references set them):
 * the node core's {@link ReplicationHub}, the {@link Journal}, and the replication protocols' controls and status: the
 * group promotes and re-points journal replicas by the journal protocol, and re-points psync replicas by psync.
 */
final class ServicesNode implements LocalNode {

    /** A client whose last command is one of these listens (a Sentinel client's listener): a switch keeps it. */
    private static final Set<String> LISTENING = Set.of("subscribe", "psubscribe", "ssubscribe", "ping");

    private final ConfigurationAdmin configAdmin;
    volatile ReplicationHub hub;
    volatile Journal journal;
    final List<ReplicationControl> controls = new CopyOnWriteArrayList<>();
    final List<ReplicationStatusSource> statuses = new CopyOnWriteArrayList<>();

    ServicesNode(ConfigurationAdmin configAdmin) {
        this.configAdmin = configAdmin;
    }

    @Override
    public String role() {
        ReplicationHub h = hub;
        if (h == null || journalStatus() == null) {
            return null;
        }
        if (h.upstream() == null) {
            return "primary";
        }
        return "psync".equals(h.upstreamProtocol()) ? PSYNC_REPLICA : "replica";
    }

    @Override
    public String upstream() {
        ReplicationHub h = hub;
        return h == null ? null : h.upstream();
    }

    @Override
    public String resp() {
        ServerStatus f = frontend();
        return f == null ? "" : f.bindAddress() + ":" + f.port();
    }

    /** A replica does not listen for replicas: its address comes from its configuration, for the day it leads. */
    @Override
    public String replication() {
        ReplicationStatus st = journalStatus();
        if (st != null && st.listening() != null) {
            return st.listening();
        }
        try {
            Configuration[] c = configAdmin.listConfigurations("(service.pid=tandem.replication)");
            if (c == null || c.length == 0) {
                return "";
            }
            Dictionary<String, Object> d = c[0].getProperties();
            Object bind = d.get("bind");
            Object port = d.get("port");
            return port == null || "0".equals(port.toString()) ? ""
                    : (bind == null ? "127.0.0.1" : bind) + ":" + port;
        } catch (IOException | InvalidSyntaxException e) {
            return "";
        }
    }

    @Override
    public long journalEpoch() {
        ReplicationStatus st = journalStatus();
        return st == null ? -1 : st.epoch();
    }

    @Override
    public long tip() {
        Journal j = journal;
        return j == null ? -1 : j.lastSequence();
    }

    @Override
    public String policy() {
        ReplicationStatus st = journalStatus();
        return st == null || st.ackPolicy() == null ? "" : st.ackPolicy().label();
    }

    @Override
    public int closeClients() {
        ServerStatus f = frontend();
        if (f == null) {
            return 0;
        }
        int closed = 0;
        for (ClientInfo c : f.clients()) {
            String last = c.lastCommand() == null ? "" : c.lastCommand().toLowerCase(Locale.ROOT);
            if (!LISTENING.contains(last) && f.kill(c.id())) {
                closed++;
            }
        }
        return closed;
    }

    @Override
    public String promote() throws Exception {
        return control("journal").promote(true);
    }

    @Override
    public String replicaOf(String address) {
        return control("journal").replicaOf(address);
    }

    @Override
    public String replicaOfByPsync(String resp) {
        return control("psync").replicaOf(resp);
    }

    private ServerStatus frontend() {
        ReplicationHub h = hub;
        return h == null ? null : h.frontend();
    }

    private ReplicationControl control(String protocol) {
        for (ReplicationControl c : controls) {
            if (protocol.equals(c.protocol())) {
                return c;
            }
        }
        throw new IllegalStateException(protocol.equals("journal")
                ? "journal replication (tandem.replication) is not active" : "psync (tandem.psync) is not active");
    }

    private ReplicationStatus journalStatus() {
        for (ReplicationStatusSource src : statuses) {
            ReplicationStatus st = src.replicationStatus();
            if ("journal".equals(st.protocol())) {
                return st;
            }
        }
        return null;
    }
}
