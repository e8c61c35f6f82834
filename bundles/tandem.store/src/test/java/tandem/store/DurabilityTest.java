package tandem.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.DBOptions;
import org.rocksdb.RocksDB;

/** Applied sequence, flush, close and reopen. */
@Timeout(30)
class DurabilityTest {

    @TempDir
    Path dir;

    @Test
    void closeAndReopenKeepDataAndTheAppliedSequence() {
        byte[] digest;
        try (Harness h = new Harness(dir)) {
            h.run("set a 1");
            h.run("hset h f v g w");
            h.run("set t x px 5000");
            h.ks.advance(++h.seq);
            h.ks.commit();
            digest = h.ks.digest();
            assertThat(h.ks.appliedSequence()).isEqualTo(4);
            assertThat(h.ks.flush()).isEqualTo(4);
            h.reopen();
            assertThat(h.ks.appliedSequence()).isEqualTo(4);
            assertThat(h.ks.status().flushedSequence()).isEqualTo(4);
            assertThat(h.ks.digest()).isEqualTo(digest);
            assertThat(h.run("hgetall h")).isEqualTo("*4\\r\\n$1\\r\\nf\\r\\n$1\\r\\nv\\r\\n$1\\r\\ng\\r\\n$1\\r\\nw\\r\\n");
            assertThat(h.run("pttl t")).isEqualTo(":5000\\r\\n");
            assertThat(h.ks.status().keys()).isEqualTo(3);
            assertThat(h.ks.status().keysWithExpiry()).isEqualTo(1);
            assertThat(h.ks.nextDeadlineNs()).isEqualTo((Harness.T0 + 5000) * 1_000_000L);
        }
    }

    @Test
    void flushRecordsTheSequenceAppliedBeforeIt() {
        try (Harness h = new Harness(dir)) {
            assertThat(h.ks.status().flushedSequence()).isZero();
            h.run("set a 1");
            h.run("set b 2");
            assertThat(h.ks.status().flushedSequence()).isZero();
            assertThat(h.ks.flush()).isEqualTo(2);
            assertThat(h.ks.status()).satisfies(s -> {
                assertThat(s.appliedSequence()).isEqualTo(2);
                assertThat(s.flushedSequence()).isEqualTo(2);
                assertThat(s.diskBytes()).isPositive();
                assertThat(s.directory()).isEqualTo(dir.toString());
            });
        }
    }

    @Test
    void whatSurvivesACrashIsExactlyTheStateAtTheFlushedSequence() throws IOException {
        try (Harness h = new Harness(dir.resolve("live"))) {
            h.run("set a 1");
            h.run("hset h f v");
            h.ks.flush();
            byte[] atFlush = h.ks.digest();
            h.run("set a 2");
            h.run("del h");
            h.run("set b 3 px 100");
            // the WAL is off: a crash now loses the memtables; a copy of the files is what a crash leaves
            Path crashed = dir.resolve("crashed");
            copy(h.dir, crashed);
            try (Harness after = new Harness(crashed)) {
                assertThat(after.ks.appliedSequence()).isEqualTo(2);
                assertThat(after.ks.digest()).isEqualTo(atFlush);
                assertThat(after.ks.status().keys()).isEqualTo(2);
                assertThat(after.ks.status().keysWithExpiry()).isZero();
            }
        }
    }

    @Test
    void theAppliedSequenceIsStoredWithTheEffects() throws Exception {
        try (Harness h = new Harness(dir)) {
            h.run("set a 1");
            h.run("set a 2 get");
            h.run("incr a"); // an error reply: applied all the same
        }
        RocksDB.loadLibrary();
        List<ColumnFamilyDescriptor> cfs = new ArrayList<>();
        for (String name : List.of("default", "keys", "fields", "deadlines", "meta")) {
            cfs.add(new ColumnFamilyDescriptor(name.getBytes()));
        }
        List<ColumnFamilyHandle> handles = new ArrayList<>();
        try (DBOptions options = new DBOptions();
                RocksDB db = RocksDB.openReadOnly(options, dir.toString(), cfs, handles)) {
            ByteBuffer meta = ByteBuffer.wrap(db.get(handles.get(4), "applied".getBytes()));
            assertThat(meta.getLong()).isEqualTo(3);
            assertThat(meta.getLong()).isEqualTo(1); // keys
            assertThat(meta.getLong()).isZero(); // keys with expiry
            assertThat(Tx.decode(db.get(handles.get(1), "a".getBytes())).value()).isEqualTo("3".getBytes());
            handles.forEach(ColumnFamilyHandle::close);
        }
    }

    @Test
    void sequencesMustAdvance() {
        try (Harness h = new Harness(dir)) {
            h.run("set a 1");
            RespRecorder r = new RespRecorder();
            assertThatThrownBy(() -> h.ks.apply(1, h.nowNs(), Harness.bytes("set", "a", "2"), r))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("sequence 1 is not after the applied sequence 1");
            assertThatThrownBy(() -> h.ks.tick(1, h.nowNs())).isInstanceOf(IllegalArgumentException.class);
            assertThat(r.bytes()).isEmpty();
            assertThat(h.run("get a")).isEqualTo("$1\\r\\n1\\r\\n");
        }
    }

    @Test
    void unknownCommandsAndWritesThroughReadAreRefused() {
        try (Harness h = new Harness(dir)) {
            RespRecorder r = new RespRecorder();
            assertThatThrownBy(() -> h.ks.apply(1, 0, Harness.bytes("xyzzy", "a", "*", "f", "v"), r))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("xyzzy");
            assertThatThrownBy(() -> h.ks.read(0, Harness.bytes("set", "a", "b"), r))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'set' writes");
            assertThat(h.ks.appliedSequence()).isZero();
            assertThat(h.run("get")).isEqualTo("-ERR wrong number of arguments for 'get' command\\r\\n");
        }
    }

    @Test
    void aClosedStoreRefusesCalls() {
        Harness h = new Harness(dir);
        h.close();
        h.close(); // idempotent
        assertThatThrownBy(() -> h.run("get a")).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("closed");
    }

    /**
     * Copies the files of a running database. RocksDB deletes obsolete files in the background, so a file listed
     * may be gone when its turn comes: then the copy starts over, as a crash would simply have happened a moment
     * later.
     */
    private static void copy(Path from, Path to) throws IOException {
        for (int attempt = 1; ; attempt++) {
            Files.createDirectories(to);
            try (Stream<Path> files = Files.list(from)) {
                List<Path> listed = files.toList();
                for (Path f : listed) {
                    if (!f.getFileName().toString().equals("LOCK")) {
                        Files.copy(f, to.resolve(f.getFileName()), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
                    }
                }
                try (Stream<Path> again = Files.list(from)) {
                    if (new java.util.HashSet<>(again.toList()).equals(new java.util.HashSet<>(listed))) {
                        return; // no file came or went meanwhile: the copy is one instant's state
                    }
                }
                throw new java.nio.file.NoSuchFileException(from + " changed while it was copied");
            } catch (java.nio.file.NoSuchFileException e) {
                if (attempt == 20) {
                    throw e;
                }
                try (Stream<Path> copied = Files.list(to)) {
                    for (Path c : copied.toList()) {
                        Files.delete(c);
                    }
                }
            }
        }
    }
}
