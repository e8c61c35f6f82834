package tandem.system;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisDataException;

/** What the split-brain tests share: probing the fence, the divergence of two nodes, reading an audit file. */
final class SplitBrainAudits {

    static final String SEPARATOR = "\n---\n";

    private SplitBrainAudits() {
    }

    /** @return true when a SET is refused with CLUSTERDOWN; one that is held past a second leaves a divergent write */
    static boolean probe(TandemNode node, String key) {
        try (Jedis jedis = new Jedis("127.0.0.1", node.port(), 1000, 1000)) {
            jedis.set(key, key);
            return false;
        } catch (JedisDataException e) {
            assertThat(e.getMessage()).isEqualTo("CLUSTERDOWN quorum lost, writes rejected");
            return true;
        } catch (JedisConnectionException heldPastTheTimeout) {
            return false;
        }
    }

    /** @return the string keys and values {@code a} holds that {@code b} does not hold alike */
    static Map<String, String> difference(TandemNode a, TandemNode b) {
        Map<String, String> diff = new HashMap<>();
        try (Jedis ja = new Jedis("127.0.0.1", a.port()); Jedis jb = new Jedis("127.0.0.1", b.port())) {
            for (String k : ja.keys("*")) {
                String v = ja.get(k);
                if (!v.equals(jb.get(k))) {
                    diff.put(k, v);
                }
            }
        }
        return diff;
    }

    static Path auditFile(Path data) {
        try (Stream<Path> files = Files.list(data)) {
            return files.filter(f -> f.getFileName().toString().startsWith("split_brain_discarded_")
                    && f.getFileName().toString().endsWith(".log")).findFirst().orElse(null);
        } catch (IOException e) {
            return null;
        }
    }

    static Map<String, String> header(String text) {
        Map<String, String> h = new HashMap<>();
        for (String line : text.substring(0, text.indexOf(SEPARATOR)).split("\n")) {
            int colon = line.indexOf(": ");
            if (!line.startsWith("#") && colon > 0) {
                h.put(line.substring(0, colon), line.substring(colon + 2));
            }
        }
        return h;
    }

    /** @return the header's {@code name: value} lines */
    static Map<String, String> header(byte[] audit) {
        String text = new String(audit, StandardCharsets.ISO_8859_1);
        return header(text);
    }

    /** @return the discarded writes after the separator, each command's arguments */
    static List<List<String>> ops(byte[] audit) {
        String text = new String(audit, StandardCharsets.ISO_8859_1);
        return Resp.commands(audit, text.indexOf(SEPARATOR) + SEPARATOR.length());
    }

    /** @return the audit file's bytes, once written */
    static byte[] read(Path data) throws IOException {
        return Files.readAllBytes(auditFile(data));
    }

    /**
     * Every divergent {@code SET} is in the audit byte for byte, and no acknowledged write is among its writes.
     *
     * @param divergent what the old primary held that the new one did not (counters aside: their INCRs are there too)
     * @param ackedUpTo each writer's prefix and the last of its writes {@code <prefix>:<n>} that was acknowledged
     */
    static void assertAudited(List<List<String>> ops, Map<String, String> divergent, Map<String, Long> ackedUpTo) {
        for (Map.Entry<String, String> e : divergent.entrySet()) {
            if (!e.getKey().endsWith(":count")) {
                assertThat(ops).as("divergent %s", e.getKey()).contains(List.of("SET", e.getKey(), e.getValue()));
            }
        }
        for (Map.Entry<String, Long> w : ackedUpTo.entrySet()) {
            for (List<String> op : ops) {
                if (op.get(0).equals("SET") && op.get(1).startsWith(w.getKey() + ":")) {
                    assertThat(Long.parseLong(op.get(2))).as("an acknowledged write in the audit: %s", op)
                            .isGreaterThan(w.getValue());
                }
            }
        }
    }
}
