package tandem.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Writes refused before they are sequenced: what {@link RocksKeyspace#check} decides and what the refusal answers. */
@Timeout(30)
class RefusalTest {

    @TempDir
    Path dir;

    @Test
    void theSetrangeOverflowThatOnceThrewInsideApplyIsRefusedBeforeSequencing() {
        try (Harness h = new Harness(dir)) {
            byte[][] overflow = Harness.bytes("SETRANGE", "K", "9223372036854775807", "A");
            assertThat(h.ks.check(overflow, h.nowNs()))
                    .isEqualTo("ERR string exceeds maximum allowed size (proto-max-bulk-len)");
            byte[][] negative = Harness.bytes("SETRANGE", "K", "-9223372036854775808", "9223372036854775807");
            assertThat(h.ks.check(negative, h.nowNs())).isEqualTo("ERR offset is out of range");
            // and, were such an entry journaled by an older node, its apply answers the error instead of throwing
            RespRecorder r = new RespRecorder();
            h.ks.apply(1, h.nowNs(), overflow, r);
            assertThat(r.escaped()).isEqualTo("-ERR string exceeds maximum allowed size (proto-max-bulk-len)\\r\\n");
            assertThat(h.ks.appliedSequence()).isEqualTo(1);
        }
    }

    @Test
    void aStringLargerThanAQuarterOfTheHeapIsRefusedButTheTypeErrorComesFirstAsInRedis() {
        long offset = StringCommands.MAX_BUILD; // one byte more than this node builds
        assertThat(offset).as("the surefire heap makes the bound smaller than Redis'")
                .isLessThan(StringCommands.MAX_STRING);
        try (Harness h = new Harness(dir)) {
            assertThat(h.run("setrange s " + offset + " a"))
                    .isEqualTo("-ERR string exceeds maximum allowed size (proto-max-bulk-len)\\r\\n");
            assertThat(h.run("hset h f v")).isEqualTo(":1\\r\\n");
            assertThat(h.run("setrange h " + offset + " a"))
                    .isEqualTo("-WRONGTYPE Operation against a key holding the wrong kind of value\\r\\n");
            assertThat(h.ks.appliedSequence()).as("only the HSET was applied").isEqualTo(1);
        }
    }

    @Test
    void aBitmapLargerThanAQuarterOfTheHeapIsRefusedWhereRedisChecksItsOffsetBound() {
        long bit = StringCommands.MAX_BUILD * 8; // its byte is one past what this node builds
        String tooLong = "-ERR string exceeds maximum allowed size (proto-max-bulk-len)\\r\\n";
        try (Harness h = new Harness(dir)) {
            h.run("hset h f v");
            long applied = h.ks.appliedSequence();
            assertThat(h.run("setbit s " + bit + " 1")).isEqualTo(tooLong);
            assertThat(h.run("setbit s " + (bit - 1) + " 2"))
                    .isEqualTo("-ERR bit is not an integer or out of range\\r\\n");
            // Redis bounds the offset before it looks at the key: so does the node's bound
            assertThat(h.run("setbit h " + bit + " 1")).isEqualTo(tooLong);
            assertThat(h.run("bitfield s set u8 " + (bit - 4) + " 1")).isEqualTo(tooLong);
            assertThat(h.run("bitfield s get u8 0 incrby i8 #" + StringCommands.MAX_BUILD + " 1")).isEqualTo(tooLong);
            assertThat(h.run("bitfield s set u8 " + (bit - 4) + " 1 get u99 0")).as("the whole list is parsed first")
                    .startsWith("-ERR Invalid bitfield type");
            assertThat(h.ks.appliedSequence()).as("nothing was applied").isEqualTo(applied);
            // reading that far builds nothing: a GET-only BITFIELD and GETBIT answer 0
            assertThat(h.run("bitfield s get u8 " + bit)).isEqualTo("*1\\r\\n:0\\r\\n");
            assertThat(h.run("getbit s " + bit)).isEqualTo(":0\\r\\n");
            assertThat(h.run("exists s")).isEqualTo(":0\\r\\n");
        }
    }

    @Test
    void bitopsOperationAndNotArityAreRefusedBeforeSequencingInRedisOrder() {
        try (Harness h = new Harness(dir)) {
            h.run("hset h f v");
            long applied = h.ks.appliedSequence();
            assertThat(h.ks.check(Harness.bytes("bitop", "nand", "d", "h"), h.nowNs())).isEqualTo("ERR syntax error");
            assertThat(h.run("bitop nand d h")).isEqualTo("-ERR syntax error\\r\\n");
            assertThat(h.run("bitop not d h h"))
                    .isEqualTo("-ERR BITOP NOT must be called with a single source key.\\r\\n");
            assertThat(h.ks.appliedSequence()).isEqualTo(applied);
            assertThat(h.run("bitop not d h"))
                    .isEqualTo("-WRONGTYPE Operation against a key holding the wrong kind of value\\r\\n");
            assertThat(h.ks.appliedSequence()).as("a type error needs the keyspace: applied").isEqualTo(applied + 1);
        }
    }

    @Test
    void aRefusedWriteIsAnsweredFromThePresentStateAndWritesNothing() {
        try (Harness h = new Harness(dir)) {
            h.run("set k v px 1000");
            h.nowMs += 5000; // k has expired: a refusal must not delete it, reads never write
            byte[] before = h.ks.digest();
            assertThat(h.run("incrbyfloat k inf")).isEqualTo("-ERR increment would produce NaN or Infinity\\r\\n");
            assertThat(h.ks.digest()).isEqualTo(before);
            assertThat(h.ks.tx().batch.count()).isZero();
        }
    }
}
