package tandem.system;

import static org.assertj.core.api.Assertions.assertThat;
import static tandem.system.RespSockets.connect;
import static tandem.system.RespSockets.exchange;

import java.io.IOException;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import tandem.testsupport.Await;

/**
 * {@code CLIENT UNBLOCK} side by side with Redis 7.0: a client parked in {@code BLPOP}, {@code BZPOPMIN} or {@code WAIT}
 * is answered as its timeout would answer it, or with the {@code -UNBLOCKED} error; a client not parked is not.
 */
@Timeout(60)
class ClientUnblockSystemTest {

    private static TandemNode tandem;
    private static RedisProcess redis;

    @BeforeAll
    static void start() throws IOException {
        redis = RedisProcess.start();
        tandem = TandemNode.start("unblock");
    }

    @AfterAll
    static void stop() throws Exception {
        PerClass.closeAll(tandem, redis);
    }

    /** What the parked client and the one that unblocks it read, on one server. */
    private static List<String> flow(int port) throws IOException {
        List<String> got = new ArrayList<>();
        try (Socket blocked = connect(port); Socket other = connect(port)) {
            String id = exchange(blocked, "CLIENT ID\r\n", 1).replaceAll("[^0-9]", "");
            for (String[] step : new String[][] {{"BLPOP ub:nolist 0", ""}, {"BZPOPMIN ub:nozset 0", " ERROR"},
                {"WAIT 1 0", " TIMEOUT"}}) {
                exchange(blocked, step[0] + "\r\n", 0);
                Await.until("the client is parked", Duration.ofSeconds(10),
                        () -> String.valueOf(TandemNode.tryExchange(port, "INFO clients\r\n"))
                                .contains("blocked_clients:1"));
                got.add(exchange(other, "CLIENT UNBLOCK " + id + step[1] + "\r\n", 1));
                got.add(exchange(blocked, "", 1));
            }
            got.add(exchange(other, "CLIENT UNBLOCK " + id + "\r\nCLIENT UNBLOCK 999999\r\n", 2));
            got.add(exchange(blocked, "PING\r\n", 1));
        }
        return got;
    }

    @Test
    void aParkedClientIsAnsweredAsOnRedis() throws IOException {
        List<String> expected = flow(redis.port());
        assertThat(expected).as("Redis").contains("-UNBLOCKED client unblocked via CLIENT UNBLOCK\r\n");
        assertThat(flow(tandem.port())).isEqualTo(expected);
    }
}
