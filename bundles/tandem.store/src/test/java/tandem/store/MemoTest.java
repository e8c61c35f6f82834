package tandem.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.Random;
import java.util.TreeSet;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.rocksdb.PerfContext;
import org.rocksdb.PerfLevel;
import org.rocksdb.RocksDB;

/**
 * What pops and draws learn of empty stretches of records ({@link Memo}): it changes no reply, whatever is written
 * into them afterwards, and spares SPOP and ZPOPMIN the walk over the deletions earlier pops left.
 */
@Timeout(120)
class MemoTest {

    @TempDir
    Path dir;

    private static void fill(Harness h, int members) {
        for (int done = 0; done < members; done += 500) {
            StringBuilder sadd = new StringBuilder("sadd s");
            StringBuilder zadd = new StringBuilder("zadd z");
            for (int i = done; i < done + 500; i++) {
                sadd.append(" m").append(10_000 + i);
                zadd.append(' ').append(i).append(" m").append(10_000 + i);
            }
            h.run(sadd.toString());
            h.run(zadd.toString());
        }
    }

    /**
     * Against a model of live records: whatever stretches the seeks learnt and however records were written and
     * deleted since, a seek moved by the memo finds the same live record as one from where it was asked.
     */
    @Test
    void stretchesNeverHideALiveRecord() {
        Random random = new Random(11);
        byte[] space = {7};
        for (int trial = 0; trial < 200; trial++) {
            Memo memo = new Memo();
            TreeSet<byte[]> live = new TreeSet<>(Arrays::compareUnsigned);
            for (int step = 0; step < 300; step++) {
                byte[] k = {7, (byte) random.nextInt(40)};
                byte[] q = random.nextBoolean() ? k : Memo.successor(k);
                switch (random.nextInt(4)) {
                    case 0 -> {
                        live.add(k);
                        memo.wrote(k);
                    }
                    case 1 -> {
                        live.remove(k);
                        memo.deleted(k);
                    }
                    case 2 -> { // a forward seek from q found the next live record (or the space's end)
                        byte[] found = live.ceiling(q);
                        memo.none(space, q, found == null ? new byte[] {8} : found);
                    }
                    default -> { // a backward seek from q found the previous live record (or the space's start)
                        byte[] found = live.floor(q);
                        memo.none(space, found == null ? space : Memo.successor(found), Memo.successor(q));
                    }
                }
                assertThat(live.ceiling(memo.from(space, q))).as("trial %d step %d", trial, step)
                        .isEqualTo(live.ceiling(q));
                assertThat(live.floor(memo.backFrom(space, q))).as("trial %d step %d", trial, step)
                        .isEqualTo(live.floor(q));
            }
        }
    }

    /**
     * A store that remembers what its seeks found empty answers as one that forgets it before each step (and is
     * reopened now and then, which forgets everything the process held).
     */
    @Test
    void whatIsLearntChangesNoReply() {
        Random random = new Random(5);
        try (Harness remembering = new Harness(dir.resolve("remembering"));
                Harness forgetting = new Harness(dir.resolve("forgetting"))) {
            fill(remembering, 1_500);
            fill(forgetting, 1_500);
            for (int step = 0; step < 250; step++) {
                // members and scores below and above what pops left, so that an end must widen
                String member = "m" + (random.nextInt(3) == 0 ? 9_000 + random.nextInt(3_000) : random.nextInt(30));
                int score = random.nextInt(1_900) - 200;
                String line = switch (random.nextInt(11)) {
                    case 0, 1 -> "spop s";
                    case 2 -> "spop s 3";
                    case 3 -> "srandmember s";
                    case 4 -> "sadd s " + member;
                    case 5 -> "srem s " + member;
                    case 6 -> "zpopmin z";
                    case 7 -> "zpopmax z 2";
                    case 8 -> "zadd z " + score + " " + member;
                    case 9 -> "zrandmember z";
                    default -> "zrange z 0 2 withscores";
                };
                if (step % 25 == 0) {
                    forgetting.reopen();
                } else {
                    forgetting.ks.forgetMemos();
                }
                assertThat(remembering.run(line)).as("step %d: %s", step, line).isEqualTo(forgetting.run(line));
                if (step % 50 == 0) {
                    String ends = "zrange z 0 0 withscores";
                    assertThat(remembering.run(ends)).isEqualTo(forgetting.run(ends));
                    assertThat(remembering.run("zrange z -1 -1")).isEqualTo(forgetting.run("zrange z -1 -1"));
                }
            }
            assertThat(remembering.ks.digest()).isEqualTo(forgetting.ks.digest());
        }
    }

    /** Deletions that a pop's seek stepped over, per pop, once earlier pops left thousands at the set's start. */
    @Test
    void popsStepOverFewDeletionsHoweverManyCameBefore() {
        try (Harness h = new Harness(dir)) {
            fill(h, 10_000);
            for (int i = 0; i < 4_000; i++) {
                h.run("spop s");
                h.run("zpopmin z");
            }
            // without the ends each pop stepped over every earlier pop's deletion: some 4,000 each
            assertThat(skippedPerPop(h, "spop s")).as("deletions SPOP stepped over").isLessThan(20);
            assertThat(skippedPerPop(h, "zpopmin z")).as("deletions ZPOPMIN stepped over").isLessThan(20);
        }
    }

    private static long skippedPerPop(Harness h, String pop) {
        RocksDB db = h.ks.db();
        db.setPerfLevel(PerfLevel.ENABLE_COUNT);
        PerfContext perf = db.getPerfContext();
        perf.reset();
        for (int i = 0; i < 1_000; i++) {
            h.run(pop);
        }
        long skipped = perf.getInternalDeleteSkippedCount();
        db.setPerfLevel(PerfLevel.DISABLE);
        return skipped / 1_000;
    }
}
