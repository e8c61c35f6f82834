package tandem.system;

import java.io.File;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import tandem.testsupport.Await;

/** A real Redis 7 ({@code redis-server} from Debian) on a free loopback port, for side-by-side comparisons. */
public final class RedisProcess implements AutoCloseable {

    private final Process process;
    private final int port;

    private RedisProcess(Process process, int port) {
        this.process = process;
        this.port = port;
    }

    /** Starts {@code redis-server} without persistence plus {@code extra} options, and waits until it answers. */
    public static RedisProcess start(String... extra) throws IOException {
        int port = TandemNode.freePort();
        List<String> command = new ArrayList<>(List.of("redis-server", "--port", Integer.toString(port), "--bind",
                "127.0.0.1", "--save", "", "--appendonly", "no", "--daemonize", "no", "--loglevel", "warning"));
        command.addAll(List.of(extra));
        ProcessBuilder builder = new ProcessBuilder(command);
        // SORT … ALPHA compares with strcoll in the process's locale: C (byte order) whatever the machine's locale
        builder.environment().put("LC_ALL", "C");
        Process p = builder.redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).redirectErrorStream(true).start();
        RedisProcess redis = new RedisProcess(p, port);
        Await.until("redis-server answers on " + port, Duration.ofSeconds(20),
                () -> "+PONG\r\n".equals(TandemNode.tryExchange(port, "PING\r\n")));
        return redis;
    }

    public int port() {
        return port;
    }

    @Override
    public void close() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(10, TimeUnit.SECONDS)) {
            process.destroyForcibly();
        }
    }
}
