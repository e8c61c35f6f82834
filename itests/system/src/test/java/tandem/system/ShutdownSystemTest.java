package tandem.system;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import redis.clients.jedis.Jedis;

/**
 * {@code SHUTDOWN} from a client stops the node as SIGTERM does: the process exits with status 0, the log says who
 * asked, and a restart on the same home holds every acknowledged write. Twice on one node: {@code SHUTDOWN SAVE}
 * and {@code SHUTDOWN NOSAVE NOW} (Tandem's journal holds every acknowledged write either way).
 */
@Timeout(120)
class ShutdownSystemTest {

    @Test
    void shutdownStopsTheNodeCleanlyAndLosesNothing() throws Exception {
        try (TandemNode node = TandemNode.start("shutdown")) {
            int written = 0;
            for (String form : new String[] {"SAVE", "NOSAVE NOW"}) {
                try (Jedis jedis = new Jedis("127.0.0.1", node.port())) {
                    for (int i = 0; i < 500; i++) {
                        jedis.set("k" + written, Integer.toString(written));
                        written++;
                    }
                }
                String digest = node.digest();
                List<String> command = new ArrayList<>(List.of("SHUTDOWN"));
                command.addAll(List.of(form.split(" ")));
                TandemNode.Result r = node.redisCli(command.toArray(new String[0]));
                assertThat(r.err()).as(form).isEmpty();
                assertThat(node.process().waitFor(30, TimeUnit.SECONDS)).as("the node exits after SHUTDOWN " + form)
                        .isTrue();
                assertThat(node.process().exitValue()).isZero();
                assertThat(node.log()).containsPattern("WARNING .*SHUTDOWN by client id=\\d+ addr=127\\.0\\.0\\.1:\\d+: "
                        + "stopping the node");
                node.restart();
                assertThat(node.digest()).as("after SHUTDOWN %s and a restart", form).isEqualTo(digest);
                try (Jedis jedis = new Jedis("127.0.0.1", node.port())) {
                    assertThat(jedis.dbSize()).isEqualTo(written);
                }
            }
        }
    }
}
