package tandem.system;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.jar.JarFile;
import java.util.stream.Stream;

import org.junit.jupiter.api.Assumptions;

/**
 * What a test needs from the machine, and what happens when it is missing: a skip is legitimate only where the
 * machine may rightly lack it. In CI ({@code -Dtandem.ci=true}, which {@code .ci/test} passes and the root POM hands
 * to every test JVM) everything {@code .ci/test} installs is there, so a missing prerequisite fails the test instead
 * of skipping it silently.
 */
final class Prerequisites {

    /** Set by {@code .ci/test}: the machine has every package the suite needs. */
    static final boolean CI = Boolean.getBoolean("tandem.ci");

    private Prerequisites() {
    }

    /**
     * DPDK built into the distribution. Where Debian's DPDK development files are installed ({@code pkg-config
     * --exists libdpdk}, which {@code .ci/test} makes sure of) the runtime bundle must carry the native shim, and a
     * DPDK test must run: it fails when the shim is missing. Elsewhere (a machine without DPDK, outside CI) the shim
     * cannot have been built and the test is skipped.
     */
    static void requireDpdk() {
        boolean installed = dpdkInstalled();
        if (!installed && !CI) {
            Assumptions.abort("DPDK's development files are not installed (pkg-config --exists libdpdk): the "
                    + "distribution has no DPDK shim to test");
        }
        assertThat(installed).as("pkg-config --exists libdpdk (.ci/test installs dpdk, libdpdk-dev and pkg-config)")
                .isTrue();
        assertThat(runtimeCarriesTheShim()).as("the DPDK runtime in the distribution's bundle/ carries "
                + "native/linux-x86_64/libtandem-dpx.so: libdpdk is installed, so the build must have built it")
                .isTrue();
    }

    /** @return whether {@code pkg-config} finds DPDK's development files */
    static boolean dpdkInstalled() {
        try {
            return TandemNode.run(Duration.ofSeconds(10), "pkg-config", "--exists", "libdpdk").exit() == 0;
        } catch (IOException e) {
            return false; // no pkg-config: nothing could have built against DPDK
        }
    }

    private static boolean runtimeCarriesTheShim() {
        try (Stream<Path> jars = Files.list(TandemNode.dist().resolve("bundle"))) {
            for (Path jar : jars.filter(j -> j.getFileName().toString().startsWith("tandem.dpdk.runtime-")).toList()) {
                try (JarFile f = new JarFile(jar.toFile())) {
                    return f.getEntry("native/linux-x86_64/libtandem-dpx.so") != null;
                }
            }
            return false;
        } catch (IOException e) {
            throw new AssertionError("cannot read the distribution's bundle/", e);
        }
    }

    /**
     * redis-py 5 or later (RESP3), as {@code .ci/test} unpacks it from Debian trixie's python3-redis into
     * {@code ~/.cache/tandem/python3-redis}: required in CI, a skip elsewhere when it was never unpacked.
     *
     * @return the directory to put on {@code PYTHONPATH}
     */
    static Path requireRedisPy5() {
        Path dir = Path.of(System.getProperty("user.home"), ".cache", "tandem", "python3-redis", "usr", "lib",
                "python3", "dist-packages");
        boolean present = Files.isDirectory(dir.resolve("redis"));
        if (!present && !CI) {
            Assumptions.abort("redis-py 5+ is not unpacked in " + dir + " (.ci/test unpacks trixie's python3-redis)");
        }
        assertThat(present).as("redis-py 5+ in %s (.ci/test unpacks trixie's python3-redis there)", dir).isTrue();
        return dir;
    }
}
