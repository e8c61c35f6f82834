package tandem.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** MULTI/EXEC bodies applied as one entry and one batch. */
@Timeout(30)
class TransactionTest {

    @TempDir
    Path dir;

    @Test
    void commandsSeeEarlierWritesOfTheSameTransaction() {
        try (Harness h = new Harness(dir)) {
            String reply = h.transaction("set a 1", "get a", "incr a", "hset h f v", "hget h f", "keys *",
                    "dbsize", "exists a h", "del a", "get a", "scan 0");
            assertThat(reply).isEqualTo("*11\\r\\n+OK\\r\\n$1\\r\\n1\\r\\n:2\\r\\n:1\\r\\n$1\\r\\nv\\r\\n"
                    + "*2\\r\\n$1\\r\\na\\r\\n$1\\r\\nh\\r\\n:2\\r\\n:2\\r\\n:1\\r\\n$-1\\r\\n"
                    + "*2\\r\\n$1\\r\\n0\\r\\n*1\\r\\n$1\\r\\nh\\r\\n");
            assertThat(h.ks.appliedSequence()).isEqualTo(1);
            assertThat(h.ks.status().keys()).isEqualTo(1);
        }
    }

    @Test
    void errorsInsideDoNotAbortTheOthers() {
        try (Harness h = new Harness(dir)) {
            h.run("hset h f v");
            String reply = h.transaction("set a x", "incr a", "get h", "set b 1");
            assertThat(reply).isEqualTo("*4\\r\\n+OK\\r\\n-ERR value is not an integer or out of range\\r\\n"
                    + "-WRONGTYPE Operation against a key holding the wrong kind of value\\r\\n+OK\\r\\n");
            assertThat(h.run("mget a b")).isEqualTo("*2\\r\\n$1\\r\\nx\\r\\n$1\\r\\n1\\r\\n");
        }
    }

    @Test
    void hashRewritesInsideOneBatchStayConsistent() {
        try (Harness h = new Harness(dir)) {
            h.transaction("hset h a 1 b 2", "hdel h a", "rename h g", "hset g c 3", "hdel g b c", "hset g d 4");
            assertThat(h.run("hgetall g")).isEqualTo("*2\\r\\n$1\\r\\nd\\r\\n$1\\r\\n4\\r\\n");
            assertThat(h.run("exists h")).isEqualTo(":0\\r\\n");
            try (Harness fresh = new Harness(dir.resolve("fresh"))) {
                fresh.run("hset g d 4");
                assertThat(h.ks.digest()).isEqualTo(fresh.ks.digest());
            }
        }
    }

    @Test
    void anUnknownCommandRefusesTheWholeTransactionBeforeAnythingRuns() {
        try (Harness h = new Harness(dir)) {
            RespRecorder r = new RespRecorder();
            assertThatThrownBy(() -> h.ks.applyTransactionOf(1, h.nowNs(),
                    List.of(Harness.bytes("set", "a", "1"), Harness.bytes("xyzzy", "s", "*", "f", "v")), r))
                    .isInstanceOf(IllegalArgumentException.class);
            assertThat(r.bytes()).isEmpty();
            assertThat(h.ks.appliedSequence()).isZero();
            assertThat(h.run("exists a")).isEqualTo(":0\\r\\n");
        }
    }
}
