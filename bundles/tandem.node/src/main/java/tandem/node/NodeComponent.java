package tandem.node;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;

import org.osgi.framework.BundleContext;
import org.osgi.framework.BundleEvent;
import org.osgi.framework.BundleListener;
import org.osgi.framework.Constants;
import org.osgi.framework.ServiceReference;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Modified;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.osgi.service.component.annotations.ReferencePolicyOption;
import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.Designate;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;

import tandem.api.fencing.SplitBrainAudit;
import tandem.api.home.NodeHome;
import tandem.api.journal.ArchiveStatus;
import tandem.api.journal.Journal;
import tandem.api.journal.JournalStatus;
import tandem.api.journal.SegmentInfo;
import tandem.api.metrics.MetricsSink;
import tandem.api.metrics.MetricsSource;
import tandem.api.node.Frontend;
import tandem.api.node.Node;
import tandem.api.node.NodeClient;
import tandem.api.node.NodeSession;
import tandem.api.replication.AckPolicy;
import tandem.api.replication.ReplicationHub;
import tandem.api.server.PubSub;
import tandem.api.server.WriteAdmission;
import tandem.api.store.CommandDescriptor;
import tandem.api.store.CommandCatalogue;
import tandem.api.store.Keyspace;
import tandem.api.store.StoreStatus;
import tandem.protocol.config.ConfigChange;

/**
 * The node core: one ordered core ({@link NodeCore}) bound to the journal and the store, offered to the front
 * end as {@link Node} and to the replication protocols as {@link ReplicationHub}. It references neither the front
 * end nor a replication protocol: they reference it, so the services form no cycle.
 */
@Component(service = {Node.class, ReplicationHub.class, MetricsSource.class}, immediate = true,
        configurationPid = NodeSettings.PID)
@Designate(ocd = NodeComponent.Config.class)
public final class NodeComponent implements Node, ReplicationHub, MetricsSource {

    private static final Logger LOG = System.getLogger("tandem.node");

    @ObjectClassDefinition(id = NodeSettings.PID, name = "Tandem node core",
            description = "The sequencer, ordered core and replication hub of the node.")
    public @interface Config {

        @AttributeDefinition(description = "How long, in milliseconds, a command waits for the journal or the store "
                + "while its bundle restarts, or for a replication protocol to declare the node's role at a start "
                + "(the first one, or any after that protocol declared the node a primary), before it is refused "
                + "(or the node serves as a primary) (100..600000). Read when the component activates.")
        int pause_max_ms() default 10000;

        @AttributeDefinition(description = "Where the node's role (primary, or the primary it follows) is kept "
                + "across restarts; empty means <tandem.home>/data/node. Read when the component activates.")
        String state_directory() default "";
    }

    private final NodeCore core;
    private final Role role;
    private final RequiredAdmissions requiredAdmissions;
    private final BundleContext context;
    /** Forgets a required provider whose bundle is uninstalled: given up for good, not waited for at a restart. */
    private final BundleListener uninstalls;
    private final Path home;
    private volatile NodeSettings settings;
    private volatile Journal boundJournal;
    private volatile Keyspace boundKeyspace;
    /** The store bundle's command table, there before any store opens ({@link #commands}). */
    private volatile CommandCatalogue catalogue;
    private volatile String upstreamProtocol;
    private final SplitBrainTail splitBrain = new SplitBrainTail();

    @Activate
    public NodeComponent(Config config, BundleContext context, @Reference NodeHome home) {
        this.home = home.directory();
        this.settings = NodeSettings.of(config, this.home);
        this.core = new NodeCore(settings.pauseMaxMs());
        this.context = context;
        this.requiredAdmissions = new RequiredAdmissions(settings.stateDirectory());
        this.uninstalls = event -> {
            if (event.getType() == BundleEvent.UNINSTALLED && event.getBundle().getSymbolicName() != null) {
                requiredAdmissions.uninstalled(event.getBundle().getSymbolicName());
            }
        };
        context.addBundleListener(uninstalls);
        requiredAdmissions.read().forEach((bundle, name) -> {
            core.requireAdmission(name);
            LOG.log(Level.INFO, "node core: writes wait for {0} as before this start (a line of {1}; "
                    + "feature:uninstall of its bundle {2} removes it)", name,
                    settings.stateDirectory().resolve(RequiredAdmissions.FILE), bundle);
        });
        this.role = new Role(settings.stateDirectory());
        Role.Declared last = role.read();
        if (last == null) {
            // a first start: a replica's protocol may not have said so yet; no client write is sequenced before
            core.awaitRole();
            LOG.log(Level.INFO, "node core: no role recorded yet; keyspace commands wait (up to {0} ms) until a "
                    + "replication protocol declares it", settings.pauseMaxMs());
        } else if (last.awaitsProtocol()) {
            core.awaitRole();
            LOG.log(Level.INFO, "node core: a primary as the {0} protocol declared; keyspace commands wait (up to "
                    + "{1} ms) until it declares the role again, with its fence if it has one", last.protocol(),
                    settings.pauseMaxMs());
        } else if (last.upstream() != null) {
            // before the front end can open a client: a replica never journals a client's write, not even at start
            core.follow(last.upstream());
            upstreamProtocol = last.protocol();
            LOG.log(Level.INFO, "node core: following {0} ({1}) as recorded; client writes are refused",
                    last.upstream(), last.protocol());
        }
    }

    @Modified
    void modified(Config config) {
        NodeSettings next = ConfigChange.validated(LOG, () -> NodeSettings.of(config, home));
        if (next != null && next.pauseMaxMs() != settings.pauseMaxMs()) {
            LOG.log(Level.WARNING, "{0}: pause.max.ms applies when the component next activates", NodeSettings.PID);
        }
    }

    @Deactivate
    void deactivate() {
        context.removeBundleListener(uninstalls);
        core.close();
        LOG.log(Level.INFO, "node core stopped");
    }

    // ---- services ---------------------------------------------------------------------------------------------

    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    void bindJournal(Journal journal) {
        boundJournal = journal;
        core.journal(journal);
    }

    void unbindJournal(Journal journal) {
        if (boundJournal == journal) {
            boundJournal = null;
            core.journal(null); // returns once the logic thread no longer uses it
        }
    }

    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    void bindKeyspace(Keyspace keyspace) {
        boundKeyspace = keyspace;
        core.keyspace(keyspace);
    }

    void unbindKeyspace(Keyspace keyspace) {
        if (boundKeyspace == keyspace) {
            boundKeyspace = null;
            core.keyspace(null);
        }
    }

    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    void bindCatalogue(CommandCatalogue c) {
        catalogue = c;
    }

    void unbindCatalogue(CommandCatalogue c) {
        if (catalogue == c) {
            catalogue = null;
        }
    }

    /** The split-brain audit of tandem.fencing: a demoted primary's discarded writes are recorded through it. */
    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    void bindSplitBrainAudit(SplitBrainAudit audit) {
        splitBrain.audit(audit);
    }

    void unbindSplitBrainAudit(SplitBrainAudit audit) {
        splitBrain.unaudit(audit);
    }

    /**
     * Every {@link WriteAdmission} service is asked before a write is sequenced, after the node's own
     * min-replicas-to-write and then by service ranking; one that comes or goes applies from the next write on. One
     * with the property {@code tandem.admission.required} (the quorum fence) is one this node fails closed without
     * once it has seen it, in this run and after a restart ({@link RequiredAdmissions}): while it is away, writes
     * wait up to {@code pause.max.ms} for it, then are refused.
     */
    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    void bindAdmission(WriteAdmission admission, ServiceReference<WriteAdmission> reference) {
        Object ranking = reference.getProperty(Constants.SERVICE_RANKING);
        Object required = reference.getProperty(Admissions.REQUIRED);
        core.addAdmission(admission, ranking instanceof Integer r ? r : 0,
                required == null ? null : required.toString());
        String bundle = reference.getBundle() == null ? null : reference.getBundle().getSymbolicName();
        if (required != null && bundle != null) {
            requiredAdmissions.seen(bundle, required.toString());
        }
        LOG.log(Level.INFO, "write admission: {0} is consulted before every write", admission.getClass().getName());
    }

    void unbindAdmission(WriteAdmission admission) {
        core.removeAdmission(admission);
        LOG.log(Level.INFO, "write admission: {0} is no longer consulted", admission.getClass().getName());
    }

    // ---- Node -------------------------------------------------------------------------------------------------

    /** The front end, with its subscribers: a replica delivers there what its primary's clients published. */
    @Override
    public void attach(Frontend frontend) {
        core.frontend(frontend);
        PubSub subscribers = frontend.subscribers();
        if (subscribers != null) {
            core.subscribers(subscribers);
        }
    }

    @Override
    public void detach(Frontend frontend) {
        core.detach(frontend);
        PubSub subscribers = frontend.subscribers();
        if (subscribers != null) {
            core.subscribersGone(subscribers);
        }
    }

    @Override
    public NodeSession open(NodeClient client) {
        return core.open(client);
    }

    @Override
    public List<CommandDescriptor> commands() {
        List<CommandDescriptor> bound = core.commands();
        CommandCatalogue c = catalogue;
        return bound.isEmpty() && c != null ? List.copyOf(c.commands()) : bound;
    }

    @Override
    public CommandDescriptor describe(String name) {
        CommandDescriptor bound = core.describe(name);
        CommandCatalogue c = catalogue;
        return bound != null || c == null ? bound : c.describe(name);
    }

    @Override
    public tandem.api.store.Command resolve(byte[][] args) {
        return core.resolve(args);
    }

    @Override
    public void minReplicasToWrite(int replicas, long maxLagMillis) {
        core.minReplicasToWrite(replicas, maxLagMillis);
    }

    @Override
    public boolean loading() {
        return core.loading();
    }

    @Override
    public String notReady() {
        return core.notReady();
    }

    @Override
    public void collect(MetricsSink sink) {
        core.ackLatency().collect(sink);
        sink.gauge("tandem_applied_sequence", "The last journal sequence the store applied",
                core.appliedSequence());
        sink.gauge("tandem_blocked_clients", "Clients parked in WAIT", core.blockedClients());
    }

    @Override
    public int blockedClients() {
        return core.blockedClients();
    }

    @Override
    public void pause(long millis, boolean writesOnly) {
        core.pause(millis, writesOnly);
    }

    @Override
    public void unpause() {
        core.unpause();
    }

    @Override
    public boolean unblock(long clientId, boolean error) {
        return core.unblock(clientId, error);
    }

    @Override
    public String applyStopped() {
        return core.applyStopped();
    }

    @Override
    public JournalStatus journalStatus() {
        Journal j = boundJournal;
        return j == null ? null : j.status();
    }

    @Override
    public ArchiveStatus archiveStatus() {
        Journal j = boundJournal;
        return j == null ? null : j.archiveStatus();
    }

    @Override
    public StoreStatus storeStatus() {
        Keyspace k = boundKeyspace;
        return k == null ? null : k.status();
    }

    @Override
    public long scriptRunningMillis() {
        Keyspace k = boundKeyspace;
        return k == null ? -1 : k.scriptRunningMillis();
    }

    @Override
    public String killScript(boolean function) {
        Keyspace k = boundKeyspace;
        return k == null ? "NOTBUSY No scripts in execution right now." : k.killScript(function);
    }

    @Override
    public boolean functionRunning() {
        Keyspace k = boundKeyspace;
        return k != null && k.functionRunning();
    }

    @Override
    public long backlogStart() {
        Journal j = boundJournal;
        if (j == null) {
            return 0;
        }
        List<SegmentInfo> segments = j.segments();
        return segments.isEmpty() ? 0 : segments.get(0).replicationOffset();
    }

    @Override
    public long offsetAfter(long sequence) {
        Journal j = boundJournal;
        if (j == null || sequence < 0) {
            return -1;
        }
        return sequence == 0 ? 0 : j.offsetAfter(sequence);
    }

    // ---- ReplicationHub ---------------------------------------------------------------------------------------

    @Override
    public ReplicaSlot attach(String id, String protocol, String address) {
        return core.gate().attach(id, protocol, address);
    }

    @Override
    public ReplicaSlot attach(String id, String protocol, String address, Runnable requestAck) {
        return core.gate().attach(id, protocol, address, requestAck);
    }

    @Override
    public void ackPolicy(AckPolicy policy) {
        core.gate().policy(policy);
    }

    @Override
    public AckPolicy ackPolicy() {
        return core.gate().policy();
    }

    @Override
    public synchronized void follow(String upstream, String protocol) {
        if (!Objects.equals(upstream, core.upstream())) {
            LOG.log(Level.INFO, upstream == null ? "this node is a primary: client writes are accepted"
                    : "following " + upstream + " (" + protocol + "): client writes are refused");
        }
        role.write(new Role.Declared(upstream, protocol));
        Journal j = boundJournal;
        if (upstream == null) {
            splitBrain.promoted();
        } else if (core.upstream() == null && core.tookClientWrites() && j != null) {
            // a primary that took writes turns replica: what no replica held may be discarded by its resync
            splitBrain.demoted(core.gate().highestHeld(), j.lastSequence(), selfAddress());
        }
        upstreamProtocol = upstream == null ? null : protocol;
        core.follow(upstream);
    }

    /** This node as its clients reach it, for the split-brain audit's header. */
    private String selfAddress() {
        tandem.api.server.ServerStatus f = frontend();
        return f == null ? "(no RESP front end)" : f.bindAddress() + ":" + f.port();
    }

    @Override
    public String upstream() {
        return core.upstream();
    }

    @Override
    public String upstreamProtocol() {
        return core.upstream() == null ? null : upstreamProtocol;
    }

    @Override
    public tandem.api.server.ServerStatus frontend() {
        Frontend f = core.frontend();
        return f == null ? null : f.status();
    }

    @Override
    public void appended(long sequence) {
        splitBrain.continued(sequence);
        core.appended(sequence);
    }

    @Override
    public long appliedSequence() {
        return core.appliedSequence();
    }

    @Override
    public long install(java.nio.file.Path checkpoint, long sequence, byte[] chain) throws InterruptedException {
        SplitBrainTail.Captured divergent = splitBrain.capture(boundJournal, boundKeyspace);
        long held = core.install(checkpoint, sequence, chain);
        Keyspace k = boundKeyspace;
        if (k != null) {
            splitBrain.record(divergent, k, core.upstream(), upstreamProtocol);
        }
        return held;
    }

    @Override
    public synchronized long lead(long epoch) throws InterruptedException {
        long sequence = core.lead(epoch);
        splitBrain.promoted();
        role.write(new Role.Declared(null, null));
        LOG.log(Level.INFO, "this node is a primary now, at epoch {0} (EpochBump at sequence {1}): client writes "
                + "are accepted", epoch, sequence);
        return sequence;
    }

    @Override
    public void fence(String error) {
        String was = core.fence();
        core.fence(error);
        if (!Objects.equals(was, error)) {
            if (error == null) {
                LOG.log(Level.WARNING, "the fence is lifted: client writes are accepted");
            } else {
                LOG.log(Level.WARNING, "fenced: client writes are refused with -{0}", error);
            }
        }
    }

    @Override
    public String fence() {
        return core.fence();
    }
}
