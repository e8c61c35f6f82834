package tandem.store;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.nio.file.Path;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Modified;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.Designate;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;

import tandem.api.home.NodeHome;
import tandem.api.store.BlockingWait;
import tandem.api.store.Command;
import tandem.api.store.CommandDescriptor;
import tandem.api.store.Keyspace;
import tandem.api.store.KeyspaceEvents;
import tandem.api.store.Reply;
import tandem.api.store.StoreStatus;

/**
 * The store as a service: opens the RocksDB keyspace at activation, flushes it in the background so that the
 * flushed sequence (what journal retention may purge below) advances, and flushes and closes it at deactivation.
 *
 * <p>A replica's snapshot replaces the whole keyspace ({@link #install}): the component closes RocksDB, swaps the
 * directory ({@link StoreDirectory}) and opens it again, and the store carries the checkpoint's {@link #origin}
 * until the pipeline has checked that the journal holds the same history there. An install cut short by a crash
 * is finished at the next activation, before RocksDB opens.
 *
 * <p>{@code flush.interval.ms}, {@code expire.keys.per.tick} and {@code scan.cursors} apply live through
 * {@link #modified}; {@code directory} applies when the component next activates. An invalid change is refused
 * with a logged reason and the running configuration stays.
 */
@Component(service = Keyspace.class, immediate = true, configurationPid = StoreSettings.PID)
@Designate(ocd = StoreComponent.Config.class)
public final class StoreComponent implements Keyspace {

    private static final Logger LOG = System.getLogger("tandem.store");

    @ObjectClassDefinition(id = StoreSettings.PID, name = "Tandem store",
            description = "The RocksDB keyspace: command execution and deterministic apply of journal entries.")
    public @interface Config {

        @AttributeDefinition(description = "Directory of the RocksDB database. Empty (default): the framework "
                + "property tandem.home followed by /data/store. Read when the component activates.")
        String directory() default "";

        @AttributeDefinition(description = "Period in milliseconds of the background flush (10..3600000, default "
                + "1000). Each flush records the applied sequence it made durable as the flushed sequence, below "
                + "which the journal may be purged. Applies live.")
        int flush_interval_ms() default 1000;

        @AttributeDefinition(description = "The most keys one Tick (active expiry) deletes, in deadline order "
                + "(1..1000000, default 100). Applies live, to Ticks applied after the change; every replica must "
                + "use the same value.")
        int expire_keys_per_tick() default 100;

        @AttributeDefinition(description = "The most SCAN/HSCAN cursors remembered (1..1000000, default 1024); "
                + "the least recently used is forgotten first, and a forgotten cursor restarts its iteration. "
                + "Applies live.")
        int scan_cursors() default 1024;
    }

    /** Replaced only by {@link #install}, on the logic thread; read by the flush, digest and status threads. */
    private volatile RocksKeyspace keyspace;
    /** Where keyspace notifications go; kept here, for the store an install opens anew. */
    private volatile KeyspaceEvents events;
    private volatile Origin origin;
    private final StoreDirectory directory;
    private final ScheduledExecutorService flusher;
    private final String tandemHome;
    private volatile StoreSettings settings;
    private ScheduledFuture<?> flushTask;

    @Activate
    public StoreComponent(Config config, @Reference NodeHome home) {
        this.tandemHome = home.directory().toString();
        StoreSettings s = StoreSettings.of(config, tandemHome);
        this.settings = s;
        this.directory = new StoreDirectory(s.directory());
        if (directory.recover()) {
            LOG.log(Level.WARNING, "{0}: a checkpoint install cut short by a restart was finished", s.directory());
        }
        this.keyspace = RocksKeyspace.open(s.directory(), s.expireKeysPerTick(), s.scanCursors());
        this.origin = directory.origin();
        this.flusher = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "tandem-store-flush");
            t.setDaemon(true);
            return t;
        });
        schedule(s.flushIntervalMs());
        LOG.log(Level.INFO, "store open in {0} at applied sequence {1}{2}", s.directory(),
                Long.toString(keyspace.appliedSequence()), origin == null ? ""
                        : " (installed from a checkpoint at " + origin + ", not yet reconciled with the journal)");
    }

    @Modified
    void modified(Config config) {
        StoreSettings next;
        try {
            next = StoreSettings.of(config, tandemHome);
        } catch (IllegalArgumentException e) {
            LOG.log(Level.ERROR, "configuration change refused, the running configuration stays: {0}",
                    e.getMessage());
            return;
        }
        StoreSettings previous = settings;
        if (!next.directory().equals(previous.directory())) {
            LOG.log(Level.WARNING, "{0}: directory applies when the component next activates (still {1})",
                    StoreSettings.PID, previous.directory());
            next = new StoreSettings(previous.directory(), next.flushIntervalMs(), next.expireKeysPerTick(),
                    next.scanCursors());
        }
        keyspace.expireKeysPerTick(next.expireKeysPerTick());
        keyspace.scanCursors(next.scanCursors());
        if (next.flushIntervalMs() != previous.flushIntervalMs()) {
            schedule(next.flushIntervalMs());
        }
        settings = next;
    }

    private synchronized void schedule(int intervalMs) {
        if (flushTask != null) {
            flushTask.cancel(false);
        }
        flushTask = flusher.scheduleWithFixedDelay(this::flushQuietly, intervalMs, intervalMs, TimeUnit.MILLISECONDS);
    }

    /** The failure the last background flush logged, so that one that keeps failing logs once a minute. */
    private String lastFlushFailure;
    private long lastFlushFailureLoggedNs;

    private void flushQuietly() {
        RocksKeyspace k = keyspace;
        try {
            k.flush();
            if (lastFlushFailure != null) {
                LOG.log(Level.INFO, "background flush succeeds again");
                lastFlushFailure = null;
            }
        } catch (RuntimeException e) {
            long now = System.nanoTime();
            boolean repeated = String.valueOf(e.getMessage()).equals(lastFlushFailure)
                    && now - lastFlushFailureLoggedNs < TimeUnit.MINUTES.toNanos(1);
            if (k == keyspace && !repeated) { // a keyspace an install closed meanwhile has nothing left to flush
                LOG.log(Level.ERROR, "background flush failed (logged again once a minute while it fails the same "
                        + "way): {0}", e.getMessage());
                lastFlushFailure = String.valueOf(e.getMessage());
                lastFlushFailureLoggedNs = now;
            }
        }
    }

    @Deactivate
    void deactivate() {
        flusher.shutdownNow();
        try {
            if (!flusher.awaitTermination(30, TimeUnit.SECONDS)) {
                LOG.log(Level.WARNING, "the background flush did not stop within 30 s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        synchronized (directory) {
            keyspace.close();
        }
        LOG.log(Level.INFO, "store closed at applied sequence {0}", Long.toString(keyspace.appliedSequence()));
    }

    // ---------------------------------------------------------------- install

    @Override
    public long install(Path checkpoint, long sequence, byte[] chain) {
        if (chain == null || chain.length != 32) {
            throw new IllegalArgumentException("the chain value of an install must have 32 bytes");
        }
        // opened read-only first: a checkpoint that does not open, or holds another sequence, changes nothing
        long held = RocksKeyspace.appliedSequenceOf(checkpoint);
        if (sequence >= 0 && held != sequence) {
            throw new IllegalArgumentException("the checkpoint " + checkpoint + " holds applied sequence " + held
                    + ", not " + sequence);
        }
        Origin o = new Origin(held, chain);
        synchronized (directory) {
            directory.commit(checkpoint, o);
            StoreSettings s = settings;
            RocksKeyspace old = keyspace;
            old.close();
            directory.complete();
            keyspace = RocksKeyspace.open(s.directory(), s.expireKeysPerTick(), s.scanCursors());
            keyspace.events(events);
            origin = directory.origin();
        }
        LOG.log(Level.INFO, "store replaced by a checkpoint at {0}", o);
        return held;
    }

    @Override
    public Origin origin() {
        return origin;
    }

    @Override
    public void reconciled() {
        synchronized (directory) {
            if (origin != null) {
                directory.clearOrigin();
                LOG.log(Level.INFO, "store reconciled with the journal at its origin, {0}", origin);
                origin = null;
            }
        }
    }

    /** @return the settings in force */
    StoreSettings settings() {
        return settings;
    }

    // ---------------------------------------------------------------- Keyspace, delegated

    @Override
    public Collection<CommandDescriptor> commands() {
        return keyspace.commands();
    }

    @Override
    public CommandDescriptor describe(String lowerCaseName) {
        return keyspace.describe(lowerCaseName);
    }

    @Override
    public Command resolve(byte[][] args) {
        return Commands.resolve(args);
    }

    @Override
    public void apply(long sequence, long timestampNs, Command command, Reply reply) {
        keyspace.apply(sequence, timestampNs, command, reply);
    }

    @Override
    public void applyTransaction(long sequence, long timestampNs, List<Command> commands, Reply reply) {
        keyspace.applyTransaction(sequence, timestampNs, commands, reply);
    }

    @Override
    public boolean isScript(Command command) {
        return keyspace.isScript(command);
    }

    @Override
    public List<Effect> capture(long timestampNs, String writeRefusal, Publisher publisher,
            java.util.function.Consumer<Capture> body) {
        return keyspace.capture(timestampNs, writeRefusal, publisher, body);
    }

    @Override
    public String killScript(boolean function) {
        return keyspace.killScript(function);
    }

    @Override
    public boolean functionRunning() {
        return keyspace.functionRunning();
    }

    @Override
    public long scriptRunningMillis() {
        return keyspace.scriptRunningMillis();
    }

    @Override
    public void tick(long sequence, long timestampNs) {
        keyspace.tick(sequence, timestampNs);
    }

    @Override
    public void advance(long sequence) {
        keyspace.advance(sequence);
    }

    @Override
    public void epochBump(long sequence, long epoch) {
        keyspace.epochBump(sequence, epoch);
    }

    @Override
    public long epoch() {
        return keyspace.epoch();
    }

    @Override
    public void read(long nowNs, Command command, Reply reply) {
        keyspace.read(nowNs, command, reply);
    }

    @Override
    public String check(Command command, long nowNs) {
        return keyspace.check(command, nowNs);
    }

    @Override
    public BlockingWait blockingWait(Command command) {
        return Pops.blockingWait(command.args());
    }

    @Override
    public void refuse(long nowNs, Command command, Reply reply) {
        keyspace.refuse(nowNs, command, reply);
    }

    @Override
    public void events(KeyspaceEvents sink) {
        events = sink;
        keyspace.events(sink);
    }

    @Override
    public void commit() {
        keyspace.commit();
    }

    @Override
    public long appliedSequence() {
        return keyspace.appliedSequence();
    }

    @Override
    public long checkpoint(Path target) {
        return keyspace.checkpoint(target);
    }

    @Override
    public long nextDeadlineNs() {
        return keyspace.nextDeadlineNs();
    }

    @Override
    public byte[] digest() {
        return keyspace.digest();
    }

    @Override
    public StoreStatus status() {
        return keyspace.status();
    }
}
