package tandem.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.rocksdb.PerfContext;
import org.rocksdb.PerfLevel;
import org.rocksdb.RocksDB;

/**
 * What an aging store must not pay for (docs/data-types.md, "An aging store"), counted by RocksDB's perf context.
 * The cliff: once a list of 1.2 M elements and a sorted set share one compacted file, a lookup of a member must
 * consult that file's bloom filter, 1.5 MB in one piece — more than a shard of the block cache holds, so it was read
 * from the file and checksummed again by every ZADD (110 µs and more each); partitioned, the filter is read a 4 KB
 * block at a time and those stay cached. And the ticks: each expires keys from the front of the deadline index,
 * where the deletions of the ticks before it lie until compaction.
 */
@Timeout(120)
class AgingStoreTest {

    private static final int LIST = 1_200_000;
    private static final int MEMBERS = 10_000;
    private static final int UPDATES = 2_000;

    @TempDir
    Path dir;

    @Test
    void aLookupReadsAFewBlocksFromFilesNotAWholeFilterOfALargeFile() {
        try (Harness h = new Harness(dir)) {
            for (int done = 0; done < LIST; done += 1000) {
                byte[][] push = new byte[1002][];
                push[0] = Args.ascii("lpush");
                push[1] = Args.ascii("mylist");
                for (int i = 0; i < 1000; i++) {
                    push[2 + i] = Args.ascii("xxx");
                }
                h.exec(push);
            }
            for (int done = 0; done < MEMBERS; done += 100) {
                StringBuilder zadd = new StringBuilder("zadd myzset");
                for (int i = done; i < done + 100; i++) {
                    zadd.append(' ').append(i).append(" element:").append(i);
                }
                h.run(zadd.toString());
            }
            h.ks.compactAll(); // one file holds the list and the sorted set, as compactions leave them

            RocksDB db = h.ks.db();
            db.setPerfLevel(PerfLevel.ENABLE_COUNT);
            PerfContext perf = db.getPerfContext();
            perf.reset();
            for (int i = 0; i < UPDATES; i++) {
                int member = (i * 7919) % MEMBERS;
                assertThat(h.run("zadd myzset " + (i + MEMBERS) + " element:" + member)).isEqualTo(":0\\r\\n");
            }
            long bytesPerUpdate = perf.getBlockReadByte() / UPDATES;
            db.setPerfLevel(PerfLevel.DISABLE);
            // a 4 KB data block, and a filter and an index partition of about as much, the first time each is needed;
            // the whole filter was 1.5 MB a lookup (3 GB for these updates)
            assertThat(bytesPerUpdate).as("bytes read from files per ZADD").isLessThan(64 * 1024);
        }
    }

    @Test
    void aTickStepsOverTheDeletionsOfTheLastTickOnly() {
        try (Harness h = new Harness(dir)) { // 100 keys a tick
            for (int done = 0; done < 30_000; done += 500) {
                StringBuilder mset = new StringBuilder("mset");
                for (int i = done; i < done + 500; i++) {
                    mset.append(" k").append(i).append(" v");
                }
                h.run(mset.toString());
                for (int i = done; i < done + 500; i++) {
                    h.run("pexpire k" + i + " " + (1 + i / 10));
                }
            }
            h.nowMs += 10_000;
            for (int i = 0; i < 200; i++) {
                h.tick();
            }
            RocksDB db = h.ks.db();
            db.setPerfLevel(PerfLevel.ENABLE_COUNT);
            PerfContext perf = db.getPerfContext();
            perf.reset();
            for (int i = 0; i < 50; i++) {
                h.tick();
            }
            long skipped = perf.getInternalDeleteSkippedCount() / 50;
            db.setPerfLevel(PerfLevel.DISABLE);
            assertThat(h.run("dbsize")).isEqualTo(":5000\\r\\n");
            // from the first entry, a tick stepped over every earlier tick's: 20,000 and more here
            assertThat(skipped).as("deletions a tick stepped over").isLessThan(500);
        }
    }
}
