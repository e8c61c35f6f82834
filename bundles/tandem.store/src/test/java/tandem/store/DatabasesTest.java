package tandem.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import tandem.api.store.StoreStatus;

/**
 * The sixteen databases: each holds its own keys, counted, scanned, flushed and expired on its own; MOVE, COPY … DB
 * and SWAPDB between them; all of it kept across a reopen and in the digest.
 */
@Timeout(60)
class DatabasesTest {

    @TempDir
    Path dir;

    @Test
    void eachDatabaseHoldsItsOwnKeys() {
        try (Harness h = new Harness(dir)) {
            h.run("set k zero");
            h.db = 3;
            assertThat(h.run("get k")).isEqualTo("$-1\\r\\n");
            h.run("set k three");
            h.run("hset h f v");
            assertThat(h.run("dbsize")).isEqualTo(":2\\r\\n");
            assertThat(h.run("keys *")).isEqualTo("*2\\r\\n$1\\r\\nh\\r\\n$1\\r\\nk\\r\\n");
            assertThat(h.run("scan 0")).isEqualTo("*2\\r\\n$1\\r\\n0\\r\\n*2\\r\\n$1\\r\\nh\\r\\n$1\\r\\nk\\r\\n");
            h.db = 0;
            assertThat(h.run("get k")).isEqualTo("$4\\r\\nzero\\r\\n");
            assertThat(h.run("dbsize")).isEqualTo(":1\\r\\n");
            assertThat(h.run("randomkey")).isEqualTo("$1\\r\\nk\\r\\n");
            assertThat(h.ks.status().databases()).containsExactly(new StoreStatus.Database(0, 1, 0, 0),
                    new StoreStatus.Database(3, 2, 0, 0));
            assertThat(h.ks.status().keys()).isEqualTo(3);
            h.reopen();
            h.db = 3;
            assertThat(h.run("get k")).isEqualTo("$5\\r\\nthree\\r\\n");
            assertThat(h.run("dbsize")).isEqualTo(":2\\r\\n");
        }
    }

    @Test
    void flushdbEmptiesTheCurrentDatabaseAndFlushallEveryOne() {
        try (Harness h = new Harness(dir)) {
            h.run("set a 1");
            h.db = 5;
            h.run("set b 1 px 100000");
            h.db = 6;
            h.run("set c 1");
            h.run("flushdb");
            assertThat(h.run("dbsize")).isEqualTo(":0\\r\\n");
            h.db = 5;
            assertThat(h.run("dbsize")).isEqualTo(":1\\r\\n");
            // inside a transaction too
            assertThat(h.transaction("flushdb", "dbsize")).isEqualTo("*2\\r\\n+OK\\r\\n:0\\r\\n");
            h.db = 0;
            assertThat(h.run("get a")).isEqualTo("$1\\r\\n1\\r\\n");
            h.db = 7;
            h.run("set d 1");
            h.run("flushall");
            assertThat(h.ks.status().keys()).isZero();
            assertThat(h.ks.status().databases()).isEmpty();
        }
    }

    @Test
    void moveTakesAKeyWithItsDeadlineToAnotherDatabaseWhereItIsAbsent() {
        try (Harness h = new Harness(dir)) {
            h.run("rpush l a b c");
            h.run("pexpire l 5000");
            h.run("set s v");
            assertThat(h.run("move l 2")).isEqualTo(":1\\r\\n");
            assertThat(h.run("exists l")).isEqualTo(":0\\r\\n");
            assertThat(h.run("move s 0")).isEqualTo("-ERR source and destination objects are the same\\r\\n");
            assertThat(h.run("move s 16")).isEqualTo("-ERR DB index is out of range\\r\\n");
            assertThat(h.run("move s x")).isEqualTo("-ERR value is not an integer or out of range\\r\\n");
            assertThat(h.run("move s 2147483648"))
                    .isEqualTo("-ERR value is out of range, value must between -2147483648 and 2147483647\\r\\n");
            assertThat(h.run("move nope 2")).isEqualTo(":0\\r\\n");
            h.db = 2;
            assertThat(h.run("lrange l 0 -1")).isEqualTo("*3\\r\\n$1\\r\\na\\r\\n$1\\r\\nb\\r\\n$1\\r\\nc\\r\\n");
            assertThat(h.run("pttl l")).isEqualTo(":5000\\r\\n");
            h.run("set s taken");
            h.db = 0;
            assertThat(h.run("move s 2")).isEqualTo(":0\\r\\n");
            assertThat(h.run("get s")).isEqualTo("$1\\r\\nv\\r\\n");
            h.nowMs += 5000;
            h.tick(); // the deadline came along: database 2's key expires
            assertThat(h.ks.status().databases()).containsExactly(new StoreStatus.Database(0, 1, 0, 0),
                    new StoreStatus.Database(2, 1, 0, 0));
        }
    }

    @Test
    void copyWithDbWritesIntoTheOtherDatabase() {
        try (Harness h = new Harness(dir)) {
            h.run("zadd z 1 a 2 b");
            assertThat(h.run("copy z z db 4")).isEqualTo(":1\\r\\n");
            assertThat(h.run("copy z z db 4")).isEqualTo(":0\\r\\n");
            assertThat(h.run("copy z z")).isEqualTo("-ERR source and destination objects are the same\\r\\n");
            assertThat(h.run("copy z z db 0")).isEqualTo("-ERR source and destination objects are the same\\r\\n");
            assertThat(h.run("copy z z db 16")).isEqualTo("-ERR DB index is out of range\\r\\n");
            h.run("zadd z 3 c");
            assertThat(h.run("copy z z db 4 replace")).isEqualTo(":1\\r\\n");
            h.db = 4;
            assertThat(h.run("zcard z")).isEqualTo(":3\\r\\n");
        }
    }

    @Test
    void swapdbSwapsWhatTwoIndexesNameForGoodAndForTheClientAlreadyThere() {
        try (Harness h = new Harness(dir)) {
            h.run("set k zero");
            h.db = 1;
            h.run("set k one");
            h.run("set only-in-one v px 100");
            byte[] before = h.ks.digest();
            assertThat(h.run("swapdb 0 1")).isEqualTo("+OK\\r\\n");
            assertThat(h.run("get k")).isEqualTo("$4\\r\\nzero\\r\\n"); // index 1 names what was 0
            assertThat(h.run("dbsize")).isEqualTo(":1\\r\\n");
            assertThat(h.ks.digest()).isNotEqualTo(before);
            assertThat(h.run("swapdb 0 16")).isEqualTo("-ERR DB index is out of range\\r\\n");
            assertThat(h.run("swapdb x 1")).isEqualTo("-ERR invalid first DB index\\r\\n");
            assertThat(h.run("swapdb 1 x")).isEqualTo("-ERR invalid second DB index\\r\\n");
            assertThat(h.run("swapdb 3 3")).isEqualTo("+OK\\r\\n");
            assertThat(h.transaction("get k", "swapdb 1 2", "get k")).isEqualTo("*3\\r\\n$4\\r\\nzero\\r\\n+OK\\r\\n$-1\\r\\n");
            h.reopen();
            h.db = 2;
            assertThat(h.run("get k")).isEqualTo("$4\\r\\nzero\\r\\n");
            h.db = 0;
            assertThat(h.run("get k")).isEqualTo("$3\\r\\none\\r\\n");
            h.nowMs += 100;
            h.tick(); // the Tick finds the deadline in the database it moved with
            assertThat(h.run("exists only-in-one")).isEqualTo(":0\\r\\n");
        }
    }

    @Test
    void theDigestTellsTheDatabaseOfAKey() {
        byte[] inZero;
        try (Harness h = new Harness(dir.resolve("zero"))) {
            h.run("set k v");
            inZero = h.ks.digest();
        }
        try (Harness h = new Harness(dir.resolve("nine"))) {
            h.db = 9;
            h.run("set k v");
            assertThat(h.ks.digest()).isNotEqualTo(inZero);
            h.run("move k 0");
            assertThat(h.ks.digest()).isEqualTo(inZero);
        }
    }

    @Test
    void aTransactionWorksInTheDatabaseOfEachOfItsCommands() {
        try (Harness h = new Harness(dir)) {
            List<byte[][]> commands = List.of(Harness.bytes("set", "k", "a"), Harness.bytes("set", "k", "b"));
            RespRecorder r = new RespRecorder();
            h.ks.applyTransaction(++h.seq, h.nowNs(), List.of(Commands.of(commands.get(0)).db(0),
                    Commands.of(commands.get(1)).db(8)), r);
            h.ks.commit();
            assertThat(h.run("get k")).isEqualTo("$1\\r\\na\\r\\n");
            h.db = 8;
            assertThat(h.run("get k")).isEqualTo("$1\\r\\nb\\r\\n");
        }
    }

    @Test
    void keyspaceEventsNameTheDatabase() {
        try (Harness h = new Harness(dir)) {
            KeyspaceEventsTest.Recorder events = new KeyspaceEventsTest.Recorder();
            h.ks.events(events);
            h.db = 2;
            h.run("set k v");
            h.run("move k 3");
            assertThat(events.seen).containsExactly("new k db2", "set k db2", "new k db3", "move_from k db2",
                    "move_to k db3");
        }
    }
}
