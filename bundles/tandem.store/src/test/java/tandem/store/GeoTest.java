package tandem.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the golden transcript ({@code geo.golden}) does not show: which geo writes are refused before they are
 * journaled, and the score encoding's edges. The replies themselves are Redis's, compared in
 * {@link GoldenRepliesTest}.
 */
@Timeout(30)
class GeoTest {

    @TempDir
    Path dir;

    @Test
    void aSearchIsJournaledAndAnswersInRedisOrderWhileAWrongGeoaddIsRefused() {
        try (Harness h = new Harness(dir)) {
            h.run("set s x");
            long applied = h.ks.appliedSequence();
            // Redis looks the source up before it reads an argument (a missing one is a keymiss event), so a search
            // is never refused before it is journaled
            assertThat(h.ks.check(Harness.bytes("georadius", "s", "200", "0", "1", "km"), h.nowNs())).isNull();
            // Redis looks at the key first
            assertThat(h.run("georadius s 200 0 1 km"))
                    .isEqualTo("-WRONGTYPE Operation against a key holding the wrong kind of value\\r\\n");
            assertThat(h.run("geosearchstore d s fromlonlat 0 0 byradius 1 km withdist"))
                    .isEqualTo("-WRONGTYPE Operation against a key holding the wrong kind of value\\r\\n");
            assertThat(h.run("geoadd s 0 100 m"))
                    .isEqualTo("-ERR invalid longitude,latitude pair 0.000000,100.000000\\r\\n");
            assertThat(h.ks.appliedSequence()).as("the two searches journaled, not GEOADD").isEqualTo(applied + 2);
        }
    }

    @Test
    void whatDependsOnTheSourceIsNotRefused() {
        try (Harness h = new Harness(dir)) {
            h.run("set dst x");
            // without a source, GEORADIUSBYMEMBER reads no radius and a member is never looked up
            assertThat(h.ks.check(Harness.bytes("georadiusbymember", "nokey", "m", "abc", "yd", "store", "dst"),
                    h.nowNs())).isNull();
            assertThat(h.ks.check(Harness.bytes("geosearchstore", "dst", "nokey", "frommember", "m", "byradius",
                    "1", "km"), h.nowNs())).isNull();
            assertThat(h.run("georadiusbymember nokey m abc yd store dst")).isEqualTo(":0\\r\\n");
            assertThat(h.run("exists dst")).as("the target is deleted, as an empty result does").isEqualTo(":0\\r\\n");
        }
    }

    @Test
    void aSearchWithoutStoreIsAWriteAsInRedisAndChangesNothing() {
        try (Harness h = new Harness(dir)) {
            h.run("geoadd g 13.361389 38.115556 Palermo");
            byte[] digest = h.ks.digest();
            long applied = h.ks.appliedSequence();
            assertThat(h.run("georadius g 13 38 100 km")).isEqualTo("*1\\r\\n$7\\r\\nPalermo\\r\\n");
            assertThat(h.ks.appliedSequence()).isEqualTo(applied + 1);
            assertThat(h.ks.digest()).isEqualTo(digest);
            assertThat(h.ks.describe("georadius_ro").write()).isFalse();
            assertThat(h.ks.describe("georadius").flags()).contains("movablekeys");
        }
    }

    @Test
    void theScoreInterleavesLatitudeOnTheEvenBits() {
        Geohash.Bits origin = Geohash.encodeWgs84(0, 0, Geohash.STEP_MAX);
        // both halves of each range are at 2^25: the top bits of latitude (bit 50) and longitude (bit 51)
        assertThat(Geohash.align52(origin)).isEqualTo(3L << 50);
        assertThat(Geohash.deinterleave(Geohash.interleave(0x3ffffffL, 0x1234567L)))
                .isEqualTo(0x1234567L << 32 | 0x3ffffffL);
        double[] back = Geohash.decodeScore(Geohash.align52(origin));
        assertThat(back[0]).isBetween(0.0, 1e-5);
        assertThat(back[1]).isBetween(0.0, 1e-5);
    }

    @Test
    void distancesPrintAsFixedpointD2string() {
        assertThat(new String(GeoCommands.distanceText(0.0))).isEqualTo("0.0000");
        assertThat(new String(GeoCommands.distanceText(0.00005))).isEqualTo("0.0000"); // llrint: half to even
        assertThat(new String(GeoCommands.distanceText(166274.1516))).isEqualTo("166274.1516");
        assertThat(new String(GeoCommands.distanceText(Double.NaN))).isEqualTo("-922337203685477.5808");
        assertThat(GeoCommands.fixed6(-0.0)).isEqualTo("-0.000000");
        assertThat(GeoCommands.fixed6(0.0078125)).isEqualTo("0.007812");
    }
}
