package tandem.system;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The built distribution has Felix's shape, its tarball matches it, and the features name exactly its bundles. */
@Timeout(60)
class DistributionLayoutSystemTest {

    private static final Pattern BUNDLE_ID = Pattern.compile("\\{\\s*\"id\"\\s*:\\s*\"([^\"]+)\"\\s*}");

    private final Path dist = TandemNode.dist();

    @Test
    void hasFelixShape() throws IOException {
        assertThat(dist.resolve("bin/tandem")).isExecutable();
        assertThat(dist.resolve("bin/felix.jar")).isRegularFile();
        assertThat(dist.resolve("bin/tandem-launcher.jar")).isRegularFile();
        for (String dir : List.of("bundle", "deploy", "system", "etc", "features", "data")) {
            assertThat(dist.resolve(dir)).isDirectory();
        }
        assertThat(dist.resolve("etc/config.properties")).isRegularFile();
        assertThat(dist.resolve("etc/logging.properties")).isRegularFile();
        assertThat(dist.resolve("etc/tandem.server.cfg")).isRegularFile();
        // the bundles config.properties starts first, by file name, are the ones bundle/ holds
        Matcher first = Pattern.compile("file:\\$\\{tandem\\.dist\\}/(bundle/[^ \\\\\\s]+\\.jar)")
                .matcher(Files.readString(dist.resolve("etc/config.properties")));
        int named = 0;
        while (first.find()) {
            assertThat(dist.resolve(first.group(1))).as("named in etc/config.properties").isRegularFile();
            named++;
        }
        assertThat(named).isEqualTo(2);
    }

    @Test
    void featuresNameExactlyTheBundlesOfTheDistribution() throws IOException {
        List<String> fromFeatures = new ArrayList<>();
        try (Stream<Path> features = Files.list(dist.resolve("features"))) {
            for (Path feature : features.filter(p -> p.toString().endsWith(".json")).toList()) {
                String json = Files.readString(feature);
                assertThat(json).as(feature + " has its version filled in").doesNotContain("@VERSION@");
                Matcher m = BUNDLE_ID.matcher(json);
                while (m.find()) {
                    fromFeatures.add(jarName(m.group(1)));
                }
            }
        }
        // the runtime, what a fresh home installs, and the opt-in features' bundles, which only system/ holds
        java.util.Set<String> jars = new java.util.TreeSet<>();
        for (String dir : List.of("bundle", "deploy", "system")) {
            try (Stream<Path> s = Files.walk(dist.resolve(dir))) {
                s.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".jar")).forEach(jars::add);
            }
        }
        assertThat(jars).anyMatch(n -> n.startsWith("tandem.transport.dpdk-"));
        assertThat(fromFeatures).doesNotHaveDuplicates().containsExactlyInAnyOrderElementsOf(jars);
    }

    @Test
    void theRepositoryHoldsEveryBundleOfDeployInMavensLayout() throws IOException {
        try (Stream<Path> s = Files.list(dist.resolve("deploy"))) {
            for (Path jar : s.toList()) {
                String name = jar.getFileName().toString();
                Matcher m = Pattern.compile("(.+)-(\\d+\\.\\d+\\.\\d+(?:-SNAPSHOT)?)\\.jar").matcher(name);
                assertThat(m.matches()).as(name).isTrue();
                Path inRepository = dist.resolve("system/dev/tandem/" + m.group(1) + "/" + m.group(2) + "/" + name);
                assertThat(inRepository).as("feature:install's copy of " + name).hasSameBinaryContentAs(jar);
            }
        }
        assertThat(dist.resolve("deploy")).isDirectoryNotContaining("glob:**/tandem.features-*.jar");
        assertThat(dist.resolve("bundle")).isDirectoryContaining("glob:**/tandem.features-*.jar");
    }

    @Test
    void tarballHoldsTheDistribution() throws IOException {
        Path tarball;
        try (Stream<Path> s = Files.list(dist.getParent())) {
            tarball = s.filter(p -> p.getFileName().toString().matches("tandem-.*\\.tar\\.gz")).findFirst()
                    .orElseThrow();
        }
        TandemNode.Result listing = TandemNode.run(Duration.ofSeconds(30), "tar", "tvzf", tarball.toString());
        assertThat(listing.exit()).isZero();
        assertThat(listing.out()).containsPattern("-rwxr-xr-x .* tandem/bin/tandem\\n");
        assertThat(listing.out()).contains("tandem/bin/felix.jar", "tandem/etc/config.properties",
                "tandem/etc/tandem.server.cfg", "tandem/deploy/tandem.server-", "tandem/bundle/org.apache.felix.scr-",
                "tandem/features/core.json", "tandem/data/README",
                "tandem/system/dev/tandem/tandem.psync/");
        assertThat(listing.out()).doesNotContain("felix-cache", "shell.path");
    }

    /** {@code group:artifact:version} or {@code group:artifact:type:classifier:version} as the exported file name. */
    private static String jarName(String mavenId) {
        String[] p = mavenId.split(":");
        return switch (p.length) {
            case 3 -> p[1] + "-" + p[2] + ".jar";
            case 5 -> p[1] + "-" + p[4] + "-" + p[3] + ".jar";
            default -> throw new IllegalArgumentException("not a Maven id: " + mavenId);
        };
    }
}
