package tandem.journal;

import static tandem.journal.Fixtures.command;

import java.io.IOException;
import java.nio.channels.WritableByteChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import tandem.api.checkpoint.Checkpoints;
import tandem.protocol.checkpoint.CheckpointStreamWriter;
import tandem.protocol.journal.ArchivedSegmentName;

/**
 * A real journal with a backup and an archive, for the restore's tests: sequences 1..10 SET k1..k10 (entry i at
 * second i), rotate, a command of 200,000 bytes in fragments from 11 on (second 11), three SETs (seconds 12..14),
 * FLUSHALL (second 15), rotate, three SETs (seconds 16..18); the backup is taken at 5. The sealed segments are copied
 * into the archive under their archive names.
 */
final class BackupHistory implements AutoCloseable {

    /** 2026-12-05T10:00:00Z in nanoseconds; entry i is at T + i seconds. */
    static final long T = Instant.parse("2026-12-05T10:00:00Z").getEpochSecond() * 1_000_000_000L;

    final Path dir;
    final Path journalDir;
    final Path archive;
    final Path backup;
    final Path storeFiles;
    final SegmentedJournal journal;
    /** The big command's last fragment, the SETs after it, FLUSHALL, the last entry. */
    final long big;
    final long[] m = new long[3];
    final long flushall;
    final long last;

    /** A sealed segment and its name in an archive. */
    record Sealed(Path path, ArchivedSegmentName name) {
    }

    BackupHistory(Path dir) throws Exception {
        this.dir = dir;
        journalDir = dir.resolve("journal");
        archive = Files.createDirectories(dir.resolve("archive"));
        storeFiles = Files.createDirectories(dir.resolve("store"));
        Files.writeString(storeFiles.resolve("000001.sst"), "pretend sst");
        Files.writeString(storeFiles.resolve("CURRENT"), "MANIFEST-000001\n");
        journal = Fixtures.open(JournalSettings.defaults(journalDir));
        backup = dir.resolve("backup");
        for (int i = 1; i <= 10; i++) {
            append(i, command("SET", "k" + i, "v" + i));
            if (i == 5) {
                journal.awaitDurable(5);
                new BackupComponent(checkpoints(5), journal, dir.resolve("home")).create(backup);
            }
        }
        journal.awaitDurable(10);
        journal.rotate();
        big = append(11, Fixtures.bigCommand(200_000, (byte) 'x'));
        for (int i = 0; i < 3; i++) {
            m[i] = append(12 + i, command("SET", "m" + i, "w"));
        }
        flushall = append(15, command("FLUSHALL"));
        journal.awaitDurable(flushall);
        journal.rotate();
        long n = 0;
        for (int i = 0; i < 3; i++) {
            n = append(16 + i, command("SET", "n" + i, "z"));
        }
        last = n;
        journal.awaitDurable(last);
        for (Sealed c : sealed()) {
            Files.copy(c.path(), archive.resolve(c.name().toString()));
        }
    }

    @Override
    public void close() {
        journal.close();
    }

    private long append(int second, byte[] payload) {
        return Fixtures.append(journal, T + second * 1_000_000_000L, 0, Fixtures.APP, payload);
    }

    /** @return the journal's sealed segments, oldest first */
    List<Sealed> sealed() {
        List<Sealed> out = new ArrayList<>();
        for (Segment seg : journal.segmentList()) {
            if (seg.archiveNumber > 0) {
                out.add(new Sealed(seg.path, ArchivedSegmentName.of(seg.startSequence, seg.lastSequence,
                        seg.tailChain)));
            }
        }
        return out;
    }

    /** A Checkpoints whose cut streams the pretend store files at {@code applied}. */
    Checkpoints checkpoints(long applied) {
        return new Checkpoints() {
            @Override
            public Cut cut(String name) {
                List<Path> files = List.of(storeFiles.resolve("000001.sst"), storeFiles.resolve("CURRENT"));
                return new Cut() {
                    @Override
                    public long appliedSequence() {
                        return applied;
                    }

                    @Override
                    public long streamLength(String id, long offset) {
                        throw new UnsupportedOperationException();
                    }

                    @Override
                    public long send(String id, long offset, WritableByteChannel out) throws IOException {
                        return CheckpointStreamWriter.write(files, id, offset, out);
                    }

                    @Override
                    public void close() {
                    }
                };
            }

            @Override
            public Receive receive(long totalBytes) {
                throw new UnsupportedOperationException();
            }

            @Override
            public Saved save() {
                throw new UnsupportedOperationException();
            }
        };
    }
}
