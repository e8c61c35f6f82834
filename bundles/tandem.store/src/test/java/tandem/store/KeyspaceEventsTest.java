package tandem.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import tandem.api.store.KeyspaceEvents;

/**
 * The store's keyspace notifications, as a sink sees them: Redis's events in Redis's order, after the apply that
 * raised them, only of the classes asked for. The differential corpus compares every command's with Redis's.
 */
@Timeout(30)
class KeyspaceEventsTest {

    @TempDir
    Path dir;

    /** Records "event key" lines; wants {@link #classes}. */
    static final class Recorder implements KeyspaceEvents {
        final List<String> seen = new ArrayList<>();
        int classes = -1;
        int asked;

        @Override
        public int classes() {
            asked++;
            return classes;
        }

        @Override
        public void event(int type, String event, int db, byte[] key) {
            seen.add(event + " " + new String(key, StandardCharsets.UTF_8) + (db == 0 ? "" : " db" + db));
        }
    }

    @Test
    void aWriteRaisesItsEventsInRedisOrder() {
        try (Harness h = new Harness(dir)) {
            Recorder r = new Recorder();
            h.ks.events(r);
            h.run("set k v ex 100");
            h.run("lpush l a");
            h.run("lpop l");
            h.run("rename k k2");
            assertThat(r.seen).containsExactly("new k", "set k", "expire k", "new l", "lpush l", "lpop l", "del l",
                    "new k2", "rename_from k", "rename_to k2");
        }
    }

    @Test
    void onlyTheClassesAskedForAreRaised() {
        try (Harness h = new Harness(dir)) {
            Recorder r = new Recorder();
            r.classes = KeyspaceEvents.GENERIC;
            h.ks.events(r);
            h.run("set k v");
            h.run("expire k 100");
            h.run("del k");
            r.classes = 0;
            h.run("set k v");
            h.run("del k");
            assertThat(r.seen).containsExactly("expire k", "del k");
            assertThat(r.asked).isEqualTo(5); // once per apply
        }
    }

    @Test
    void aTransactionRaisesTheEventsOfEachCommandInTurnOnceItHasApplied() {
        try (Harness h = new Harness(dir)) {
            Recorder r = new Recorder();
            h.ks.events(r);
            h.transaction("sadd s a b", "srem s a b", "hset h f v");
            assertThat(r.seen).containsExactly("new s", "sadd s", "srem s", "del s", "new h", "hset h");
        }
    }

    @Test
    void aTickRaisesExpiredForEachKeyItDeletesAndAWriteForTheExpiredKeyItMeets() {
        try (Harness h = new Harness(dir)) {
            Recorder r = new Recorder();
            h.run("set a 1 px 10");
            h.run("set b 1 px 10");
            h.ks.events(r);
            h.nowMs += 10;
            h.run("set a 2"); // the write meets the expired key first
            h.tick();
            assertThat(r.seen).containsExactly("expired a", "new a", "set a", "expired b");
        }
    }

    @Test
    void aReadRaisesKeymissAloneAndObjectRaisesNothing() {
        try (Harness h = new Harness(dir)) {
            Recorder r = new Recorder();
            h.run("set k v px 10");
            h.ks.events(r);
            h.run("get nope");
            h.run("get k");
            h.nowMs += 10;
            h.run("get k"); // expired: a miss, but a read deletes nothing and raises no expired
            h.run("object encoding nope");
            h.run("exists nope");
            assertThat(r.seen).containsExactly("keymiss nope", "keymiss k", "keymiss nope");
        }
    }

    @Test
    void aWriteThatReadsASourceRaisesKeymissForTheMissingOne() {
        try (Harness h = new Harness(dir)) {
            Recorder r = new Recorder();
            h.run("sadd s a");
            h.run("sadd d x");
            h.ks.events(r);
            h.run("sunionstore d s nope");
            h.run("sinterstore d nope s");
            assertThat(r.seen).containsExactly("keymiss nope", "sunionstore d", "keymiss nope", "del d");
        }
    }

    @Test
    void aFlushRaisesFlushedForClientSideCachingAloneOrInATransaction() {
        try (Harness h = new Harness(dir)) {
            Recorder r = new Recorder();
            h.run("set k v");
            h.ks.events(r);
            h.run("flushall");
            h.db = 4;
            h.transaction("set k v", "flushdb");
            assertThat(r.seen).containsExactly("flush ", "new k db4", "set k db4", "flush  db4");
            r.classes = KeyspaceEvents.KEYSPACE | KeyspaceEvents.KEYEVENT | KeyspaceEvents.GENERIC;
            h.run("flushdb");
            assertThat(r.seen).as("a class of its own").hasSize(4);
        }
    }
}
