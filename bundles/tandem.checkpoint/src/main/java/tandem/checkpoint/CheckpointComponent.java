package tandem.checkpoint;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.nio.ByteBuffer;
import java.nio.channels.WritableByteChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicLong;

import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Modified;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.osgi.service.component.annotations.ReferencePolicyOption;
import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.Designate;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;

import tandem.api.checkpoint.Checkpoints;
import tandem.api.home.NodeHome;
import tandem.api.store.Keyspace;
import tandem.protocol.checkpoint.CheckpointStreamException;
import tandem.protocol.files.DurableFiles;

/**
 * The node's checkpoints for full syncs, under one root ({@link CheckpointRoot}): a primary's per-transfer copies
 * ({@code fullsync_<name>}), a replica's stream being received ({@code incoming}) and the verified checkpoint
 * awaiting install ({@code staged}). At activation it deletes what a crash left there: a copy nobody sends any
 * more, a receive that never finished, a staged checkpoint whose install never began (its transfer is redone).
 *
 * <p>The store is a dynamic reference: cutting needs it, receiving does not, and a store being updated makes a cut
 * fail with a clear error instead of restarting every replication protocol that uses this service.
 */
@Component(service = Checkpoints.class, immediate = true, configurationPid = CheckpointComponent.PID)
@Designate(ocd = CheckpointComponent.Config.class)
public final class CheckpointComponent implements Checkpoints {

    static final String PID = "tandem.checkpoint";
    private static final Logger LOG = System.getLogger("tandem.checkpoint");

    @ObjectClassDefinition(id = PID, name = "Tandem checkpoints",
            description = "Full-sync checkpoints: cut and sent by a primary, received and staged by a replica.")
    public @interface Config {

        @AttributeDefinition(description = "Directory of the checkpoints. Empty (default): the framework property "
                + "tandem.home followed by /data/checkpoint. It must be on the store's file system (the store "
                + "installs a received checkpoint by renaming it). Read when the component activates.")
        String directory() default "";
    }

    private final Path root;
    private final Path home;
    private final AtomicLong cuts = new AtomicLong();
    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    volatile Keyspace keyspace;

    @Activate
    public CheckpointComponent(Config config, @Reference NodeHome home) {
        this.home = home.directory();
        this.root = directory(config.directory(), this.home);
        try {
            Files.createDirectories(root);
            clearLeftovers();
        } catch (IOException e) {
            throw new UncheckedIOException(PID + ": cannot prepare " + root + ": " + e.getMessage(), e);
        }
        LOG.log(Level.INFO, "checkpoints in {0}", root);
    }

    private static Path directory(String configured, Path home) {
        String d = configured == null ? "" : configured.trim();
        return home.resolve(d.isEmpty() ? "data/checkpoint" : d).normalize();
    }

    /** Present so that a configuration change never reactivates the component under a transfer. */
    @Modified
    void modified(Config config) {
        Path next = directory(config.directory(), home);
        if (!next.equals(root)) {
            LOG.log(Level.WARNING, "{0}: directory={1} applies when the component next activates; checkpoints stay "
                    + "in {2}", PID, next, root);
        }
    }

    private void clearLeftovers() throws IOException {
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(root)) {
            for (Path p : ds) {
                String name = p.getFileName().toString();
                if (name.startsWith(CheckpointRoot.FULLSYNC_PREFIX) || name.equals(CheckpointRoot.INCOMING)
                        || name.equals(CheckpointRoot.DISCARDED) || name.equals(CheckpointRoot.STAGED)
                        || name.equals(CheckpointRoot.SAVING) || name.equals(CheckpointRoot.UNSAVED)) {
                    LOG.log(Level.INFO, "deleting {0}, left by a transfer that a restart ended", p);
                    DurableFiles.deleteTree(p);
                }
            }
        }
        DurableFiles.syncDirectory(root);
    }

    /** @return the root, for tests and status */
    Path root() {
        return root;
    }

    // ---- Checkpoints -------------------------------------------------------------------------------------------

    @Override
    public Cut cut(String name) {
        Keyspace k = keyspace;
        if (k == null) {
            throw new IllegalStateException("no store is active (tandem.store): a checkpoint cannot be cut");
        }
        Path dir = CheckpointRoot.fullsync(root, safe(name) + "_" + cuts.incrementAndGet());
        long applied = k.checkpoint(dir);
        try {
            CheckpointSender sender = new CheckpointSender(dir);
            LOG.log(Level.INFO, "cut a checkpoint for {0} at applied sequence {1}: {2} files, {3} bytes", name,
                    Long.toString(applied), sender.files().size(), Long.toString(sender.rdbSize()));
            return new SenderCut(sender, applied);
        } catch (IOException | RuntimeException e) {
            DurableFiles.deleteTreeQuietly(dir, LOG);
            throw new IllegalStateException("the checkpoint in " + dir + " cannot be listed: " + e.getMessage(), e);
        }
    }

    /** One save at a time: a second waits for the first rather than cut into its directory. */
    @Override
    public synchronized Saved save() {
        Keyspace k = keyspace;
        if (k == null) {
            throw new IllegalStateException("no store is active (tandem.store): nothing to save");
        }
        Path saving = root.resolve(CheckpointRoot.SAVING);
        Path saved = root.resolve(CheckpointRoot.SAVED);
        Path unsaved = root.resolve(CheckpointRoot.UNSAVED);
        try {
            DurableFiles.deleteTree(saving);
            DurableFiles.deleteTree(unsaved);
            long applied = k.checkpoint(saving);
            long now = java.time.Instant.now().getEpochSecond();
            DurableFiles.writeAtomically(saving.resolve("SAVED"), ("applied_sequence=" + applied + "\nsaved_at="
                    + now + "\n").getBytes(java.nio.charset.StandardCharsets.US_ASCII));
            DurableFiles.syncDirectory(saving);
            if (Files.exists(saved)) {
                Files.move(saved, unsaved, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
            }
            Files.move(saving, saved, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
            DurableFiles.syncDirectory(root);
            DurableFiles.deleteTree(unsaved);
            LOG.log(Level.INFO, "saved a copy of the store at applied sequence {0} in {1}", Long.toString(applied),
                    saved);
            return new Saved(saved, applied, now);
        } catch (IOException | RuntimeException e) {
            DurableFiles.deleteTreeQuietly(saving, LOG);
            throw new IllegalStateException("the copy in " + saving + " could not be made: " + e.getMessage(), e);
        }
    }

    /** A replica id is base64: keep its letters and digits, so that the directory name needs no quoting. */
    private static String safe(String name) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < name.length() && sb.length() < 48; i++) {
            char c = name.charAt(i);
            sb.append(Character.isLetterOrDigit(c) && c < 128 ? c : '-');
        }
        return sb.toString();
    }

    @Override
    public Receive receive(long totalBytes) throws IOException {
        return new ReceiverReceive(CheckpointReceiver.open(root, totalBytes));
    }

    private record SenderCut(CheckpointSender sender, long applied) implements Cut {

        @Override
        public long appliedSequence() {
            return applied;
        }

        @Override
        public long streamLength(String replicationId, long replicationOffset) {
            return sender.streamLength(replicationId, replicationOffset);
        }

        @Override
        public long send(String replicationId, long replicationOffset, WritableByteChannel out) throws IOException {
            return sender.send(replicationId, replicationOffset, out);
        }

        @Override
        public void close() {
            DurableFiles.deleteTreeQuietly(sender.directory(), LOG);
        }
    }

    private record ReceiverReceive(CheckpointReceiver receiver) implements Receive {

        @Override
        public boolean feed(ByteBuffer bytes) throws IOException {
            try {
                return receiver.feed(bytes);
            } catch (CheckpointStreamException e) {
                throw new IOException("checkpoint stream: " + e.getMessage(), e);
            }
        }

        @Override
        public Progress progress() {
            CheckpointReceiver.Progress p = receiver.progress();
            return new Progress(p.bytesReceived(), p.totalBytes(), p.elapsedNanos());
        }

        @Override
        public Staged commit() throws IOException {
            StagedCheckpoint s = receiver.commit();
            return new Staged(s.directory(), s.replicationId(), s.replicationOffset());
        }

        @Override
        public void abort(String reason) {
            receiver.abort(reason);
        }

        @Override
        public void close() {
            receiver.close();
        }
    }
}
