package tandem.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import tandem.api.store.Keyspace;

/**
 * A blocking command applied again after it blocked ({@link Keyspace#WOKEN_SUFFIX}): it passes over a key that now
 * holds another type, where its first try answers WRONGTYPE; clients cannot name it.
 */
@Timeout(30)
class WokenFormsTest {

    @TempDir
    Path dir;

    private static String apply(Harness h, String line) {
        RespRecorder r = new RespRecorder();
        h.ks.apply(++h.seq, h.nowNs(), Harness.bytes(Harness.split(line)), r);
        h.ks.commit();
        return r.escaped();
    }

    @Test
    void aWokenTryPassesOverAKeyOfAnotherType() {
        try (Harness h = new Harness(dir)) {
            h.run("set s x");
            h.run("rpush l v w");
            h.run("zadd z 1 m");
            String wrongType = "-WRONGTYPE Operation against a key holding the wrong kind of value\\r\\n";
            assertThat(h.run("blpop s l 0")).isEqualTo(wrongType);
            assertThat(apply(h, "blpop|woken s l 0")).isEqualTo("*2\\r\\n$1\\r\\nl\\r\\n$1\\r\\nv\\r\\n");
            assertThat(apply(h, "brpop|woken s 0")).isEqualTo("*-1\\r\\n"); // nothing for it: it blocks again
            assertThat(apply(h, "blmove|woken s l left right 0")).isEqualTo("$-1\\r\\n");
            assertThat(apply(h, "blmpop|woken 0 2 s l left")).isEqualTo("*2\\r\\n$1\\r\\nl\\r\\n*1\\r\\n$1\\r\\nw\\r\\n");
            assertThat(h.run("bzpopmin s z 0")).isEqualTo(wrongType);
            assertThat(apply(h, "bzpopmin|woken s z 0"))
                    .isEqualTo("*3\\r\\n$1\\r\\nz\\r\\n$1\\r\\nm\\r\\n$1\\r\\n1\\r\\n");
            // a destination of another type is still an error when the source serves, as in Redis
            h.run("rpush l2 e");
            assertThat(apply(h, "brpoplpush|woken l2 s 0")).isEqualTo(wrongType);
        }
    }

    @Test
    void aBlockingCommandWaitsOnItsKeysForItsTimeout() {
        assertThat(waitOf("blpop a b 1.5")).isEqualTo("[a, b] 1500");
        assertThat(waitOf("bzpopmax z 0.0001")).isEqualTo("[z] 0"); // truncated to 0 ms: for good, as Redis
        assertThat(waitOf("blmove src dst left right 0x10")).isEqualTo("[src] 16000"); // not the destination
        assertThat(waitOf("brpoplpush src dst 0")).isEqualTo("[src] 0");
        assertThat(waitOf("blmpop 2 2 a b left count 3")).isEqualTo("[a, b] 2000");
        assertThat(waitOf("bzmpop 0.25 1 z min")).isEqualTo("[z] 250");
        assertThat(Pops.blockingWait(Harness.bytes("lpop", "a"))).isNull();
    }

    private static String waitOf(String line) {
        tandem.api.store.BlockingWait w = Pops.blockingWait(Harness.bytes(Harness.split(line)));
        java.util.List<String> keys = new java.util.ArrayList<>();
        w.keys().forEach(k -> keys.add(new String(k, java.nio.charset.StandardCharsets.UTF_8)));
        return keys + " " + w.timeoutMillis();
    }

    @Test
    void clientsCannotNameTheWokenForms() {
        try (Harness h = new Harness(dir)) {
            assertThat(h.ks.describe("blpop|woken")).isNull();
            assertThat(h.ks.commands()).noneMatch(d -> d.name().contains("|"));
            assertThat(h.ks.describe("blpop")).isNotNull();
        }
    }
}
