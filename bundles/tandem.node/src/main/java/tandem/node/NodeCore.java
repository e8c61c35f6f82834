package tandem.node;

import java.util.ArrayList;
import java.util.List;

import tandem.api.journal.Journal;
import tandem.api.node.Frontend;
import tandem.api.node.NodeClient;
import tandem.api.node.NodeSession;
import tandem.api.server.WriteAdmission;
import tandem.api.store.Command;
import tandem.api.store.CommandDescriptor;
import tandem.api.store.Keyspace;

/**
 * The node core put together: the parts of the ordered pipeline, in the order a request meets them — the
 * {@link Inbox}, the {@link Dispatcher} (with {@link Transactions}), admission and sequencing ({@link Sequencer}),
 * the {@link Turns} that {@link Drain} runs through the {@link Applier}, {@link Replies} that leave once the
 * {@link ResponseGate} allows — with the {@link LogicThread} that drives them, the {@link Services} they use, what
 * {@link Replay} brings up to date, the clients {@link Parking} holds, the node's {@link Housekeeping}, its
 * {@link Accounting} and its role ({@link RoleControl}). What the node component (and a test) asks of the node core
 * goes through here.
 */
public final class NodeCore implements AutoCloseable {

    private final Inbox inbox = new Inbox();
    private final RoleState role = new RoleState();
    private final Accounting accounting = new Accounting();
    private final Admissions admissions = new Admissions();
    private final ResponseGate gate = new ResponseGate(inbox::wake);
    private final Services services;
    private final Applier applier;
    private final Replies replies;
    private final Parking parking;
    private final Replay replay;
    private final RoleControl roleControl;
    private final LogicThread logic;
    private final Pause pause = new Pause();

    /** @param pauseMillis how long a request waits for a missing journal or store before it is refused */
    public NodeCore(long pauseMillis) {
        EntryClock clock = new EntryClock();
        Turns turns = new Turns();
        WatchRegistry watches = new WatchRegistry();
        Blocked blocked = new Blocked();
        Waits waits = new Waits(gate);
        services = new Services(pauseMillis, role, inbox);
        applier = new Applier(services, accounting);
        applier.gate(gate);
        replies = new Replies(gate, inbox);
        replay = new Replay(services, applier, turns, replies, clock, role);
        Sequencer sequencer = new Sequencer(services, applier, admissions, gate, role, clock, turns, replies, watches,
                blocked);
        Scripting scripting = new Scripting(services, turns, sequencer, replies, clock, role, applier, gate);
        Transactions transactions = new Transactions(services, replay, sequencer, turns, watches, scripting);
        Dispatcher dispatcher = new Dispatcher(services, replay, sequencer, transactions, turns, replies, waits,
                blocked, role, pause, scripting);
        parking = new Parking(waits, blocked, pause, dispatcher, replies, role, inbox);
        Housekeeping housekeeping = new Housekeeping(services, applier, sequencer, role, clock, pause);
        Drain drain = new Drain(services, turns, applier, sequencer, replies, parking, housekeeping, accounting, gate,
                clock);
        scripting.drain(drain);
        roleControl = new RoleControl(role, services, replay, applier, sequencer, replies, inbox);
        logic = new LogicThread(inbox, services, replay, sequencer, dispatcher, drain, applier, parking,
                housekeeping, replies, accounting, role);
        logic.start();
    }

    // ---- the front end

    /** Where a replica delivers the messages its primary's clients published; null while there is none. */
    public void subscribers(tandem.api.server.PubSub pubSub) {
        applier.subscribers(pubSub);
    }

    /** {@code pubSub} is going (one that replaces it may be bound already). */
    public void subscribersGone(tandem.api.server.PubSub pubSub) {
        applier.subscribersGone(pubSub);
    }

    /** Attaches the front end, replacing any. */
    public void frontend(Frontend next) {
        accounting.attach(next);
    }

    /** @return the front end attached, or null */
    public Frontend frontend() {
        return accounting.frontend();
    }

    /** Detaches {@code f} when it is the front end attached. */
    public void detach(Frontend f) {
        accounting.detach(f);
    }

    /** @return a new client of the front end: its requests go to the logic thread */
    public NodeSession open(NodeClient client) {
        return new Client(client, inbox);
    }

    /** See {@link tandem.api.node.Node#resolve}. */
    public Command resolve(byte[][] args) {
        return resolve(services.keyspace(), args);
    }

    /**
     * @return the keyspace command a client's request names, or null (none; no keyspace; or a name with a {@code |},
     *         which a client never sends: the node's woken forms have one)
     */
    static Command resolve(Keyspace keyspace, byte[][] args) {
        if (keyspace == null) {
            return null;
        }
        for (byte b : args[0]) {
            if (b == '|') {
                return null;
            }
        }
        return keyspace.resolve(args);
    }

    /** @return the keyspace commands, or an empty list while no store is bound */
    public List<CommandDescriptor> commands() {
        Keyspace k = services.keyspace();
        return k == null ? List.of() : new ArrayList<>(k.commands());
    }

    /** @return the bound keyspace's command named {@code name}, or null */
    public CommandDescriptor describe(String name) {
        Keyspace k = services.keyspace();
        return k == null ? null : k.describe(name);
    }

    // ---- services

    /** Binds or replaces the journal; returns once the logic thread no longer uses the previous one. */
    public void journal(Journal next) {
        services.journal(next);
    }

    /** Binds or replaces the keyspace; returns once the logic thread no longer uses the previous one. */
    public void keyspace(Keyspace next) {
        services.keyspace(next, () -> {
            if (next != null) {
                next.events(applier.events());
                applier.retry();
            }
        });
    }

    /**
     * Refuses writes, before they are sequenced, with {@code -NOREPLICAS} while fewer than {@code replicas}
     * replicas are good (0: never); a replica is good when it acknowledged within {@code maxLagMillis} (0: any
     * engaged replica) or has nothing left to acknowledge.
     */
    public void minReplicasToWrite(int replicas, long maxLagMillis) {
        admissions.minReplicasToWrite(replicas, maxLagMillis);
    }

    /**
     * Adds a write-admission provider, consulted before every write is sequenced from the next one on; among equal
     * rankings, the one added first is asked first.
     */
    public void addAdmission(WriteAdmission admission, int ranking) {
        addAdmission(admission, ranking, null);
    }

    /**
     * {@link #addAdmission(WriteAdmission, int)} for a provider the node must not write without once it has seen it
     * ({@code required}, its name): while it is away, writes wait for it (up to the pause window), then are refused.
     */
    public void addAdmission(WriteAdmission admission, int ranking, String required) {
        admissions.add(admission, ranking, required);
        services.signal(); // a write waiting for this provider goes on
    }

    /**
     * Requires the provider {@code name} before it is added: a required provider this node saw before a restart.
     * Writes wait for it (up to the pause window), then are refused, until it is added.
     */
    public void requireAdmission(String name) {
        admissions.require(name);
    }

    public void removeAdmission(WriteAdmission admission) {
        admissions.remove(admission);
    }

    // ---- replication and role

    /** @return the gate that holds replies until the ack policy holds */
    public ResponseGate gate() {
        return gate;
    }

    /** @return where the node's role changes */
    RoleControl role() {
        return roleControl;
    }

    /** See {@link RoleControl#follow}. */
    public void follow(String primary) {
        roleControl.follow(primary);
    }

    /** See {@link RoleControl#awaitRole}. */
    public void awaitRole() {
        roleControl.awaitRole();
    }

    /** @return the primary followed, or null */
    public String upstream() {
        return role.upstream();
    }

    /** Replication's entries are durable up to {@code sequence}: the logic thread applies them. */
    public void appended(long sequence) {
        roleControl.appended();
    }

    /** See {@link RoleControl#install}. */
    public long install(java.nio.file.Path checkpoint, long sequence, byte[] chain) throws InterruptedException {
        return roleControl.install(checkpoint, sequence, chain);
    }

    /** See {@link RoleControl#lead}. */
    public long lead(long epoch) throws InterruptedException {
        return roleControl.lead(epoch);
    }

    /** Refuses client writes with {@code error}, or accepts them again with null. */
    public void fence(String error) {
        roleControl.fence(error);
    }

    /** @return the error client writes are refused with, or null */
    public String fence() {
        return role.fence();
    }

    /** @return whether a client write was journaled since the last call (this node took writes as a primary) */
    public boolean tookClientWrites() {
        return role.takeClientWrites();
    }

    // ---- status, any thread

    /** @return why applying journal entries stopped (writes are refused meanwhile), or null */
    public String applyStopped() {
        Applier.ApplyFailure f = applier.failure();
        return f == null ? null : f.toString();
    }

    /** @return the connections parked in {@code WAIT} or in a blocking command now */
    public int blockedClients() {
        return parking.parked();
    }

    /** See {@link tandem.api.node.Node#pause}; on the logic thread. */
    public void pause(long millis, boolean writesOnly) {
        pause.pause(millis, writesOnly);
    }

    /** See {@link tandem.api.node.Node#unpause}; on the logic thread. */
    public void unpause() {
        pause.unpause();
    }

    /** See {@link tandem.api.node.Node#unblock}; on the logic thread. */
    public boolean unblock(long clientId, boolean error) {
        return parking.unblock(clientId, error);
    }

    /** @return the last sequence the bound keyspace applied, 0 while none is bound */
    public long appliedSequence() {
        Keyspace k = services.keyspace();
        return k == null ? 0 : k.appliedSequence();
    }

    /** @return the write-to-ack latencies recorded so far */
    public WriteAckLatency ackLatency() {
        return replies.ackLatency();
    }

    /**
     * @return true while an installed snapshot waits for the journal of its history: keyspace commands are answered
     *         {@code -LOADING} meanwhile
     */
    public boolean loading() {
        return services.loading();
    }

    /** @return null when ready to serve the keyspace, else why not ({@link tandem.api.node.Node#notReady}) */
    public String notReady() {
        if (services.journal() == null) {
            return "the journal (tandem.journal) is not active";
        }
        if (services.keyspace() == null) {
            return "the store (tandem.store) is not active";
        }
        Applier.ApplyFailure f = applier.failure();
        if (f != null) {
            return "applying the journal stopped: " + f;
        }
        String progress = replay.progress();
        if (progress != null) {
            return progress;
        }
        String u = services.unavailable();
        if (u != null) {
            return u.substring(u.indexOf(' ') + 1); // without the error code
        }
        if (!replay.replayed()) {
            return "the journal is not replayed into the store yet";
        }
        if (!role.known()) {
            return "waiting for a replication protocol to declare this node's role";
        }
        return null;
    }

    @Override
    public void close() {
        services.close();
        parking.close();
        logic.close();
    }
}
