package tandem.benchmarks;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.Comparator;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import java.util.zip.CRC32C;

import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

import tandem.api.journal.EntryTag;
import tandem.journal.BenchmarkJournals;
import tandem.journal.SegmentedJournal;
import tandem.protocol.command.CommandPayload;
import tandem.protocol.frpl.FrplPayload;
import tandem.protocol.journal.JournalEntry;

/**
 * Journal append throughput next to the disk's own: {@code journal} appends {@code batch} entries of a
 * {@code payload}-byte command through {@link SegmentedJournal} and waits until the last is durable (the journal
 * thread's group commit: one write and one {@code fdatasync} per batch it drains); {@code raw} writes the same
 * number of bytes (the encoded entries, header and CRC included) with one positional {@link FileChannel} write and
 * one {@code force(false)} ({@code fdatasync}) per batch. Both append to a file in a fresh directory per iteration,
 * under {@code $TANDEM_BENCH_DIR} (default: java.io.tmpdir), so both see the same disk and file system.
 *
 * <p>The primary score is batches per second; the auxiliary counters {@code records} and {@code bytes} are the
 * entries and on-disk bytes per second (run-jmh.sh turns them into the table of docs/benchmarks.md).
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xmx512m", "-Xms512m"})
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Threads(1)
public class JournalAppendBenchmark {

    /** Keeps the journal's INFO line per opened journal out of JMH's output (held: JUL keeps loggers weakly). */
    static final java.util.logging.Logger JOURNAL_LOG = java.util.logging.Logger.getLogger("tandem.journal");

    static {
        JOURNAL_LOG.setLevel(java.util.logging.Level.WARNING);
    }

    /** Records and bytes made durable; JMH reports each as a rate per second. */
    @State(Scope.Thread)
    @AuxCounters(AuxCounters.Type.OPERATIONS)
    public static class Durable {
        public long records;
        public long bytes;

        @Setup(Level.Iteration)
        public void reset() {
            records = 0;
            bytes = 0;
        }
    }

    @State(Scope.Thread)
    public static class JournalState {
        /** Length of each entry's payload (a SET command in the journal's canonical encoding). */
        @Param({"64", "1024"})
        public int payload;

        /** Entries appended before waiting for durability. */
        @Param({"16", "256"})
        public int batch;

        Path directory;
        SegmentedJournal journal;
        byte[] command;
        long recordBytes;
        long timestampNs;

        @Setup(Level.Iteration)
        public void open() throws IOException {
            directory = Files.createTempDirectory(benchDir(), "journal-bench");
            journal = BenchmarkJournals.open(directory.resolve("journal"));
            command = setCommand(payload);
            recordBytes = JournalEntry.sizeOf(payload);
            timestampNs = Math.max(journal.lastTimestampNs(), System.currentTimeMillis() * 1_000_000L);
        }

        @TearDown(Level.Iteration)
        public void close() {
            journal.close();
            deleteTree(directory);
        }
    }

    @State(Scope.Thread)
    public static class RawState {
        @Param({"64", "1024"})
        public int payload;

        @Param({"16", "256"})
        public int batch;

        Path directory;
        FileChannel channel;
        ByteBuffer block;
        long position;
        long recordBytes;

        @Setup(Level.Iteration)
        public void open() throws IOException {
            directory = Files.createTempDirectory(benchDir(), "raw-bench");
            channel = FileChannel.open(directory.resolve("raw.dat"), StandardOpenOption.CREATE_NEW,
                    StandardOpenOption.WRITE, StandardOpenOption.READ);
            recordBytes = JournalEntry.sizeOf(payload);
            // the bytes the journal would write for this batch: encoded entries, header and CRC included
            byte[] command = setCommand(payload);
            block = ByteBuffer.allocateDirect((int) (recordBytes * batch));
            CRC32C crc = new CRC32C();
            for (int i = 0, at = 0; i < batch; i++) {
                at += JournalEntry.encode(block, at, i + 1, i + 1, i, EntryTag.APP, command, 0, command.length, crc);
            }
            position = 0;
        }

        @TearDown(Level.Iteration)
        public void close() throws IOException {
            channel.close();
            deleteTree(directory);
        }
    }

    @Benchmark
    public long journal(JournalState s, Durable d) throws InterruptedException {
        long last = 0;
        for (int i = 0; i < s.batch; i++) {
            last = s.journal.append(++s.timestampNs, i, EntryTag.APP, s.command,
                    FrplPayload.length(EntryTag.APP, s.timestampNs, s.command));
        }
        s.journal.awaitDurable(last);
        d.records += s.batch;
        d.bytes += s.batch * s.recordBytes;
        return last;
    }

    @Benchmark
    public long raw(RawState s, Durable d) throws IOException {
        ByteBuffer b = s.block;
        b.clear();
        while (b.hasRemaining()) {
            s.position += s.channel.write(b, s.position);
        }
        s.channel.force(false);
        d.records += s.batch;
        d.bytes += s.batch * s.recordBytes;
        return s.position;
    }

    // ------------------------------------------------------------------------------------------------ helpers

    static Path benchDir() throws IOException {
        String dir = System.getenv("TANDEM_BENCH_DIR");
        Path p = Paths.get(dir == null || dir.isBlank() ? System.getProperty("java.io.tmpdir") : dir);
        return Files.createDirectories(p);
    }

    /** @return {@code SET key value} in the journal's canonical encoding, exactly {@code size} bytes long */
    static byte[] setCommand(int size) {
        byte[] set = "SET".getBytes(StandardCharsets.US_ASCII);
        byte[] key = "key:000000000042".getBytes(StandardCharsets.US_ASCII);
        int valueLength = Math.max(0, size - CommandPayload.encodedLength(new byte[][] {set, key, new byte[0]}));
        while (true) {
            byte[] value = new byte[valueLength];
            Arrays.fill(value, (byte) 'x');
            byte[][] args = {set, key, value};
            int length = CommandPayload.encodedLength(args);
            if (length == size) {
                return CommandPayload.encode(args);
            }
            if (length < size || valueLength == 0) {
                throw new IllegalArgumentException("no SET command of exactly " + size + " bytes");
            }
            valueLength--; // a longer length prefix took a byte
        }
    }

    static void deleteTree(Path root) {
        try (Stream<Path> walk = Files.walk(root)) {
            for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
