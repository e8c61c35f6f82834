package tandem.system;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import redis.clients.jedis.Jedis;
import redis.clients.jedis.Pipeline;
import redis.clients.jedis.params.SetParams;
import tandem.testsupport.Await;

/**
 * Backups, the journal archive and restores to a moment, with the distribution's own commands: a primary archives
 * its journal while a writer changes strings, counters, hashes, lists, sets, sorted sets and expiring keys; backups
 * are taken under the writes; a {@code FLUSHALL} is undone to the entry before it (the restored node's digest is the
 * primary's just before it); random moments and sequences are restored from a later backup and, as the reference,
 * from the first backup (an empty store: the reference replays the whole journal up to the target), and each pair
 * ends with the same digest; a missing and a damaged archived segment stop a restore, naming what is wrong; the
 * archive cleaned down to the second backup serves its restores and no more.
 */
@Timeout(300)
class PointInTimeRestoreSystemTest {

    private static final Pattern ARCHIVED = Pattern.compile("segment-([0-9]{20})-([0-9]{20})-[0-9a-f]{16}");
    private static final Pattern NOT_RESTORED = Pattern.compile("first entry not restored: (\\d+)  (\\S+)  (.*)");

    private static Path base;
    private static Path archive;
    private static TandemNode primary;
    private static final List<TandemNode> restored = new ArrayList<>();

    @BeforeAll
    static void start() throws IOException {
        base = TandemNode.newHome("pitr");
        archive = Files.createDirectories(base.resolve("archive"));
        primary = TandemNode.start("pitr-primary", "--config", "tandem.journal:archive.directory=" + archive,
                "--config", "tandem.journal:segment.size=262144");
    }

    @AfterAll
    static void stop() throws Exception {
        List<TandemNode> all = new ArrayList<>(restored);
        all.add(primary);
        PerClass.closeAll(all.toArray(new TandemNode[0]));
    }

    @Test
    void restoresRandomMomentsAndUndoesAFlushall() throws Exception {
        long seed = Long.getLong("tandem.pitr.seed", System.nanoTime());
        System.getLogger("tandem.system").log(System.Logger.Level.INFO,
                "point-in-time restores: seed {0} (-Dtandem.pitr.seed={0} replays it)", Long.toString(seed));
        Random random = new Random(seed);
        Path b0 = backup("b0");
        AtomicBoolean writing = new AtomicBoolean(true);
        AtomicLong rounds = new AtomicLong();
        Thread writer = new Thread(() -> write(random.nextLong(), writing, rounds), "pitr-writer");
        writer.start();
        // some segments on: the archive cleaned down to the second backup loses what only the first one needs
        Await.until("the writer has written", Duration.ofSeconds(60), () -> rounds.get() > 2000);
        Path b1 = backup("b1");
        long afterB1 = rounds.get();
        Await.until("the writer wrote after the second backup", Duration.ofSeconds(30),
                () -> rounds.get() > afterB1 + 600);
        writing.set(false);
        writer.join(30_000);
        // every key with a short expiry gone (their deletions journaled), so the digest holds still until FLUSHALL
        Await.until("the short expiries are done", Duration.ofSeconds(60), () -> {
            try (Jedis j = jedis(primary)) {
                return j.keys("soon:*").isEmpty();
            }
        });
        String beforeFlush = primary.digest();
        long keys;
        try (Jedis j = jedis(primary)) {
            keys = j.dbSize();
            assertThat(keys).isGreaterThan(100);
            assertThat(j.flushAll()).isEqualTo("OK");
            j.set("after:flush", "1");
            j.hset("after:hash", Map.of("f", "v"));
        }
        long durable = durableSequence();
        assertThat(primary.shell("journal:rotate").exit()).isZero();
        Await.until("the archive holds every sealed segment", Duration.ofSeconds(30),
                () -> archivedUpTo(archive) >= durable);

        // undo the FLUSHALL: every key back, exactly as it was
        Path home = TandemNode.newHome("pitr-undo");
        TandemNode.Result undo = restore(b1, home, "--before", "FLUSHALL");
        Matcher next = NOT_RESTORED.matcher(undo.out());
        assertThat(next.find()).as(undo.out()).isTrue();
        assertThat(next.group(3)).isEqualTo("FLUSHALL");
        long flushSequence = Long.parseLong(next.group(1));
        Instant flushTime = Instant.parse(next.group(2));
        TandemNode undone = started(home);
        assertThat(undone.digest()).isEqualTo(beforeFlush);
        try (Jedis j = jedis(undone); Jedis p = jedis(primary)) {
            assertThat(j.dbSize()).isEqualTo(keys);
            assertThat(j.exists("after:flush")).isFalse();
            // a history of its own: another psync id, and it takes writes as a primary
            assertThat(p.info("replication")).doesNotContain(TandemNode.infoField(j.info("replication"),
                    "master_replid"));
            assertThat(j.set("restored:write", "1")).isEqualTo("OK");
        }

        // random targets between the second backup and the FLUSHALL, each against the reference
        long b1Sequence = appliedSequence(b1);
        Instant b1Time = Instant.ofEpochSecond(0, Long.parseLong(manifest(b1, "applied_timestamp_ns")));
        long sequence = b1Sequence + 1 + (long) (random.nextDouble() * (flushSequence - b1Sequence - 2));
        Instant moment = b1Time.plusNanos((long) (random.nextDouble() * Duration.between(b1Time, flushTime)
                .toNanos()));
        for (String[] target : List.of(new String[] {"--to-sequence", Long.toString(sequence)},
                new String[] {"--to-time", moment.toString()})) {
            Path fromB1 = TandemNode.newHome("pitr-b1");
            Path fromB0 = TandemNode.newHome("pitr-b0");
            String doneB1 = restore(b1, fromB1, target).out();
            String doneB0 = restore(b0, fromB0, target).out();
            // both reach the same sequence: the line says which
            assertThat(reached(doneB1)).as(String.join(" ", target)).isEqualTo(reached(doneB0));
            TandemNode r = started(fromB1);
            TandemNode reference = started(fromB0);
            // both expire what has expired since the target, by the same rules: they converge on one state
            Await.until(String.join(" ", target) + ": the restored node's digest is the reference's",
                    Duration.ofSeconds(30), () -> {
                        String a = r.digestOrNull();
                        return a != null && a.equals(reference.digestOrNull());
                    });
            r.close();
            reference.close();
        }

        // a missing or damaged archived segment stops a restore that needs it, naming it
        List<Path> segments = archived(archive);
        assertThat(segments.size()).isGreaterThan(3);
        Path middle = segments.get(segments.size() / 2);
        Path gapped = copyOf(archive, "archive-gap");
        Files.delete(gapped.resolve(middle.getFileName()));
        Matcher m = ARCHIVED.matcher(middle.getFileName().toString());
        assertThat(m.matches()).isTrue();
        long first = Long.parseLong(m.group(1));
        long last = Long.parseLong(m.group(2));
        TandemNode.Result gap = TandemNode.run(Duration.ofSeconds(60), bin(), "restore", "--backup", b0.toString(),
                "--archive", gapped.toString(), "--to-sequence", Long.toString(flushSequence - 1), "--home",
                base.resolve("gap-home").toString());
        assertThat(gap.exit()).as(gap.out()).isEqualTo(1);
        assertThat(gap.out()).contains("sequences " + first + ".." + last + " are missing from [" + gapped + "]");
        assertThat(base.resolve("gap-home/data/store")).doesNotExist();
        Path damaged = copyOf(archive, "archive-damaged");
        try (RandomAccessFile f = new RandomAccessFile(damaged.resolve(middle.getFileName()).toFile(), "rw")) {
            f.seek(f.length() / 2);
            f.write(f.read() ^ 0x10);
        }
        TandemNode.Result bad = TandemNode.run(Duration.ofSeconds(60), bin(), "restore", "--backup", b0.toString(),
                "--archive", damaged.toString(), "--to-sequence", Long.toString(flushSequence - 1), "--home",
                base.resolve("damaged-home").toString());
        assertThat(bad.exit()).as(bad.out()).isEqualTo(1);
        assertThat(bad.out()).contains("FAILED: damaged: " + damaged.resolve(middle.getFileName()));

        // the archive cleaned down to the second backup: its restores still reach the FLUSHALL; the first's now
        // miss their beginning
        List<Path> before = archived(archive);
        TandemNode.Result dry = TandemNode.run(Duration.ofSeconds(60), bin(), "clean-archive", "--archive",
                archive.toString(), "--keep-from", b1.toString(), "--dry-run");
        Matcher would = Pattern.compile("would remove (\\d+) archived segments \\(\\d+ bytes\\) before sequence "
                + "(\\d+)").matcher(dry.out());
        assertThat(would.find()).as(dry.out()).isTrue();
        long keptFrom = Long.parseLong(would.group(2));
        List<Path> needless = before.stream().filter(p -> lastSequence(p) < keptFrom).toList();
        assertThat(needless).as("the second backup was taken segments after the first").isNotEmpty();
        assertThat(Long.parseLong(would.group(1))).isEqualTo(needless.size());
        assertThat(archived(archive)).as("a dry run deletes nothing").containsAll(before);
        TandemNode.Result cleaned = TandemNode.run(Duration.ofSeconds(60), bin(), "clean-archive", "--archive",
                archive.toString(), "--keep-from", b1.toString());
        assertThat(cleaned.exit()).as(cleaned.out()).isZero();
        assertThat(archived(archive)).doesNotContainAnyElementsOf(needless)
                .containsAll(before.stream().filter(p -> lastSequence(p) >= keptFrom).toList());
        Matcher again = NOT_RESTORED.matcher(restore(b1, TandemNode.newHome("pitr-cleaned"), "--before", "FLUSHALL")
                .out());
        assertThat(again.find()).isTrue();
        assertThat(Long.parseLong(again.group(1))).isEqualTo(flushSequence);
        TandemNode.Result tooOld = TandemNode.run(Duration.ofSeconds(60), bin(), "restore", "--backup", b0.toString(),
                "--archive", archive.toString(), "--to-sequence", Long.toString(flushSequence - 1), "--home",
                base.resolve("too-old-home").toString());
        assertThat(tooOld.exit()).as(tooOld.out()).isEqualTo(1);
        assertThat(tooOld.out()).contains(" are missing from [" + archive + "]");
    }

    private static long lastSequence(Path archived) {
        Matcher m = ARCHIVED.matcher(archived.getFileName().toString());
        assertThat(m.matches()).isTrue();
        return Long.parseLong(m.group(2));
    }

    /** Strings, counters, hashes, lists, sets, sorted sets; keys expiring in an hour and within two seconds. */
    private static void write(long seed, AtomicBoolean writing, AtomicLong rounds) {
        Random r = new Random(seed);
        try (Jedis j = jedis(primary)) {
            while (writing.get()) {
                Pipeline p = j.pipelined();
                for (int i = 0; i < 20; i++) {
                    long n = rounds.incrementAndGet();
                    int k = r.nextInt(200);
                    p.set("s:" + k, "v" + n);
                    p.incrBy("c:" + k % 10, n);
                    p.append("a:" + k % 20, "x");
                    p.hset("h:" + k % 30, "f" + n % 7, Long.toString(n));
                    p.hincrBy("h:" + k % 30, "n", 1);
                    p.hdel("h:" + k % 30, "f" + (n + 3) % 7);
                    p.rpush("l:" + k % 10, Long.toString(n));
                    if (n % 3 == 0) {
                        p.lpop("l:" + k % 10);
                    }
                    p.sadd("st:" + k % 10, "m" + n % 50);
                    p.srem("st:" + k % 10, "m" + (n + 25) % 50);
                    p.zadd("z:" + k % 10, n, "m" + n % 40);
                    p.zincrby("z:" + k % 10, 1, "m" + (n + 1) % 40);
                    p.set("soon:" + k % 50, Long.toString(n), SetParams.setParams().px(50 + r.nextInt(1500)));
                    p.set("hour:" + k % 50, Long.toString(n), SetParams.setParams().ex(3600));
                    if (n % 5 == 0) {
                        p.expire("s:" + k, 3600);
                    }
                }
                p.sync();
            }
        }
    }

    private static Jedis jedis(TandemNode node) {
        return new Jedis("127.0.0.1", node.port(), 10_000);
    }

    private static Path backup(String name) throws IOException {
        Path dir = base.resolve(name);
        TandemNode.Result r = primary.shell("backup:create " + dir);
        assertThat(r.exit()).as(r.out() + r.err()).isZero();
        assertThat(r.out()).contains("backup written and verified: " + dir);
        TandemNode.Result verified = TandemNode.run(Duration.ofSeconds(60), bin(), "verify-backup", dir.toString());
        assertThat(verified.exit()).as(verified.out()).isZero();
        assertThat(verified.out()).startsWith("OK: store at sequence " + appliedSequence(dir) + ",");
        return dir;
    }

    private static TandemNode.Result restore(Path backup, Path home, String... target) throws IOException {
        List<String> command = new ArrayList<>(List.of(bin(), "restore", "--backup", backup.toString(), "--archive",
                archive.toString()));
        command.addAll(List.of(target));
        command.addAll(List.of("--home", home.toString()));
        TandemNode.Result r = TandemNode.run(Duration.ofSeconds(120), command.toArray(new String[0]));
        assertThat(r.exit()).as(r.out() + r.err()).isZero();
        return r;
    }

    private static TandemNode started(Path home) throws IOException {
        TandemNode node = TandemNode.start(home, TandemNode.freePort(), Map.of());
        restored.add(node);
        return node;
    }

    /** @return the sequence a restore reached, from its output */
    private static String reached(String out) {
        Matcher m = Pattern.compile("journal entries up to sequence (\\d+)").matcher(out);
        assertThat(m.find()).as(out).isTrue();
        return m.group(1);
    }

    private static long durableSequence() throws IOException {
        Matcher m = Pattern.compile("durable sequence:\\s+(\\d+)").matcher(primary.shell("journal:info").out());
        assertThat(m.find()).isTrue();
        return Long.parseLong(m.group(1));
    }

    private static String bin() {
        return TandemNode.dist().resolve("bin/tandem").toString();
    }

    private static String manifest(Path backup, String key) throws IOException {
        return Files.readAllLines(backup.resolve("MANIFEST")).stream().filter(l -> l.startsWith(key + "="))
                .map(l -> l.substring(key.length() + 1)).findFirst().orElseThrow();
    }

    private static long appliedSequence(Path backup) throws IOException {
        return Long.parseLong(manifest(backup, "applied_sequence"));
    }

    private static List<Path> archived(Path dir) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(p -> ARCHIVED.matcher(p.getFileName().toString()).matches()).sorted().toList();
        }
    }

    /** @return the last sequence of the newest archived segment, 0 when none */
    private static long archivedUpTo(Path dir) {
        long last = 0;
        try {
            if (Files.isDirectory(dir)) {
                for (Path p : archived(dir)) {
                    Matcher m = ARCHIVED.matcher(p.getFileName().toString());
                    if (m.matches()) {
                        last = Math.max(last, Long.parseLong(m.group(2)));
                    }
                }
            }
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        return last;
    }

    private static Path copyOf(Path dir, String name) throws IOException {
        Path copy = Files.createDirectories(base.resolve(name));
        for (Path p : archived(dir)) {
            Files.copy(p, copy.resolve(p.getFileName()));
        }
        return copy;
    }
}
