package tandem.store;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Drives a {@link RocksKeyspace} the way the pipeline does: a write command is applied at the next sequence, a
 * read-only one is read; "now" is {@link #nowMs}, never the wall clock.
 */
final class Harness implements AutoCloseable {

    static final long T0 = 1_700_000_000_000L; // 2023-11-14T22:13:20Z

    final Path dir;
    RocksKeyspace ks;
    long seq;
    long nowMs = T0;
    /** Commit after every apply, as the pipeline does after each round; off to test rounds of several applies. */
    boolean autoCommit = true;
    /** The database the next commands work in, as a connection's SELECT sets it. */
    int db;
    /** What each script that wrote left for the journal, in order. */
    final List<List<tandem.api.store.Keyspace.Effect>> journaled = new ArrayList<>();

    Harness(Path dir) {
        this(dir, 100, 1024);
    }

    Harness(Path dir, int perTick, int cursors) {
        this.dir = dir;
        this.ks = RocksKeyspace.open(dir, perTick, cursors);
        this.seq = ks.appliedSequence();
    }

    long nowNs() {
        return nowMs * 1_000_000L;
    }

    /** Runs one command given as a line (see {@link #split}) and returns its escaped RESP2 reply. */
    String run(String line) {
        return exec(split(line));
    }

    String exec(String... args) {
        return exec(bytes(args));
    }

    String exec(byte[][] args) {
        RespRecorder r = new RespRecorder();
        if (ks.isScript(command(args))) {
            // as the node does: the script runs now, and what it wrote is journaled as one entry
            List<tandem.api.store.Keyspace.Effect> effects = ks.capture(nowNs(), null, null,
                    capture -> capture.run(command(args), r));
            if (!effects.isEmpty()) {
                journaled.add(effects);
                ks.advance(++seq);
                if (autoCommit) {
                    ks.commit();
                }
            }
        } else if (ks.describe(Args.lower(args[0])).write()) {
            // as the pipeline does: a write its check refuses is answered at its turn and never applied
            if (ks.check(command(args), nowNs()) != null) {
                long applied = ks.appliedSequence();
                ks.refuse(nowNs(), command(args), r);
                if (ks.appliedSequence() != applied) {
                    throw new AssertionError("a refused write recorded a sequence");
                }
            } else {
                ks.apply(++seq, nowNs(), command(args), r);
                if (autoCommit) {
                    ks.commit();
                }
            }
        } else {
            ks.read(nowNs(), command(args), r);
        }
        return r.escaped();
    }

    /** The command, in database {@link #db}. */
    tandem.api.store.Command command(byte[][] args) {
        return Commands.of(args).db(db);
    }

    /** Applies a MULTI/EXEC body as one entry. */
    String transaction(String... lines) {
        List<tandem.api.store.Command> commands = new ArrayList<>();
        for (String l : lines) {
            commands.add(command(bytes(split(l))));
        }
        RespRecorder r = new RespRecorder();
        ks.applyTransaction(++seq, nowNs(), commands, r);
        if (autoCommit) {
            ks.commit();
        }
        return r.escaped();
    }

    void tick() {
        ks.tick(++seq, nowNs());
        if (autoCommit) {
            ks.commit();
        }
    }

    void reopen() {
        ks.close();
        ks = RocksKeyspace.open(dir, 100, 1024);
    }

    @Override
    public void close() {
        ks.close();
    }

    /** A harness over a new temporary directory, for a property test that keeps one store across its tries. */
    static Harness inTemporaryDirectory(String prefix) throws java.io.IOException {
        return new Harness(java.nio.file.Files.createTempDirectory(prefix));
    }

    /** Closes the store and deletes its directory. */
    void closeAndDelete() throws java.io.IOException {
        close();
        try (var files = java.nio.file.Files.walk(dir)) {
            files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    static byte[][] bytes(String... args) {
        byte[][] b = new byte[args.length][];
        for (int i = 0; i < args.length; i++) {
            b[i] = args[i].getBytes(StandardCharsets.UTF_8);
        }
        return b;
    }

    /** Splits on spaces; a double-quoted token may be empty or hold spaces; {@code \\} is a backslash. */
    static String[] split(String line) {
        List<String> out = new ArrayList<>();
        int i = 0;
        while (i < line.length()) {
            char c = line.charAt(i);
            if (c == ' ') {
                i++;
                continue;
            }
            StringBuilder t = new StringBuilder();
            if (c == '"') {
                i++;
                while (line.charAt(i) != '"') {
                    t.append(line.charAt(i++));
                }
                i++;
            } else {
                while (i < line.length() && line.charAt(i) != ' ') {
                    char d = line.charAt(i++);
                    if (d == '\\' && i < line.length() && line.charAt(i) == '\\') {
                        i++;
                    }
                    t.append(d);
                }
            }
            out.add(t.toString());
        }
        return out.toArray(new String[0]);
    }
}
