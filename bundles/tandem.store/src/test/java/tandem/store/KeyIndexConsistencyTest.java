package tandem.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;


/**
 * The in-memory index ({@link KeyIndex}) and the pending round never disagree with RocksDB: whatever commands run,
 * in rounds of any size, every key reads the same before and after the store is reopened (which builds the index
 * again from RocksDB alone), and a failed apply leaves the index and the round as they were before it.
 */
class KeyIndexConsistencyTest {

    private static final String LONG = "L".repeat(KeyIndex.INLINE_VALUE + 1);
    private static final List<String> KEYS = List.of("a", "b", "c", "h", "x".repeat(40));
    private static final List<String> TEMPLATES = List.of("set %k v", "set %k " + LONG, "set %k 12", "append %k z",
            "append %k " + LONG, "incr %k", "del %k", "del %k %k", "expire %k 5", "pexpire %k 1", "persist %k",
            "set %k " + LONG + " px 3", "set %k v ex 100 get", "set %k " + LONG + " xx", "set %k w nx keepttl",
            "getdel %k", "getex %k px 2", "hset %k f 1 g " + LONG, "hdel %k f", "hincrby %k n 1", "rename %k %k",
            "setrange %k 70 q", "setbit %k 600 1", "exists %k %k", "type %k", "pttl %k",
            "get %k", "strlen %k", "msetnx %k 1 %k 2", "flushall", "expireat %k 1", "getset %k " + LONG,
            "unlink %k", "incrbyfloat %k 1.5", "object encoding %k");

    private static Harness h;

    @BeforeContainer
    static void open() throws Exception {
        h = Harness.inTemporaryDirectory("index-consistency");
        h.autoCommit = false; // rounds of several applies, committed where the steps say
    }

    @AfterContainer
    static void close() throws Exception {
        h.closeAndDelete();
    }

    /** One step: a command from a template with keys filled in, a commit, a tick, or time passing. */
    @Provide
    Arbitrary<List<String>> steps() {
        Arbitrary<String> command = Arbitraries.of(TEMPLATES).flatMap(t -> Arbitraries.of(KEYS).list().ofSize(4)
                .map(keys -> {
                    String line = t;
                    for (String k : keys) {
                        line = line.replaceFirst("%k", k);
                    }
                    return line;
                }));
        return Arbitraries.frequencyOf(
                net.jqwik.api.Tuple.of(12, command),
                net.jqwik.api.Tuple.of(2, Arbitraries.just("#commit")),
                net.jqwik.api.Tuple.of(1, Arbitraries.just("#tick")),
                net.jqwik.api.Tuple.of(2, Arbitraries.just("#later"))).list().ofMinSize(1).ofMaxSize(60);
    }

    @Property(tries = 150)
    void everyKeyReadsTheSameAfterTheIndexIsBuiltAgainFromRocksDb(@ForAll("steps") List<String> steps) {
        h.run("flushall");
        for (String step : steps) {
            switch (step) {
                case "#commit" -> h.ks.commit();
                case "#tick" -> h.tick();
                case "#later" -> h.nowMs += 2;
                default -> h.run(step);
            }
        }
        h.ks.commit(); // closing drops an uncommitted round (the pipeline's journal replays it)
        List<String> before = view();
        long applied = h.ks.appliedSequence();
        long deadline = h.ks.nextDeadlineNs();
        h.reopen();
        assertThat(h.ks.appliedSequence()).isEqualTo(applied);
        assertThat(view()).isEqualTo(before);
        assertThat(h.ks.nextDeadlineNs()).isEqualTo(deadline);
    }

    /** What every key reads: type, deadline, value or fields, encoding; and the key count. */
    private static List<String> view() {
        List<String> out = new ArrayList<>();
        var status = h.ks.status();
        out.add("keys " + status.keys() + " expiring " + status.keysWithExpiry());
        for (String k : KEYS) {
            for (String c : List.of("type %k", "pttl %k", "get %k", "hgetall %k", "object encoding %k",
                    "strlen %k")) {
                out.add(k + " " + c + " " + h.run(c.replace("%k", k)));
            }
        }
        return out;
    }

    @Test
    @Timeout(30)
    void aFailedApplyIsTakenBackAloneAndTheRoundBeforeItStays(@TempDir Path store) {
        try (Harness s = new Harness(store)) {
            s.autoCommit = false;
            s.run("set kept " + LONG);
            s.run("set short v");
            Tx tx = s.ks.tx();
            tx.begin(s.nowMs);
            tx.mutating = true;
            tx.beginWrites();
            tx.putString("short".getBytes(), tx.lookup("short".getBytes()), "changed".getBytes(), Tx.NO_EXPIRY);
            tx.delete("kept".getBytes(), tx.meta("kept".getBytes()));
            tx.putString("new".getBytes(), null, LONG.getBytes(), 123_456L);
            tx.dropWrites();
            assertThat(s.run("get short")).isEqualTo("$1\\r\\nv\\r\\n");
            assertThat(s.run("get kept")).isEqualTo("$" + LONG.length() + "\\r\\n" + LONG + "\\r\\n");
            assertThat(s.run("exists new")).isEqualTo(":0\\r\\n");
            s.ks.commit();
            s.reopen();
            assertThat(s.ks.status().keys()).isEqualTo(2);
            assertThat(s.run("get short")).isEqualTo("$1\\r\\nv\\r\\n");
            assertThat(s.run("pttl kept")).isEqualTo(":-1\\r\\n");
        }
    }

    @Test
    @Timeout(30)
    void aLongValueLookedUpWithoutItsBytesIsNeverReadAsEmpty(@TempDir Path store) {
        try (Harness s = new Harness(store)) {
            s.run("set k " + LONG);
            s.ks.commit();
            Tx tx = s.ks.tx();
            tx.begin(s.nowMs);
            Tx.Rec meta = tx.meta("k".getBytes());
            assertThat(meta).isNotNull();
            assertThatThrownBy(meta::value).isInstanceOf(IllegalStateException.class);
            assertThat(tx.lookup("k".getBytes()).value()).hasSize(LONG.length());
            assertThat(s.run("expire k 100")).isEqualTo(":1\\r\\n"); // rewrites the record: reads the value first
            assertThat(s.run("persist k")).isEqualTo(":1\\r\\n");
            assertThat(s.run("strlen k")).isEqualTo(":" + LONG.length() + "\\r\\n");
        }
    }

    @Test
    @Timeout(30)
    void onlyTheCallerCommitsAndAFlushOrACloseNeverWritesAnUncommittedRound(@TempDir Path store) {
        try (Harness s = new Harness(store)) {
            s.autoCommit = false;
            s.run("set a 1");
            s.ks.commit();
            long committed = s.ks.appliedSequence();
            byte[] digest = s.ks.digest();
            s.run("set b 2"); // under ram this may not be durable in the journal yet: the store must not write it
            assertThat(s.ks.appliedSequence()).isEqualTo(committed + 1);
            assertThat(s.run("get b")).as("the logic thread reads its own round").isEqualTo("$1\\r\\n2\\r\\n");
            assertThat(s.ks.flush()).as("a flush writes what was committed").isEqualTo(committed);
            assertThat(s.ks.digest()).as("another thread sees the committed state").isEqualTo(digest);
            s.reopen();
            assertThat(s.ks.appliedSequence()).as("closing dropped the round: the journal replays it")
                    .isEqualTo(committed);
            assertThat(s.run("get b")).isEqualTo("$-1\\r\\n");
            assertThat(s.run("get a")).isEqualTo("$1\\r\\n1\\r\\n");
        }
    }

}
