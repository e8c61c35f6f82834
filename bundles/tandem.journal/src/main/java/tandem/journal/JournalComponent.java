package tandem.journal;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;

import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Modified;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.Designate;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;

import tandem.api.home.NodeHome;
import tandem.api.journal.Journal;
import tandem.api.journal.JournalStatus;
import tandem.api.metrics.MetricsSink;
import tandem.api.metrics.MetricsSource;
import tandem.protocol.config.ConfigChange;
import tandem.protocol.frpl.FrplPayload;

/**
 * Registers the node's {@link Journal}: the segmented journal, opened (recovered) when the component activates and
 * closed, after the last pending batch is durable, when it deactivates; it measures what it reads back from its files
 * with the FRPL lengths of {@link FrplPayload}.
 *
 * <p>Wait strategy, batch size, segment size, retention and the archive change live through {@link #modified}; the
 * directory applies when the component next activates. An invalid change is refused with a logged reason and the running
 * configuration stays.
 */
@Component(service = {Journal.class, MetricsSource.class}, immediate = true, configurationPid = JournalSettings.PID)
@Designate(ocd = JournalComponent.Config.class)
public final class JournalComponent extends SegmentedJournal implements MetricsSource {

    private static final Logger LOG = System.getLogger("tandem.journal");

    @ObjectClassDefinition(id = JournalSettings.PID, name = "Tandem journal",
            description = "The durable, sequenced, chain-hashed log of every write of the node.")
    public @interface Config {

        @AttributeDefinition(description = "Directory of the journal segments. Empty (default): the framework "
                + "property tandem.home followed by /data/journal; a relative path is resolved against tandem.home. "
                + "Must be absolute after that. Read when the component activates.")
        String directory() default "";

        @AttributeDefinition(description = "Size in bytes at which the live segment is sealed and a new one "
                + "started, checked after each durable batch (65536..2^40, default 256 MiB). Applies live.")
        long segment_size() default 256L * 1024 * 1024;

        @AttributeDefinition(description = "How a writer waits for durability: blocking (default; parks, no CPU), "
                + "spin-yield (spins briefly, then yields) or busy-spin (burns a core; opt-in). Applies live to "
                + "waits that start after the change.")
        String wait_strategy() default "blocking";

        @AttributeDefinition(description = "Most entries in one write + fdatasync batch (1..1048576, default "
                + "4096); beyond it the sequencer waits for the journal thread. Applies live.")
        int max_batch_entries() default 4096;

        @AttributeDefinition(description = "Archived segments the store no longer needs are kept for lagging "
                + "replicas while the journal's total size stays within this many bytes (0 keeps none; default "
                + "1 GiB). Applies at the next purge.")
        long retention_max_bytes() default 1024L * 1024 * 1024;

        @AttributeDefinition(description = "Archived segments the store no longer needs are kept for lagging "
                + "replicas while younger than this many seconds since they were sealed (0 keeps none; default "
                + "86400). Applies at the next purge.")
        long retention_max_age_seconds() default 86400;

        @AttributeDefinition(description = "Number of archived lineages (DIR/lineage.<n>/, made when a diverged "
                + "node starts a new history) to keep; older ones are deleted (0..1000, default 3). Applies live.")
        int lineage_archives_keep() default 3;

        @AttributeDefinition(description = "The journal archive: every sealed segment is copied into this "
                + "directory (verified, then renamed to segment-<first>-<last>-<tail chain prefix>), and a segment "
                + "is deleted from the journal only once archived, whatever the retention settings say. Empty "
                + "(default): no archiving. A relative path is resolved against tandem.home. The directory must "
                + "exist (Tandem does not create it, so that an unmounted file system is never filled in its "
                + "place). Applies live: archiving starts, stops or continues into the new directory.")
        String archive_directory() default "";

        @AttributeDefinition(description = "With archive.directory set, on a primary: the live segment is sealed "
                + "(and so archived) once its first entry is older than this many seconds, so that the archive "
                + "lags by a bounded time even under few writes, as PostgreSQL's archive_timeout does. 0 (default): "
                + "only by size (segment.size). Replicas seal where their primary does. Applies live.")
        long archive_interval_seconds() default 0;
    }

    private final NodeHome home;

    @Activate
    public JournalComponent(Config config, @Reference NodeHome home) {
        super(JournalSettings.of(config, home), FrplPayload::length);
        this.home = home;
        JournalStatus st = status();
        LOG.log(Level.INFO, "journal {0} open: sequences {1}..{2}, {3} segments, chain {4}", settings().directory(),
                st.firstSequence(), st.lastSequence(), st.segments(), st.chainHex());
    }

    @Modified
    void modified(Config config) {
        JournalSettings next = ConfigChange.validated(LOG, () -> JournalSettings.of(config, home));
        if (next == null) {
            return;
        }
        JournalSettings running = settings();
        if (!next.directory().equals(running.directory())) {
            LOG.log(Level.WARNING, "{0}: directory={1} applies when the component next activates; the journal "
                    + "stays in {2}", JournalSettings.PID, next.directory(), running.directory());
            next = next.withDirectory(running.directory());
        }
        reconfigure(next);
    }

    @Deactivate
    void deactivate() {
        close();
    }

    @Override
    public void collect(MetricsSink sink) {
        metrics.collect(sink);
    }
}
