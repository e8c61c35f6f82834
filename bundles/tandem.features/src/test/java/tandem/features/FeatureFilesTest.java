package tandem.features;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.Reader;
import java.io.StringReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

import org.apache.felix.feature.impl.FeatureServiceImpl;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.osgi.service.feature.Feature;
import org.osgi.service.feature.FeatureBundle;
import org.osgi.service.feature.FeatureService;

/**
 * The repository's {@code features/*.json}, read by the Felix Feature Service that the node runs: each reads, names
 * itself as its file does, lists each bundle once across all features, and carries the categories
 * {@link FeatureManager} acts on.
 */
@Timeout(30)
class FeatureFilesTest {

    private static final Path FEATURES = Path.of("../../features");
    private final FeatureService service = new FeatureServiceImpl();

    private Map<String, Feature> features() throws IOException {
        Map<String, Feature> out = new TreeMap<>();
        try (Stream<Path> files = Files.list(FEATURES)) {
            for (Path f : files.filter(p -> p.toString().endsWith(".json")).toList()) {
                // as the distribution fills it in
                String json = Files.readString(f).replace("@VERSION@", "0.1.0-SNAPSHOT");
                try (Reader in = new StringReader(json)) {
                    Feature feature = service.readFeature(in);
                    assertThat(feature.getName()).as(f.toString()).contains(
                            f.getFileName().toString().replace(".json", ""));
                    out.put(feature.getName().orElseThrow(), feature);
                }
            }
        }
        return out;
    }

    @Test
    void everyFeatureReadsAndNamesItselfAsItsFile() throws IOException {
        assertThat(features()).containsKeys("core", "store", "transport-tcp", "replication-journal",
                "replication-psync", "checkpoint", "fencing", "shell");
    }

    @Test
    void noBundleBelongsToTwoFeatures() throws IOException {
        List<String> all = new ArrayList<>();
        for (Feature f : features().values()) {
            f.getBundles().stream().map(FeatureBundle::getID).map(Object::toString).forEach(all::add);
        }
        assertThat(all).doesNotHaveDuplicates();
    }

    @Test
    void onlyCoreAndStoreAreRequiredAndTheManagerItselfIsInCore() throws IOException {
        Map<String, Feature> features = features();
        features.forEach((name, f) -> assertThat(f.getCategories().contains(FeatureManager.REQUIRED))
                .as(name).isEqualTo(name.equals("core") || name.equals("store")));
        assertThat(features.get("core").getBundles()).extracting(b -> b.getID().getArtifactId())
                .contains("tandem.features", "org.apache.felix.feature", "jakarta.json");
    }

    @Test
    void configurationsAreReadWithTheirTypes() throws IOException {
        Map<String, Object> psync = features().get("replication-psync").getConfigurations().get("tandem.psync")
                .getValues();
        assertThat(psync).containsEntry("replicaof", "").containsKey("ack.interval.ms");
        assertThat(((Number) psync.get("ack.interval.ms")).longValue()).isEqualTo(1000L);
    }
}
