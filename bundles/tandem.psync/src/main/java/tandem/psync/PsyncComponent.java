package tandem.psync;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

import org.osgi.framework.BundleContext;
import org.osgi.service.cm.ConfigurationAdmin;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Modified;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.osgi.service.component.annotations.ReferencePolicyOption;
import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.AttributeType;
import org.osgi.service.metatype.annotations.Designate;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;

import tandem.api.checkpoint.Checkpoints;
import tandem.api.frpl.FrplStreams;
import tandem.api.journal.DurabilityListener;
import tandem.api.home.NodeHome;
import tandem.api.journal.Journal;
import tandem.api.replication.PsyncHistory;
import tandem.api.replication.PsyncLink;
import tandem.api.replication.PsyncRequest;
import tandem.api.replication.PsyncService;
import tandem.api.replication.PsyncSession;
import tandem.api.replication.ReplicationControl;
import tandem.api.replication.ReplicationHub;
import tandem.api.replication.ReplicationStatus;
import tandem.api.replication.ReplicationStatusSource;
import tandem.api.store.CommandDescriptor;
import tandem.api.store.Keyspace;
import tandem.protocol.config.ConfigChange;
import tandem.protocol.config.ConfigWriteBack;

/**
 * The psync protocol (spec 001) of a node, on the RESP port: on a primary, {@link PsyncService} answers each
 * {@code PSYNC} the server hands over and streams the journal to the replica ({@link PrimaryStream}); on a replica
 * ({@code replicaof} set, or {@code REPLICAOF host port}), a {@link ReplicaClient} follows the primary.
 *
 * <p>Stopping or updating this bundle closes the replica connections only: clients stay connected, and replicas
 * reconnect and continue ({@code +CONTINUE}) from the journal once it is back. The journal and the hub are static
 * references; the checkpoints and the keyspace are needed only for full syncs and key hashes, and may come and go.
 */
@Component(service = {PsyncService.class, ReplicationStatusSource.class, ReplicationControl.class,
    PsyncHistory.class}, immediate = true, configurationPid = PsyncSettings.PID)
@Designate(ocd = PsyncComponent.Config.class)
public final class PsyncComponent implements PsyncService, ReplicationStatusSource, ReplicationControl,
        PsyncHistory, PrimaryStream.Context, ReplicaClient.Context {

    private static final Logger LOG = System.getLogger("tandem.psync");

    @ObjectClassDefinition(id = PsyncSettings.PID, name = "Tandem psync replication",
            description = "The psync protocol on the RESP port: REPLICAOF, PSYNC, full sync, the FRPL stream.")
    public @interface Config {

        @AttributeDefinition(description = "Empty on a primary. On a replica, the primary's RESP address IP:PORT "
                + "(host names are refused): the node then refuses client writes and follows it. REPLICAOF sets it; "
                + "a change applies live.")
        String replicaof() default "";

        @AttributeDefinition(description = "The password this replica presents to its primary (the primary's "
                + "requirepass, or masteruser's password); empty: none.", type = AttributeType.PASSWORD)
        String masterauth() default "";

        @AttributeDefinition(description = "The ACL user this replica authenticates as on its primary, with "
                + "masterauth (Redis' masteruser); empty: the default user. It needs only +psync +replconf +ping.")
        String masteruser() default "";

        @AttributeDefinition(description = "A replica sends REPLCONF ACK of what it applied this often, in "
                + "milliseconds (10..60000), and when GETACK asks.")
        int ack_interval_ms() default 1000;

        @AttributeDefinition(description = "A primary disconnects a replica whose socket took nothing for this "
                + "many milliseconds (0..600000; 0: never). Applies live.")
        int write_timeout_ms() default 5000;

        @AttributeDefinition(description = "A primary disconnects a replica that, once it was live, falls this many "
                + "entries behind the durable journal (100..10000000); it reconnects and continues. Applies live.")
        int max_lag_frames() default 10_000;

        @AttributeDefinition(description = "How long a replica waits for each handshake reply, in milliseconds "
                + "(100..600000).")
        int handshake_timeout_ms() default 10_000;

        @AttributeDefinition(description = "The longest pause between two connection attempts of a replica, in "
                + "milliseconds (100..600000); attempts start 100 ms apart and double.")
        int reconnect_max_ms() default 5_000;

        @AttributeDefinition(description = "Where the psync identity (replication ids, epoch) is kept; empty means "
                + "<tandem.home>/data/psync.")
        String state_directory() default "";
    }

    private final BundleContext context;
    private final Path home;
    private final Journal journal;
    private final ReplicationHub hub;
    private final ConfigWriteBack writeBack;
    private final List<PrimaryStream> streams = new CopyOnWriteArrayList<>();
    private final AtomicLong syncFull = new AtomicLong();
    private final AtomicLong syncPartialOk = new AtomicLong();
    private final AtomicLong syncPartialErr = new AtomicLong();
    private final DurabilityListener durability = new DurabilityListener() {
        @Override
        public void durable(long sequence) {
            if (client != null) {
                hub.appended(sequence);
            }
            for (PrimaryStream s : streams) {
                s.wake();
            }
        }

        @Override
        public void stopped(String reason) {
            for (PrimaryStream s : streams) {
                s.close("the journal stopped: " + reason);
            }
        }
    };
    private volatile PsyncSettings settings;
    private volatile Identity identity;
    private volatile ReplicaClient client;
    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    private volatile Checkpoints checkpoints;
    /**
     * The FRPL command stream: it streams every replica's journal and applies this replica's stream. When it goes
     * (an update), it ends those streams itself; replicas reconnect and continue once one is back.
     */
    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    private volatile FrplStreams frpl;
    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    private volatile Keyspace keyspace;
    /** The node's TLS material, for {@code tls-replication yes}. */
    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    private volatile tandem.api.tls.TlsMaterial tls;

    @Activate
    public PsyncComponent(Config config, BundleContext context, @Reference NodeHome home, @Reference Journal journal,
            @Reference ReplicationHub hub, @Reference ConfigurationAdmin configAdmin)
            throws IOException {
        this.context = context;
        this.home = home.directory();
        this.journal = journal;
        this.hub = hub;
        this.writeBack = new ConfigWriteBack(configAdmin, PsyncSettings.PID, home);
        this.settings = PsyncSettings.of(config, this.home);
        this.identity = journalHistoryChecked(loadIdentity(settings.stateDirectory()), hub);
        journal.addDurabilityListener(durability);
        if (settings.replicaOf() != null) {
            follow(settings);
        } else if ("psync".equals(hub.upstreamProtocol())) {
            LOG.log(Level.WARNING, "psync: replicaof is empty but this node follows {0}; it stays a replica until "
                    + "REPLICAOF NO ONE", hub.upstream());
        }
        LOG.log(Level.INFO, "psync: {0}, replication id {1}", settings.replicaOf() == null ? "primary"
                : "replica of " + settings.replicaOf(), identity.replicationId());
    }

    /**
     * A damaged identity file is set aside ({@code state.damaged}) and replaced by a fresh identity: a new id claims
     * nothing, so the worst it costs is a full sync of every replica (FM-REPLICATION-021).
     */
    private static Identity loadIdentity(Path dir) throws IOException {
        try {
            return Identity.load(dir);
        } catch (IOException e) {
            Path damaged = dir.resolve(Identity.FILE + ".damaged");
            Files.move(dir.resolve(Identity.FILE), damaged, StandardCopyOption.REPLACE_EXISTING);
            Identity fresh = Identity.fresh(0);
            fresh.store(dir);
            LOG.log(Level.ERROR, "psync: {0}; set aside as {1}, this node starts a new history {2} (its replicas "
                    + "full-sync)", e.getMessage(), damaged, fresh.replicationId());
            return fresh;
        }
    }

    /**
     * A node that follows by the journal protocol claims no id until that protocol tells it which history its journal
     * holds (at once if it knows, else at its next StreamStart): a snapshot may have replaced the journal while this
     * protocol was away. A node that took its id from the journal protocol and left that role meanwhile (promoted, or
     * made a primary) starts a new history, since the id could claim writes of its own tenure.
     */
    private Identity journalHistoryChecked(Identity id, ReplicationHub hub) throws IOException {
        Identity next;
        if ("journal".equals(hub.upstreamProtocol())) {
            next = id.followedByJournal(null);
        } else if (id.viaJournal()) {
            next = Identity.fresh(id.epoch());
            LOG.log(Level.WARNING, "psync: this node no longer follows by the journal protocol, which its id {0} "
                    + "was taken from; a new history {1} (its psync replicas full-sync)", id.replicationId(),
                    next.replicationId());
        } else {
            return id;
        }
        if (!next.equals(id)) {
            next.store(settings.stateDirectory());
        }
        return next;
    }

    @Modified
    synchronized void modified(Config config) {
        PsyncSettings next = ConfigChange.validated(LOG, () -> PsyncSettings.of(config, home));
        if (next == null) {
            return;
        }
        PsyncSettings previous = settings;
        if (next.replicaOf() == null && previous.replicaOf() != null) {
            LOG.log(Level.WARNING, "psync: replicaof was emptied; this node stays a replica of {0} until REPLICAOF "
                    + "NO ONE promotes it", previous.replicaOf());
            next = next.withReplicaOf(previous.replicaOf());
        }
        settings = next;
        if (next.replicaOf() != null && !next.replicaOf().equals(previous.replicaOf())) {
            stopClient();
            follow(next);
        }
    }

    @Deactivate
    void deactivate() {
        journal.removeDurabilityListener(durability);
        stopClient(); // the hub keeps following: writes stay refused while the bundle is away
        for (PrimaryStream s : streams) {
            s.close("the psync protocol stopped (bundle tandem.psync)");
        }
        streams.clear();
    }

    // ---- PsyncService: the primary side -----------------------------------------------------------------------

    @Override
    public PsyncSession psync(PsyncRequest request, PsyncLink link) {
        if (hub.upstream() != null) {
            refuse(link, "ERR PSYNC not supported - server is not running as primary");
            return null;
        }
        if (frpl == null) {
            refuse(link, "ERR PSYNC refused - the FRPL stream (tandem.frpl) is not active; try again");
            return null;
        }
        String mismatch = versionMismatch(request.version(), version());
        if (mismatch != null) {
            LOG.log(Level.WARNING, "replica {0} refused: {1}", request.address(), mismatch);
            refuse(link, "ERR PSYNC refused - " + mismatch);
            return null;
        }
        for (PrimaryStream other : streams) {
            if (other.id().equals(request.announcedAddress())) {
                other.close("replaced by a new connection of the same replica");
            }
        }
        Identity id = identity;
        long current = Math.max(0, journal.offsetAfter(journal.durableSequence()));
        boolean full = true;
        long fromSequence = -1;
        String why;
        if (request.replicationId().equals("?")) {
            why = "a first sync";
        } else if (!id.windowContains(request.replicationId(), request.offset(), current)) {
            why = "its history " + request.replicationId() + " at " + request.offset() + " is not this node's "
                    + id.replicationId() + " up to " + current;
        } else {
            fromSequence = request.offset() == current ? journal.durableSequence()
                    : journal.sequenceAtOffset(request.offset());
            if (fromSequence < 0) {
                why = "offset " + request.offset() + " is no command boundary in the retained journal";
            } else {
                full = false;
                why = null;
            }
        }
        ReplicationHub.ReplicaSlot slot = hub.attach(request.announcedAddress(), "psync", request.address(),
                () -> requestAck(request.announcedAddress()));
        if (slot == null) {
            refuse(link, "ERR this primary already serves " + ReplicationHub.MAX_REPLICAS + " replicas");
            return null;
        }
        if (full) {
            syncFull.incrementAndGet();
            if (!request.replicationId().equals("?")) {
                syncPartialErr.incrementAndGet();
            }
            LOG.log(Level.INFO, "replica {0} ({1}): full sync: {2}", request.announcedAddress(), request.address(),
                    why);
        } else {
            syncPartialOk.incrementAndGet();
            link.send(java.nio.ByteBuffer.wrap(("+CONTINUE " + id.replicationId() + "\r\n")
                    .getBytes(StandardCharsets.US_ASCII)));
            LOG.log(Level.INFO, "replica {0} ({1}): +CONTINUE at offset {2}", request.announcedAddress(),
                    request.address(), Long.toString(request.offset()));
        }
        PrimaryStream stream = new PrimaryStream(this, request, link, slot, full, fromSequence,
                full ? -1 : request.offset());
        streams.add(stream);
        stream.start();
        return stream;
    }

    /**
     * FrogDB's version gate (FM-REPLICATION-064): both ends must share the major version; a minor difference, or a
     * version that does not parse or was not announced, is served.
     *
     * @return why the versions cannot replicate, or null
     */
    static String versionMismatch(String theirs, String ours) {
        int m = major(theirs);
        int n = major(ours);
        if (m < 0 || n < 0 || m == n) {
            return null;
        }
        return "replica announced version " + theirs + " (major " + m + ") but this primary is version " + ours
                + " (major " + n + "); replication requires both ends on the same major version";
    }

    private static int major(String version) {
        if (version == null) {
            return -1;
        }
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("^(\\d{1,6})(\\.|$)").matcher(version.trim());
        return m.find() ? Integer.parseInt(m.group(1)) : -1;
    }

    private static void refuse(PsyncLink link, String error) {
        link.send(java.nio.ByteBuffer.wrap(("-" + error + "\r\n").getBytes(StandardCharsets.US_ASCII)));
    }

    private void requestAck(String id) {
        for (PrimaryStream s : streams) {
            if (s.id().equals(id)) {
                s.requestAck();
            }
        }
    }

    // ---- the replica side -------------------------------------------------------------------------------------

    private void follow(PsyncSettings s) {
        hub.follow(s.replicaOf(), "psync");
        for (PrimaryStream stream : streams) {
            stream.close("this node follows " + s.replicaOf() + " now");
        }
        ReplicaClient c = new ReplicaClient(this, new InetSocketAddress(s.replicaOfAddress(), s.replicaOfPort()),
                s.replicaOf());
        client = c;
        c.start();
    }

    private void stopClient() {
        ReplicaClient c = client;
        client = null;
        if (c != null) {
            c.close();
        }
    }

    @Override
    public synchronized String replicaOf(String address) {
        PsyncSettings next = settings.withReplicaOf(address);
        if (next.replicaOf() == null) {
            throw new IllegalArgumentException(PsyncSettings.PID + ": replicaof=" + address
                    + " is invalid: must be IP:PORT (REPLICAOF NO ONE makes a replica a primary)");
        }
        String protocol = hub.upstreamProtocol();
        if (protocol != null && !protocol.equals("psync")) {
            throw new IllegalStateException("this node follows " + hub.upstream() + " through the " + protocol
                    + " protocol; repl:promote first");
        }
        ReplicaClient c = client;
        if (c != null && c.address().equals(next.replicaOf())) {
            return "already a replica of " + next.replicaOf();
        }
        stopClient();
        settings = next;
        writeBack.put("replicaof", next.replicaOf());
        follow(next);
        return "following " + next.replicaOf() + ": client writes are refused";
    }

    @Override
    public synchronized String promote(boolean force) throws InterruptedException {
        if (!"psync".equals(hub.upstreamProtocol())) {
            throw new IllegalStateException(hub.upstream() == null ? "this node is a primary already"
                    : "this node follows " + hub.upstream() + " through the " + hub.upstreamProtocol()
                            + " protocol");
        }
        stopClient(); // nothing more is received
        journal.awaitDurable(journal.lastSequence());
        Identity was = identity;
        long offset = Math.max(0, journal.offsetAfter(journal.durableSequence()));
        Identity next = was.promoted(offset);
        long bump;
        try {
            identity(next); // first: a node that fails to keep its new id stays a replica
            bump = hub.lead(next.epoch());
        } catch (IOException | RuntimeException | InterruptedException e) {
            LOG.log(Level.ERROR, "psync: promotion failed, following {0} again: {1}", settings.replicaOf(),
                    e.getMessage());
            try {
                identity(was);
            } catch (IOException again) {
                LOG.log(Level.ERROR, "psync: the former identity cannot be restored either (a full sync follows): "
                        + "{0}", again.getMessage());
            }
            follow(settings);
            if (e instanceof InterruptedException ie) {
                throw ie;
            }
            throw e instanceof RuntimeException r ? r : new UncheckedIOException((IOException) e);
        }
        settings = settings.withReplicaOf(null);
        writeBack.put("replicaof", "");
        LOG.log(Level.WARNING, "psync: promoted: primary with replication id {0} (the former {1} stays valid up "
                + "to offset {2}), EpochBump at sequence {3}", next.replicationId(), next.secondaryId(),
                Long.toString(offset), Long.toString(bump));
        return "promoted: primary with replication id " + next.replicationId() + "; replicas of the former primary "
                + "continue with REPLICAOF " + (hub.frontend() == null ? "<this node's RESP address>"
                : hub.frontend().bindAddress() + " " + hub.frontend().port());
    }

    @Override
    public String protocol() {
        return "psync";
    }

    // ---- PsyncHistory: kept in step by the journal protocol ---------------------------------------------------

    @Override
    public String historyId() {
        Identity id = identity;
        return id.hasHistory() ? id.replicationId() : null;
    }

    @Override
    public synchronized void followedByJournal(String replicationId) throws IOException {
        if (replicationId != null && !Identity.isId(replicationId)) {
            throw new IllegalArgumentException("psync id '" + replicationId + "' is not 40 hex digits");
        }
        Identity was = identity;
        Identity next = was.followedByJournal(replicationId);
        if (next.equals(was)) {
            return;
        }
        try {
            identity(next);
        } catch (IOException e) {
            identity = was.followedByJournal(null); // claims nothing, not even the former id
            throw e;
        }
        LOG.log(Level.INFO, "psync: this node''s journal follows {0} by the journal protocol: its history is {1}",
                hub.upstream(), replicationId == null ? "named by no psync id" : replicationId);
    }

    @Override
    public synchronized void leading(long offset) throws IOException {
        Identity was = identity;
        Identity next = was.promoted(offset);
        identity(next);
        LOG.log(Level.WARNING, "psync: promoted by the journal protocol: replication id {0}{1}",
                next.replicationId(), was.hasHistory() ? " (the former primary's " + was.replicationId()
                        + " stays valid up to offset " + offset + ")" : "");
    }

    @Override
    public void ackPolicy(String policy) {
        throw new UnsupportedOperationException("the ack policies count journal-protocol replicas: set them with "
                + "repl:policy on the journal protocol; psync replicas count for WAIT and min-replicas-to-write");
    }

    @Override
    public boolean forget(String id) {
        return false; // psync keeps no registry: a replica is known while it is connected
    }

    // ---- status -----------------------------------------------------------------------------------------------

    @Override
    public ReplicationStatus replicationStatus() {
        Identity id = identity;
        ReplicationStatus.Psync psync = new ReplicationStatus.Psync(id.replicationId(), id.secondaryId(),
                id.secondaryOffset(), syncFull.get(), syncPartialOk.get(), syncPartialErr.get());
        ReplicaClient c = client;
        if (c != null) {
            return new ReplicationStatus("psync", "replica", null, id.epoch(), null, c.status(), List.of(), null,
                    psync);
        }
        List<ReplicationStatus.Replica> replicas = new ArrayList<>();
        long last = journal.lastSequence();
        for (PrimaryStream s : streams) {
            if (s.phase() != PrimaryStream.Phase.DISCONNECTING) {
                replicas.add(s.status(last));
            }
        }
        return new ReplicationStatus("psync", hub.upstream() == null ? "primary" : "replica", null, id.epoch(),
                respAddress(), null, replicas, null, psync);
    }

    // ---- contexts ---------------------------------------------------------------------------------------------

    @Override
    public Journal journal() {
        return journal;
    }

    @Override
    public ReplicationHub hub() {
        return hub;
    }

    @Override
    public Checkpoints checkpoints() {
        return checkpoints;
    }

    @Override
    public FrplStreams frpl() {
        return frpl;
    }

    @Override
    public String replicationId() {
        return identity.replicationId();
    }

    @Override
    public PsyncSettings settings() {
        return settings;
    }

    @Override
    public void ended(PrimaryStream stream) {
        streams.remove(stream);
    }

    @Override
    public int firstKey(String name) {
        Keyspace k = keyspace;
        CommandDescriptor d = k == null ? null : k.describe(name);
        return d == null ? 0 : d.firstKey();
    }

    @Override
    public Identity identity() {
        return identity;
    }

    @Override
    public synchronized void identity(Identity next) throws IOException {
        next.store(settings.stateDirectory());
        identity = next;
    }

    @Override
    public int listeningPort() {
        tandem.api.server.ServerStatus server = hub.frontend();
        tandem.api.tls.TlsMaterial t = tls;
        if (server != null && t != null && t.replication() && server.tlsPort() > 0) {
            return server.tlsPort();
        }
        return server == null ? -1 : server.port();
    }

    @Override
    public tandem.api.tls.TlsMaterial replicationTls() throws IOException {
        tandem.api.tls.TlsMaterial t = tls;
        if (t == null || !t.replication()) {
            return null;
        }
        if (!t.ready()) {
            throw new IOException("tls-replication is yes but no TLS material is loaded (etc/tandem.tls.cfg): "
                    + t.status().lastError());
        }
        return t;
    }

    /** @return {@code bind:port} of this node's RESP listener, or {@code ?:-1} while the server is not attached */
    private String respAddress() {
        tandem.api.server.ServerStatus server = hub.frontend();
        return server == null ? "?:-1" : server.bindAddress() + ":" + server.port();
    }

    @Override
    public String version() {
        return context.getBundle().getVersion().toString();
    }
}
