package tandem.fencing;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.concurrent.atomic.AtomicReference;

import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Modified;
import org.osgi.service.component.annotations.Reference;

import tandem.api.fencing.SplitBrainAudit;
import tandem.api.home.NodeHome;
import tandem.protocol.config.ConfigChange;
import tandem.protocol.files.DurableFiles;

/**
 * Spec 001's split-brain audit file: the writes a demoted primary gave up, written to
 * {@code split_brain_discarded_<timestamp>.log} in the audit directory ({@code data/} of the node's home).
 *
 * <pre>
 * # Tandem split-brain audit: ...            comment lines, then one "name: value" per line
 * old_primary: 127.0.0.1:7001
 * new_primary: 127.0.0.1:7102 (journal)
 * epoch_old: 0
 * epoch_new: 1
 * divergent_sequences: 1235..1301            after held_by_replicas, up to the old history's end
 * held_by_replicas: 1234                     the highest sequence a replica had shown it held (-1: none)
 * ops_discarded: 60                          ops_recorded + ops_evicted
 * ops_recorded: 60
 * ops_evicted: 0                             the oldest, beyond the ring's bounds
 * bytes_evicted: 0
 * discarded_at: 2026-12-03T17:15:30.123Z
 * ---                                        then the raw RESP of each recorded write, oldest first
 * *3\r\n$3\r\nSET\r\n$1\r\nk\r\n$1\r\nv\r\n  a transaction as *1 MULTI, its commands, *1 EXEC
 * </pre>
 *
 * The file is written to a temporary name, synced and renamed, so that an audit file is always whole.
 */
@Component(service = SplitBrainAudit.class, immediate = true, configurationPid = QuorumFence.PID)
public final class SplitBrainRecorder implements SplitBrainAudit {

    private static final Logger LOG = System.getLogger("tandem.fencing");
    private static final DateTimeFormatter FILE_TIME = DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss.SSS'Z'")
            .withZone(ZoneOffset.UTC);
    static final String SEPARATOR = "---\n";

    private final Path home;
    private volatile int maxEntries;
    private volatile long maxBytes;
    private volatile Path directory;
    private final AtomicReference<Counters> counters = new AtomicReference<>(new Counters(0, 0, 0, 0, null));

    @Activate
    public SplitBrainRecorder(@Reference NodeHome home, FencingConfig config) {
        this.home = home.directory();
        apply(config);
    }

    @Modified
    void modified(FencingConfig config) {
        ConfigChange.apply(LOG, () -> apply(config));
    }

    private void apply(FencingConfig config) {
        int entries = config.split_brain_ring_max_entries();
        if (entries < 1 || entries > 10_000_000) {
            throw new IllegalArgumentException(QuorumFence.PID + ": split.brain.ring.max.entries=" + entries
                    + " is invalid: must be between 1 and 10000000");
        }
        long bytes = config.split_brain_ring_max_bytes();
        if (bytes < 1024 || bytes > 4L << 30) {
            throw new IllegalArgumentException(QuorumFence.PID + ": split.brain.ring.max.bytes=" + bytes
                    + " is invalid: must be between 1024 and 4294967296");
        }
        String dir = config.split_brain_audit_directory();
        Path d = home.resolve(dir == null || dir.isBlank() ? "data" : dir);
        maxEntries = entries;
        maxBytes = bytes;
        directory = d.normalize();
    }

    @Override
    public int maxEntries() {
        return maxEntries;
    }

    @Override
    public long maxBytes() {
        return maxBytes;
    }

    @Override
    public Counters counters() {
        return counters.get();
    }

    @Override
    public void discarded(Discard d) {
        if (d.writes().isEmpty() && d.evictedWrites() == 0) {
            return;
        }
        Instant now = Instant.now();
        Rendered rendered = render(d, now);
        byte[] content = rendered.content();
        Path file = directory.resolve("split_brain_discarded_" + FILE_TIME.format(now) + ".log");
        try {
            Files.createDirectories(directory);
            DurableFiles.writeAtomically(file, content);
        } catch (IOException e) {
            LOG.log(Level.ERROR, "split brain: {0} discarded writes could not be recorded to {1} ({2}); they are in "
                    + "the journal''s lineage archive", d.writes().size() + d.evictedWrites(), file, e.toString());
            return;
        }
        long resp = content.length - rendered.respStart();
        counters.updateAndGet(c -> new Counters(c.events() + 1, c.ops() + d.writes().size(), c.bytes() + resp,
                c.evicted() + d.evictedWrites(), file.toString()));
        LOG.log(Level.WARNING, "split brain: this node, primary at epoch {0}, gave up {1} writes (sequences {2}..{3}) "
                + "that no replica held, resyncing to {4} at epoch {5}; recorded to {6}", d.epochOld(),
                d.writes().size() + d.evictedWrites(), d.heldSequence() + 1, d.lastSequence(), d.newPrimary(),
                d.epochNew(), file);
    }

    /** An audit file's bytes, and where its RESP starts. */
    record Rendered(byte[] content, int respStart) {
    }

    /** The audit file's bytes: the header, the separator, each write's RESP. */
    static Rendered render(Discard d, Instant at) {
        StringBuilder h = new StringBuilder();
        h.append("# Tandem split-brain audit: writes this node took as a primary that no replica held, given up when\n")
                .append("# it resynced to a new primary. Each write follows the separator as raw RESP, oldest first.\n")
                .append("old_primary: ").append(d.oldPrimary()).append('\n')
                .append("new_primary: ").append(d.newPrimary()).append(" (").append(d.protocol()).append(")\n")
                .append("epoch_old: ").append(d.epochOld()).append('\n')
                .append("epoch_new: ").append(d.epochNew()).append('\n')
                .append("divergent_sequences: ").append(d.heldSequence() + 1).append("..").append(d.lastSequence())
                .append('\n')
                .append("held_by_replicas: ").append(d.heldSequence()).append('\n')
                .append("ops_discarded: ").append(d.writes().size() + d.evictedWrites()).append('\n')
                .append("ops_recorded: ").append(d.writes().size()).append('\n')
                .append("ops_evicted: ").append(d.evictedWrites()).append('\n')
                .append("bytes_evicted: ").append(d.evictedBytes()).append('\n')
                .append("discarded_at: ").append(at).append('\n')
                .append(SEPARATOR);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes(h.toString().getBytes(StandardCharsets.UTF_8));
        int respStart = out.size();
        for (Write w : d.writes()) {
            if (w.transaction()) {
                command(out, new byte[][] {"MULTI".getBytes(StandardCharsets.US_ASCII)});
            }
            for (byte[][] c : w.commands()) {
                command(out, c);
            }
            if (w.transaction()) {
                command(out, new byte[][] {"EXEC".getBytes(StandardCharsets.US_ASCII)});
            }
        }
        return new Rendered(out.toByteArray(), respStart);
    }

    private static void command(ByteArrayOutputStream out, byte[][] args) {
        out.writeBytes(("*" + args.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
        for (byte[] a : args) {
            out.writeBytes(("$" + a.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
            out.writeBytes(a);
            out.writeBytes(new byte[] {'\r', '\n'});
        }
    }
}
