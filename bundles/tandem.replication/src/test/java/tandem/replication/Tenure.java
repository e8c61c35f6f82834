package tandem.replication;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import tandem.journal.JournalComponent;

/**
 * What a node's tenure is made of, as the fence and promotion tests build it: a real journal in a home, the
 * replication state directory with its epoch file, the restart fence, and a hub that records its calls.
 */
final class Tenure implements AutoCloseable {

    final TestHub hub = new TestHub();
    final EpochFile epoch = new EpochFile();
    final Path state;
    final JournalComponent journal;
    final RestartFence fence;

    /** @param epoch the epoch recorded in the state directory beforehand (0: none) */
    Tenure(Path root, long epoch) throws IOException {
        Path home = Nodes.home(root, "node");
        state = Files.createDirectories(home.resolve("data/replication"));
        if (epoch > 0) {
            EpochFile.write(state, epoch);
        }
        journal = Nodes.journal(home);
        this.epoch.load(state);
        fence = new RestartFence(journal, hub, this.epoch);
    }

    @Override
    public void close() {
        Nodes.close(journal);
    }
}
