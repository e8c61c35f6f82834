package tandem.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import tandem.api.store.Keyspace;

/**
 * Functions are data: what changes the libraries is journaled as the command and applies the same on a replica; the
 * libraries are records of the store, there again after a restart; a library's code is bounded where it is decided,
 * and a running function is stopped by {@code FUNCTION KILL} alone.
 */
@Timeout(60)
class FunctionsTest {

    private static final String COUNTER = "#!lua name=counter\n"
            + "redis.register_function('bump', function(keys, args) return redis.call('incrby', keys[1], args[1]) end)\n"
            + "redis.register_function{function_name='peek', callback=function(keys) return redis.call('get', keys[1])"
            + " end, flags={'no-writes'}}";
    private static final String STAMP = "#!lua name=stamp\n"
            + "redis.register_function('stamp', function(keys) return redis.call('set', keys[1], "
            + "redis.call('time')[1] .. ':' .. math.random(1000000)) end)";

    @TempDir
    Path dir;

    @Test
    void librariesAreRecordsOfTheStoreThereAgainAfterARestart() {
        try (Harness h = new Harness(dir)) {
            assertThat(h.exec("function", "load", COUNTER)).isEqualTo("$7\\r\\ncounter\\r\\n");
            assertThat(h.exec("fcall", "bump", "1", "n", "5")).isEqualTo(":5\\r\\n");
            String dump = h.exec("function", "dump");
            String list = h.exec("function", "list", "withcode");
            h.ks.commit();
            h.reopen();
            assertThat(h.exec("function", "dump")).isEqualTo(dump);
            assertThat(h.exec("function", "list", "withcode")).isEqualTo(list);
            assertThat(h.exec("fcall", "bump", "1", "n", "2")).isEqualTo(":7\\r\\n");
            assertThat(h.exec("function", "delete", "counter")).isEqualTo("+OK\\r\\n");
            h.ks.commit();
            h.reopen();
            assertThat(h.exec("function", "list")).isEqualTo("*0\\r\\n");
            assertThat(h.exec("fcall", "bump", "1", "n", "2")).isEqualTo("-ERR Function not found\\r\\n");
        }
    }

    @Test
    void whatChangesTheLibrariesIsJournaledAsTheCommandAndAppliesTheSameOnAReplica() {
        try (Harness primary = new Harness(dir.resolve("primary")); Harness replica = new Harness(dir.resolve("r"))) {
            primary.exec("function", "load", COUNTER);
            primary.exec("function", "load", STAMP);
            primary.exec("fcall", "bump", "1", "n", "3");
            primary.exec("fcall", "stamp", "1", "s");
            String payload = primary.exec("function", "dump");
            primary.exec("function", "load", "replace", COUNTER.replace("incrby", "decrby"));
            primary.exec("fcall", "bump", "1", "n", "1");
            primary.exec("function", "load", "#!lua name=broken\nthis is not lua"); // refused: nothing journaled
            primary.exec("function", "delete", "stamp");
            primary.exec("function", "flush");
            primary.exec(new byte[][] {Args.ascii("function"), Args.ascii("restore"), unescaped(payload)});
            primary.exec("fcall", "stamp", "1", "t");
            assertThat(primary.journaled).hasSize(10);
            long seq = 0;
            for (List<Keyspace.Effect> entry : primary.journaled) {
                assertThat(entry).hasSize(1);
                Keyspace.Effect e = entry.get(0);
                RespRecorder r = new RespRecorder();
                replica.ks.apply(++seq, replica.nowNs(), Commands.of(e.args()).db(e.db()), r);
                assertThat(r.escaped()).doesNotStartWith("-");
            }
            replica.ks.commit();
            replica.seq = seq;
            assertThat(replica.exec("function", "dump")).isEqualTo(primary.exec("function", "dump"));
            assertThat(replica.ks.digest()).isEqualTo(primary.ks.digest());
            assertThat(replica.exec("fcall", "bump", "1", "n", "1")).isEqualTo(primary.exec("fcall", "bump", "1", "n",
                    "1"));
        }
    }

    /** The bytes of a bulk reply (the harness's replies are escaped RESP). */
    private static byte[] unescaped(String escapedBulk) {
        String body = escapedBulk.substring(escapedBulk.indexOf("\\r\\n") + 4, escapedBulk.length() - 4);
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        for (int i = 0; i < body.length(); i++) {
            char c = body.charAt(i);
            if (c == '\\') {
                char e = body.charAt(++i);
                switch (e) {
                    case 'r' -> out.write('\r');
                    case 'n' -> out.write('\n');
                    case '\\' -> out.write('\\');
                    case 'x' -> {
                        out.write(Integer.parseInt(body.substring(i + 1, i + 3), 16));
                        i += 2;
                    }
                    default -> throw new IllegalArgumentException("escape " + e);
                }
            } else {
                out.write(c);
            }
        }
        return out.toByteArray();
    }

    @Test
    void aLibraryWhoseCodeNeverEndsIsRefusedWhereItIsDecidedAndNothingIsJournaled() {
        try (Harness h = new Harness(dir)) {
            long started = System.nanoTime();
            assertThat(h.exec("function", "load", "#!lua name=loop\nlocal i = 0 while true do i = i + 1 end"))
                    .isEqualTo("-ERR Error registering functions: ERR FUNCTION LOAD timeout\\r\\n");
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started)).isGreaterThanOrEqualTo(500);
            assertThat(h.journaled).isEmpty();
            assertThat(h.exec("function", "stats")).contains("libraries_count\\r\\n:0");
            assertThat(h.exec("function", "load", COUNTER)).isEqualTo("$7\\r\\ncounter\\r\\n");
        }
    }

    @Test
    void functionKillStopsAFunctionScriptKillDoesNotAndItsWritesAreTakenBack() throws Exception {
        try (Harness h = new Harness(dir)) {
            h.exec("function", "load", "#!lua name=spin\nredis.register_function('spin', function(keys) "
                    + "redis.call('set', keys[1], 1) while true do end end)");
            int before = h.journaled.size();
            CompletableFuture<String> spinning = CompletableFuture.supplyAsync(() -> h.exec("fcall", "spin", "1",
                    "written"));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (!h.ks.functionRunning()) {
                assertThat(System.nanoTime()).as("the function starts").isLessThan(deadline);
                Thread.onSpinWait();
            }
            assertThat(h.ks.killScript(false)).isEqualTo(RocksKeyspace.BUSY_FUNCTION);
            assertThat(h.ks.killScript(true)).isNull();
            assertThat(spinning.get(30, TimeUnit.SECONDS))
                    .startsWith("-ERR Script killed by user with SCRIPT KILL... script: spin, on @user_function:2.");
            assertThat(h.exec("get", "written")).isEqualTo("$-1\\r\\n");
            assertThat(h.journaled).hasSize(before);
            assertThat(h.ks.killScript(true)).isEqualTo("NOTBUSY No scripts in execution right now.");
        }
    }
}
