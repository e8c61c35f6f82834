package tandem.journal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;
import tandem.protocol.files.DurableFiles;

/**
 * Restores from damaged copies of a backup and its archive ({@link BackupHistory}): whatever bytes are flipped or
 * cut off in any of their files, a restore either ends exactly as from the sound copies (the damage lay where the
 * target needs nothing) or fails with an {@link IOException} that names a file, leaving no store and no journal in
 * the new home. Never another exception: a restore is the tool of a bad day, and its errors must say what to fix.
 */
class RestoreFuzzTest {

    private static Path dir;
    private static BackupHistory history;
    /** The files that may be damaged: the backup's, then the archive's. */
    private static List<Path> files;
    private static List<Restore.Target> targets;
    /** What each target gives from the sound copies. */
    private static List<String> sound;

    @BeforeContainer
    static void build() throws Exception {
        dir = Files.createTempDirectory("restore-fuzz");
        history = new BackupHistory(dir.resolve("history"));
        files = new ArrayList<>();
        for (Path d : List.of(history.backup, history.archive)) {
            try (Stream<Path> s = Files.list(d)) {
                s.sorted().forEach(files::add);
            }
        }
        targets = List.of(Restore.Target.before("FLUSHALL"), Restore.Target.sequence(history.flushall),
                Restore.Target.time(Instant.ofEpochSecond(0, BackupHistory.T + 13_500_000_000L)));
        sound = new ArrayList<>();
        for (int i = 0; i < targets.size(); i++) {
            sound.add(restore(history.backup, history.archive, targets.get(i), dir.resolve("sound-" + i)));
        }
    }

    @AfterContainer
    static void remove() throws IOException {
        history.close();
        DurableFiles.deleteTree(dir);
    }

    /** Which file, where and how: flip bits in up to four bytes, or cut the file short. */
    record Damage(int file, double at, int bytes, int xor, boolean cut, int target) {
    }

    @Provide
    Arbitrary<Damage> damage() {
        return Combinators.combine(Arbitraries.integers().between(0, 64), Arbitraries.doubles().between(0, 1),
                Arbitraries.integers().between(1, 4), Arbitraries.integers().between(1, 255),
                Arbitraries.of(false, false, false, true), Arbitraries.integers().between(0, 2)).as(Damage::new);
    }

    @Property(tries = 100)
    void damageIsNamedOrHarmless(@ForAll("damage") Damage d) throws Exception {
        Path run = Files.createTempDirectory(dir, "run");
        Path backup = copy(history.backup, run.resolve("backup"));
        Path archive = copy(history.archive, run.resolve("archive"));
        Path original = files.get(d.file() % files.size());
        Path victim = (original.startsWith(history.backup) ? backup : archive).resolve(original.getFileName());
        byte[] bytes = Files.readAllBytes(victim);
        int at = (int) (d.at() * (bytes.length - 1));
        if (d.cut()) {
            Files.write(victim, java.util.Arrays.copyOf(bytes, at));
        } else {
            for (int i = at; i < Math.min(bytes.length, at + d.bytes()); i++) {
                bytes[i] ^= (byte) d.xor();
            }
            Files.write(victim, bytes);
        }
        Path home = run.resolve("home");
        try {
            String result = restore(backup, archive, targets.get(d.target()), home);
            assertThat(result).as("a restore that succeeds despite %s ends as from sound copies", d)
                    .isEqualTo(sound.get(d.target()));
        } catch (IOException e) {
            assertThat(e.getMessage()).as("%s: %s", d, e).contains(run.toString());
            assertThat(home.resolve("data/store")).doesNotExist();
            assertThat(home.resolve("data/journal")).doesNotExist();
        } finally {
            DurableFiles.deleteTree(run);
        }
    }

    /** A finding: a manifest byte that is no ASCII failed with the decoder's "Input length = 1", naming no file. */
    @Example
    void aManifestByteThatIsNoAsciiIsNamed() throws Exception {
        damageIsNamedOrHarmless(new Damage(files.indexOf(history.backup.resolve(BackupManifest.FILE)), 0, 1, 0x80,
                false, 0));
        Path copy = copy(history.backup, dir.resolve("non-ascii"));
        byte[] manifest = Files.readAllBytes(copy.resolve(BackupManifest.FILE));
        manifest[3] ^= (byte) 0x80;
        Files.write(copy.resolve(BackupManifest.FILE), manifest);
        assertThatThrownBy(() -> BackupManifest.read(copy))
                .hasMessage(copy.resolve(BackupManifest.FILE) + ": byte 3 is not ASCII: a manifest is ASCII text");
    }

    /** @return the restore's result and the restored journal's bytes after its header, as text */
    private static String restore(Path backup, Path archive, Restore.Target target, Path home) throws IOException {
        Restore.Result r = new Restore(backup, List.of(archive), target, home,
                new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8)).run();
        byte[] journal = Files.readAllBytes(home.resolve("data/journal/journal"));
        return r.backupSequence() + ".." + r.sequence() + " " + r.entries() + " next=" + r.next() + " entries="
                + java.util.HexFormat.of().formatHex(journal, tandem.protocol.journal.SegmentHeader.SIZE,
                        journal.length);
    }

    private static Path copy(Path from, Path to) throws IOException {
        Files.createDirectories(to);
        try (Stream<Path> s = Files.list(from)) {
            for (Path p : s.toList()) {
                Files.copy(p, to.resolve(p.getFileName()));
            }
        }
        return to;
    }
}
