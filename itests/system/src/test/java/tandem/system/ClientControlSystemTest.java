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
 * {@code CLIENT REPLY}, {@code CLIENT PAUSE}/{@code UNPAUSE} and {@code CLIENT UNBLOCK} side by side with Redis 7.0.
 * {@code CLIENT REPLY OFF} silences a connection until {@code ON}, {@code SKIP} its own reply and the next, a write's
 * and a blocking command's timeout included. A {@code WRITE} pause
 * holds a client's write and what it sends after it, lets reads go on, counts the held client in
 * {@code blocked_clients}, and {@code CLIENT UNPAUSE} releases it. A client parked in {@code BLPOP}, {@code BZPOPMIN}
 * or {@code WAIT} is answered by {@code CLIENT UNBLOCK} as its timeout would answer it, or with the
 * {@code -UNBLOCKED} error; a client not parked is not.
 */
@Timeout(60)
class ClientControlSystemTest {

    private static TandemNode tandem;
    private static RedisProcess redis;

    @BeforeAll
    static void start() throws IOException {
        redis = RedisProcess.start();
        tandem = TandemNode.start("client-control");
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

    /** A WRITE pause: the held client and the one that pauses, as they read it, on one server. */
    private static List<String> pauseFlow(int port) throws IOException {
        List<String> got = new ArrayList<>();
        try (Socket writer = connect(port); Socket pauser = connect(port)) {
            got.add(exchange(pauser, "CLIENT PAUSE 20000 WRITE\r\n", 1));
            exchange(writer, "SET cp:k v\r\nGET cp:k\r\n", 0);
            Await.until("the writer is held", Duration.ofSeconds(10),
                    () -> String.valueOf(TandemNode.tryExchange(port, "INFO clients\r\n"))
                            .contains("blocked_clients:1"));
            got.add(exchange(pauser, "GET cp:k\r\nPUBLISH cp:ch m\r\n", 0)); // a read goes on; PUBLISH waits
            got.add(exchange(pauser, "", 1));
            try (Socket other = connect(port)) {
                got.add(exchange(other, "CLIENT UNPAUSE\r\n", 1));
            }
            got.add(exchange(writer, "", 2));
            got.add(exchange(pauser, "", 1));
            got.add(exchange(writer, "DEL cp:k\r\n", 1));
        }
        return got;
    }

    @Test
    void clientReplySilencesWhatItSaysAsOnRedis() throws IOException {
        String flow = "DEL cr:a\r\nCLIENT REPLY OFF\r\nSET cr:a 1\r\nGET cr:a\r\nBLPOP cr:nolist 0.01\r\n"
                + "CLIENT REPLY ON\r\nGET cr:a\r\nCLIENT REPLY SKIP\r\nHGETALL cr:h\r\nZRANGE cr:z 0 -1 WITHSCORES\r\n"
                + "CLIENT REPLY SKIP\r\nBLPOP cr:nolist 0.01\r\nPING\r\n";
        String expected;
        try (Socket s = connect(redis.port())) {
            expected = exchange(s, flow, 5);
        }
        assertThat(expected).isEqualTo(":0\r\n+OK\r\n$1\r\n1\r\n*0\r\n+PONG\r\n");
        try (Socket s = connect(tandem.port())) {
            assertThat(exchange(s, flow, 5)).isEqualTo(expected);
        }
    }

    @Test
    void aWritePauseHoldsWritesUntilUnpauseAsOnRedis() throws IOException {
        List<String> expected = pauseFlow(redis.port());
        assertThat(expected).as("Redis").containsSubsequence("$-1\r\n", "+OK\r\n", "+OK\r\n$1\r\nv\r\n");
        assertThat(pauseFlow(tandem.port())).isEqualTo(expected);
    }

    @Test
    void aParkedClientIsAnsweredAsOnRedis() throws IOException {
        List<String> expected = flow(redis.port());
        assertThat(expected).as("Redis").contains("-UNBLOCKED client unblocked via CLIENT UNBLOCK\r\n");
        assertThat(flow(tandem.port())).isEqualTo(expected);
    }
}
