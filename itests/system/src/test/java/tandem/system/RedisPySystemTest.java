package tandem.system;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * redis-py 5+ (Debian trixie's, which {@code .ci/test} unpacks) in RESP2 and in RESP3, against a real Redis 7 and
 * against Tandem: one script ({@code redis_py_features.py}) connects in database 3, reads replies as redis-py turns
 * them into Python values (RESP3 maps, sets and doubles), uses HMSET, DUMP and RESTORE, listens to keyspace
 * notifications and tracks a key with client-side caching's invalidations; what it prints must be the same line for
 * line on both servers.
 */
@Timeout(180)
class RedisPySystemTest {

    private static RedisProcess redis;
    private static TandemNode tandem;
    private static Path script;

    @BeforeAll
    static void start() throws Exception {
        redis = RedisProcess.start();
        tandem = TandemNode.start("redis-py");
        Path dir = Files.createTempDirectory(Files.createDirectories(Path.of("target")), "redis-py-");
        script = dir.resolve("redis_py_features.py");
        try (InputStream in = RedisPySystemTest.class.getResourceAsStream("redis_py_features.py")) {
            Files.copy(in, script);
        }
    }

    @AfterAll
    static void stop() throws Exception {
        PerClass.closeAll(tandem);
        if (redis != null) {
            redis.close();
        }
    }

    @ParameterizedTest(name = "RESP{0}")
    @ValueSource(ints = {2, 3})
    void runsAsOnRedis(int protocol) throws Exception {
        Path redisPy = Prerequisites.requireRedisPy5();
        List<String> onRedis = run(redisPy, redis.port(), protocol);
        assertThat(onRedis).as("the script against Redis itself").last().isEqualTo("done");
        assertThat(onRedis.get(0)).isEqualTo("connected True resp " + protocol + " db 3");
        assertThat(run(redisPy, tandem.port(), protocol)).isEqualTo(onRedis);
    }

    private static List<String> run(Path redisPy, int port, int protocol) throws IOException, InterruptedException {
        ProcessBuilder pb = new ProcessBuilder("/usr/bin/python3", script.toString(), Integer.toString(port),
                Integer.toString(protocol)).redirectErrorStream(true);
        pb.environment().put("PYTHONPATH", redisPy.toString());
        Process p = pb.start();
        try {
            byte[] out = p.getInputStream().readAllBytes(); // the script ends by itself, within its own deadlines
            assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
            return new String(out, StandardCharsets.UTF_8).lines().toList();
        } finally {
            p.destroyForcibly();
        }
    }
}
