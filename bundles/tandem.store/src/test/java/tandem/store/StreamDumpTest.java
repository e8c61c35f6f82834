package tandem.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.Arrays;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * DUMP and RESTORE of streams beyond the transcript ({@code streams.golden} holds Redis's own payloads): a payload
 * round-trips into the same stream, and a damaged one with a valid checksum is either refused with Redis's
 * {@code Bad data format} or restored into a stream every command can use; no byte of a payload stops a node.
 */
@Timeout(120)
class StreamDumpTest {

    @TempDir
    Path dir;

    private static byte[] payload(Harness h, String key) {
        RespRecorder r = new RespRecorder();
        h.ks.read(h.nowNs(), Harness.bytes("dump", key), r);
        byte[] raw = r.bytes();
        int header = 0;
        while (raw[header] != '\n') {
            header++;
        }
        return Arrays.copyOfRange(raw, header + 1, raw.length - 2);
    }

    private static String restore(Harness h, String key, byte[] payload) {
        return h.exec(new byte[][] {"restore".getBytes(), key.getBytes(), "0".getBytes(), payload,
            "REPLACE".getBytes()});
    }

    private static void build(Harness h) {
        for (int i = 1; i <= 120; i++) {
            h.run("xadd s " + i + "-" + (i % 3) + " f" + (i % 2) + " " + i + " g v" + i);
        }
        h.run("xdel s 7-1 50-2");
        h.run("xgroup create s g 0");
        h.run("xreadgroup GROUP g alice COUNT 3 STREAMS s >");
        h.run("xreadgroup GROUP g bob COUNT 2 STREAMS s >");
        h.run("xgroup create s h $ ENTRIESREAD 4");
        h.run("xgroup createconsumer s h carol");
    }

    @Test
    void aStreamRoundTripsThroughItsPayload() {
        try (Harness h = new Harness(dir)) {
            build(h);
            byte[] p = payload(h, "s");
            assertThat(restore(h, "copy", p)).isEqualTo("+OK\\r\\n");
            assertThat(payload(h, "copy")).isEqualTo(p);
            for (String read : new String[] {"xinfo stream %s full", "xinfo groups %s", "xrange %s - +",
                "xpending %s g", "xinfo consumers %s g"}) {
                assertThat(h.run(read.formatted("copy"))).isEqualTo(h.run(read.formatted("s")));
            }
            // the next entries go where Redis's would: into the restored last node, then new ones
            for (int i = 121; i < 260; i++) {
                assertThat(h.run("xadd copy " + i + "-0 f v")).isEqualTo(h.run("xadd s " + i + "-0 f v"));
            }
            assertThat(h.run("xinfo stream copy")).isEqualTo(h.run("xinfo stream s"));
            assertThat(h.run("xtrim copy MAXLEN ~ 50")).isEqualTo(h.run("xtrim s MAXLEN ~ 50"));
        }
    }

    @Test
    void noDamagedPayloadStopsTheStore() {
        try (Harness h = new Harness(dir)) {
            build(h);
            byte[] good = payload(h, "s");
            int body = good.length - 8;
            for (int i = 0; i < body - 2; i++) { // not the RDB version: a later one is another error
                for (int delta : new int[] {1, 0x80}) {
                    byte[] bad = good.clone();
                    bad[i] ^= (byte) delta;
                    long crc = Crc64.of(bad, 0, body);
                    for (int k = 0; k < 8; k++) {
                        bad[body + k] = (byte) (crc >>> (8 * k));
                    }
                    String reply = restore(h, "x", bad);
                    if (reply.equals("+OK\\r\\n")) {
                        // taken: a stream every command can use
                        assertThat(h.run("xinfo stream x full")).startsWith("*");
                        assertThat(h.run("xrevrange x + - COUNT 3")).startsWith("*");
                        h.run("xadd x * f v");
                        h.run("xtrim x MAXLEN ~ 10");
                        h.run("xautoclaim x g zed 0 0");
                        assertThat(h.ks.digest()).hasSize(32);
                    } else {
                        assertThat(reply).as("byte %d", i).startsWith("-ERR Bad data format")
                                .isNotEqualTo("-ERR DUMP payload version or checksum are wrong\\r\\n");
                    }
                }
            }
        }
    }
}
