package tandem.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import tandem.api.store.Command;

/**
 * XREAD and XREADGROUP with BLOCK as the store sees them: a first try that finds nothing answers a nil array (the
 * node parks the client) and, for XREAD, writes the IDs {@code $} meant then into its arguments; the tries after it
 * ({@code xread|woken}, {@code xreadgroup|woken}) serve as Redis's {@code serveClientsBlockedOnStreamKey}: new
 * entries only, of one key, at most COUNT (1000 without it), and XREADGROUP's errors when its group or stream went.
 */
@Timeout(30)
class StreamBlockingTest {

    private static final String NIL = "*-1\\r\\n";

    @TempDir
    Path dir;

    private static String read(Harness h, Command c) {
        RespRecorder r = new RespRecorder();
        h.ks.read(h.nowNs(), c, r);
        return r.escaped();
    }

    private static String apply(Harness h, Command c) {
        RespRecorder r = new RespRecorder();
        h.ks.apply(++h.seq, h.nowNs(), c, r);
        h.ks.commit();
        return r.escaped();
    }

    /** The woken form of {@code c}, with its arguments as they are now (as the node builds it). */
    private static Command woken(Command c) {
        byte[][] args = c.args().clone();
        args[0] = (c.name() + "|woken").getBytes(StandardCharsets.US_ASCII);
        return Commands.of(args);
    }

    private static Command command(String line) {
        return Commands.of(Harness.bytes(Harness.split(line)));
    }

    @Test
    void aFirstXreadResolvesDollarAndItsLaterTriesServeOnlyWhatCameAfter() {
        try (Harness h = new Harness(dir)) {
            h.run("xadd s 1-0 a 1");
            Command first = command("xread BLOCK 0 STREAMS nokey s $ $");
            assertThat(read(h, first)).isEqualTo(NIL);
            assertThat(new String(first.args()[6], StandardCharsets.US_ASCII)).isEqualTo("0-0");
            assertThat(new String(first.args()[7], StandardCharsets.US_ASCII)).isEqualTo("1-0");
            assertThat(read(h, woken(first))).as("nothing new yet").isEqualTo(NIL);
            h.run("xadd s 2-0 b 2");
            h.run("xadd nokey 5-0 c 3");
            // one key, the first in the command's order that has something new
            assertThat(read(h, woken(first))).isEqualTo(
                    "*1\\r\\n*2\\r\\n$5\\r\\nnokey\\r\\n*1\\r\\n*2\\r\\n$3\\r\\n5-0\\r\\n*2\\r\\n$1\\r\\nc\\r\\n$1\\r\\n3\\r\\n");
        }
    }

    @Test
    void aWokenXreadWaitsThroughAnotherTypeAndServesAtMostAThousand() {
        try (Harness h = new Harness(dir)) {
            Command first = command("xread BLOCK 0 STREAMS s $");
            assertThat(read(h, first)).isEqualTo(NIL);
            h.run("set s x");
            assertThat(read(h, woken(first))).isEqualTo(NIL);
            h.run("del s");
            for (int i = 1; i <= 1001; i++) {
                h.run("xadd s " + i + "-0 f v");
            }
            String served = read(h, woken(first));
            assertThat(served).startsWith("*1\\r\\n*2\\r\\n$1\\r\\ns\\r\\n*1000\\r\\n");
            Command counted = command("xread COUNT 2 BLOCK 0 STREAMS s 999");
            assertThat(read(h, woken(counted))).startsWith("*1\\r\\n*2\\r\\n$1\\r\\ns\\r\\n*2\\r\\n*2\\r\\n$6\\r\\n1000-0");
        }
    }

    @Test
    void aWokenXreadServesAfterLastIdEvenWhenTheNewEntriesAreGone() {
        try (Harness h = new Harness(dir)) {
            h.run("xadd s 1-0 a 1");
            Command first = command("xread BLOCK 0 STREAMS s $");
            assertThat(read(h, first)).isEqualTo(NIL);
            h.transaction("xadd s 2-0 b 2", "xdel s 2-0");
            // Redis compares the stream's last ID, not its last entry: an empty array for the key
            assertThat(read(h, woken(first))).isEqualTo("*1\\r\\n*2\\r\\n$1\\r\\ns\\r\\n*0\\r\\n");
        }
    }

    @Test
    void aWokenXreadgroupDeliversNewEntriesToItsConsumer() {
        try (Harness h = new Harness(dir)) {
            h.run("xgroup create s g $ MKSTREAM");
            Command first = command("xreadgroup GROUP g alice BLOCK 0 STREAMS s >");
            assertThat(apply(h, first)).isEqualTo(NIL);
            assertThat(h.run("xinfo consumers s g")).as("no consumer before it is served").isEqualTo("*0\\r\\n");
            assertThat(apply(h, woken(first))).isEqualTo(NIL);
            h.run("xadd s 1-0 a 1");
            assertThat(apply(h, woken(first))).isEqualTo(
                    "*1\\r\\n*2\\r\\n$1\\r\\ns\\r\\n*1\\r\\n*2\\r\\n$3\\r\\n1-0\\r\\n*2\\r\\n$1\\r\\na\\r\\n$1\\r\\n1\\r\\n");
            assertThat(h.run("xpending s g")).isEqualTo(
                    "*4\\r\\n:1\\r\\n$3\\r\\n1-0\\r\\n$3\\r\\n1-0\\r\\n*1\\r\\n*2\\r\\n$5\\r\\nalice\\r\\n$1\\r\\n1\\r\\n");
            assertThat(apply(h, woken(first))).as("delivered already").isEqualTo(NIL);
        }
    }

    @Test
    void aWokenXreadgroupIsAnsweredAnErrorWhenItsGroupOrStreamWent() {
        try (Harness h = new Harness(dir)) {
            h.run("xgroup create s g $ MKSTREAM");
            Command first = command("xreadgroup GROUP g alice BLOCK 0 STREAMS s >");
            assertThat(apply(h, first)).isEqualTo(NIL);
            h.run("xgroup destroy s g");
            assertThat(apply(h, woken(first)))
                    .isEqualTo("-NOGROUP the consumer group this client was blocked on no longer exists\\r\\n");
            h.run("xgroup create s g $");
            h.run("del s");
            assertThat(apply(h, woken(first))).isEqualTo("-UNBLOCKED the stream key no longer exists\\r\\n");
            h.run("set s x");
            assertThat(apply(h, woken(first))).isEqualTo("-UNBLOCKED the stream key no longer exists\\r\\n");
        }
    }

    @Test
    void blockIsRefusedInScriptsAndWaitsForItsKeysAndMilliseconds() {
        try (Harness h = new Harness(dir)) {
            assertThat(h.run("eval \"return redis.call('XREAD','BLOCK','0','STREAMS','s','$')\" 0"))
                    .isEqualTo("-ERR XREAD command is not allowed with BLOCK option from scripts script: "
                            + "6475a58e5ce74a5434e15b26cb7cf7d348dd7732, on @user_script:1.\\r\\n");
            assertThat(h.run("eval \"return redis.call('xread','STREAMS','s','0')\" 0")).isEqualTo("$-1\\r\\n");
        }
        assertThat(waitOf("xread BLOCK 1500 STREAMS a b 0 0")).isEqualTo("[a, b] 1500");
        assertThat(waitOf("xreadgroup GROUP g c COUNT 3 BLOCK 0 NOACK STREAMS s >")).isEqualTo("[s] 0");
        assertThat(Pops.blockingWait(Harness.bytes("xread", "STREAMS", "s", "$"))).isNull();
        assertThat(Pops.blockingWait(Harness.bytes("xread", "BLOCK", "x", "STREAMS", "s", "$"))).isNull();
    }

    private static String waitOf(String line) {
        var w = Pops.blockingWait(Harness.bytes(Harness.split(line)));
        return w.keys().stream().map(k -> new String(k, StandardCharsets.UTF_8)).toList() + " " + w.timeoutMillis();
    }
}
