package tandem.store;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

import org.osgi.framework.BundleContext;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Modified;
import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.Designate;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;

import tandem.api.store.CommandDescriptor;
import tandem.api.store.Keyspace;
import tandem.api.store.Reply;
import tandem.api.store.StoreStatus;

/**
 * The store as a service: opens the RocksDB keyspace at activation, flushes it in the background so that the
 * flushed sequence (what journal retention may purge below) advances, and flushes and closes it at deactivation.
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

    private final RocksKeyspace keyspace;
    private final ScheduledExecutorService flusher;
    private final String tandemHome;
    private volatile StoreSettings settings;
    private ScheduledFuture<?> flushTask;

    @Activate
    public StoreComponent(Config config, BundleContext context) {
        this.tandemHome = context.getProperty("tandem.home");
        StoreSettings s = StoreSettings.of(config, tandemHome);
        this.settings = s;
        this.keyspace = RocksKeyspace.open(s.directory(), s.expireKeysPerTick(), s.scanCursors());
        this.flusher = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "tandem-store-flush");
            t.setDaemon(true);
            return t;
        });
        schedule(s.flushIntervalMs());
        LOG.log(Level.INFO, "store open in {0} at applied sequence {1}", s.directory(),
                Long.toString(keyspace.appliedSequence()));
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

    private void flushQuietly() {
        try {
            keyspace.flush();
        } catch (RuntimeException e) {
            LOG.log(Level.ERROR, "background flush failed: {0}", e.getMessage());
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
        keyspace.close();
        LOG.log(Level.INFO, "store closed at applied sequence {0}", Long.toString(keyspace.appliedSequence()));
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
    public void apply(long sequence, long timestampNs, byte[][] args, Reply reply) {
        keyspace.apply(sequence, timestampNs, args, reply);
    }

    @Override
    public void applyTransaction(long sequence, long timestampNs, List<byte[][]> commands, Reply reply) {
        keyspace.applyTransaction(sequence, timestampNs, commands, reply);
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
    public void read(long nowNs, byte[][] args, Reply reply) {
        keyspace.read(nowNs, args, reply);
    }

    @Override
    public long appliedSequence() {
        return keyspace.appliedSequence();
    }

    @Override
    public long checkpoint(java.nio.file.Path directory) {
        return keyspace.checkpoint(directory);
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
