package tandem.journal;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.util.function.Function;

import org.osgi.framework.BundleContext;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Modified;
import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.Designate;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;

import tandem.api.journal.EntryVisitor;
import tandem.api.journal.Journal;
import tandem.api.journal.JournalStatus;
import tandem.api.journal.JournalTap;
import tandem.api.journal.SegmentInfo;
import tandem.api.journal.SlotVisitor;
import tandem.api.metrics.MetricsSink;
import tandem.api.metrics.MetricsSource;
import tandem.protocol.frpl.FrplPayload;

/**
 * Registers the node's {@link Journal}: opens (recovers) the segmented journal when it activates and closes it,
 * after the last pending batch is durable, when it deactivates.
 *
 * <p>Wait strategy, batch size, segment size and retention change live through {@link #modified}; the directory
 * applies when the component next activates. An invalid change is refused with a logged reason and the running
 * configuration stays.
 */
@Component(service = {Journal.class, MetricsSource.class}, immediate = true, configurationPid = JournalSettings.PID)
@Designate(ocd = JournalComponent.Config.class)
public final class JournalComponent implements Journal, MetricsSource {

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
    }

    private final SegmentedJournal journal;

    @Activate
    public JournalComponent(Config config, BundleContext context) {
        this(config, context::getProperty);
    }

    JournalComponent(Config config, Function<String, String> frameworkProperty) {
        this.frameworkProperty = frameworkProperty;
        JournalSettings s = JournalSettings.of(config, frameworkProperty);
        this.journal = new SegmentedJournal(s, FrplPayload::length);
        JournalStatus st = journal.status();
        LOG.log(Level.INFO, "journal {0} open: sequences {1}..{2}, {3} segments, chain {4}", s.directory(),
                st.firstSequence(), st.lastSequence(), st.segments(), st.chainHex());
    }

    private final Function<String, String> frameworkProperty;

    @Modified
    void modified(Config config) {
        JournalSettings next;
        try {
            next = JournalSettings.of(config, frameworkProperty);
        } catch (IllegalArgumentException e) {
            LOG.log(Level.ERROR, "configuration change refused, the running configuration stays: {0}",
                    e.getMessage());
            return;
        }
        JournalSettings running = journal.settings();
        if (!next.directory().equals(running.directory())) {
            LOG.log(Level.WARNING, "{0}: directory={1} applies when the component next activates; the journal "
                    + "stays in {2}", JournalSettings.PID, next.directory(), running.directory());
            next = new JournalSettings(running.directory(), next.segmentSize(), next.waitStrategy(),
                    next.maxBatchEntries(), next.retentionMaxBytes(), next.retentionMaxAgeSeconds(),
                    next.lineageArchivesKeep());
        }
        journal.reconfigure(next);
    }

    @Deactivate
    void deactivate() {
        journal.close();
    }

    /** @see SegmentedJournal#archiveLineage() */
    public void archiveLineage() {
        journal.archiveLineage();
    }

    SegmentedJournal journal() {
        return journal;
    }

    @Override
    public long append(long timestampNs, long keyHash, byte tag, ByteBuffer payload, long offsetLength) {
        return journal.append(timestampNs, keyHash, tag, payload, offsetLength);
    }

    @Override
    public long lastSequence() {
        return journal.lastSequence();
    }

    @Override
    public long durableSequence() {
        return journal.durableSequence();
    }

    @Override
    public long lastTimestampNs() {
        return journal.lastTimestampNs();
    }

    @Override
    public void awaitDurable(long sequence) throws InterruptedException {
        journal.awaitDurable(sequence);
    }

    @Override
    public void read(long afterSequence, EntryVisitor visitor) {
        journal.read(afterSequence, visitor);
    }

    @Override
    public void rotate() {
        journal.rotate();
    }

    @Override
    public int purge(long appliedAndFlushed) {
        return journal.purge(appliedAndFlushed);
    }

    @Override
    public String verify() {
        return journal.verify();
    }

    @Override
    public String verify(Progress progress) {
        return journal.verify(progress);
    }

    @Override
    public void collect(MetricsSink sink) {
        journal.metrics.collect(sink);
    }

    @Override
    public JournalStatus status() {
        return journal.status();
    }

    @Override
    public void appendReplicated(long sequence, long timestampNs, long keyHash, long requestSeq, byte tag,
            ByteBuffer payload, long offsetLength) {
        journal.appendReplicated(sequence, timestampNs, keyHash, requestSeq, tag, payload, offsetLength);
    }

    @Override
    public void adopt(long startSequence, byte[] anchor, long replicationOffset) {
        journal.adopt(startSequence, anchor, replicationOffset);
    }

    @Override
    public void rotateAt(long boundarySequence, byte[] tailHash) {
        journal.rotateAt(boundarySequence, tailHash);
    }

    @Override
    public void rotateBySize(boolean enabled) {
        journal.rotateBySize(enabled);
    }

    @Override
    public CompletionStage<Boolean> checkChain(long sequence, byte[] expected) {
        return journal.checkChain(sequence, expected);
    }

    @Override
    public byte[] chainAt(long sequence) {
        return journal.chainAt(sequence);
    }

    @Override
    public long generation() {
        return journal.generation();
    }

    @Override
    public long offsetAfter(long sequence) {
        return journal.offsetAfter(sequence);
    }

    @Override
    public long sequenceAtOffset(long offset) {
        return journal.sequenceAtOffset(offset);
    }

    @Override
    public void reset(long startSequence, byte[] anchor, long replicationOffset) {
        journal.reset(startSequence, anchor, replicationOffset);
    }

    @Override
    public List<SegmentInfo> segments() {
        return journal.segments();
    }

    @Override
    public void readSlots(long afterSequence, SlotVisitor visitor) {
        journal.readSlots(afterSequence, visitor);
    }

    @Override
    public void tap(JournalTap tap) {
        journal.tap(tap);
    }

    @Override
    public void untap(JournalTap tap) {
        journal.untap(tap);
    }

    @Override
    public void addDurabilityListener(tandem.api.journal.DurabilityListener listener) {
        journal.addDurabilityListener(listener);
    }

    @Override
    public void removeDurabilityListener(tandem.api.journal.DurabilityListener listener) {
        journal.removeDurabilityListener(listener);
    }

    @Override
    public long writeSeed(long snapSequence, java.nio.channels.WritableByteChannel out) throws java.io.IOException {
        return journal.writeSeed(snapSequence, out);
    }

    @Override
    public void installSeed(java.nio.file.Path seed) {
        journal.installSeed(seed);
    }
}
