package tandem.dpdk.internal;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Pattern;

/**
 * The EAL arguments of this process: the configured {@code eal.args}, or when that is empty a default made for a JVM
 * on a machine without hugepages or a dedicated NIC.
 *
 * <p>Why each default: {@code --lcores=0@(cpus)} makes the init thread lcore 0 floating over every CPU this process
 * may use (an {@code -l 0} would pin it and every thread it starts); {@code --no-huge} because hugepages are rarely
 * reserved; {@code --no-pci} so that no NIC is ever touched; {@code -m 256} bounds DPDK's memory (mapped lazily);
 * {@code --no-shconf} because {@code --in-memory} is refused with {@code --no-huge} and no secondary process exists;
 * {@code --no-telemetry} because nothing reads it.
 */
final class EalArguments {

    static final String FIXED = "--no-huge --no-pci -m 256 --no-shconf --no-telemetry";

    private static final Pattern CPU_LIST = Pattern.compile("\\d+(-\\d+)?(,\\d+(-\\d+)?)*");

    private EalArguments() {
    }

    /** @return {@code configured} trimmed, or the default when it is null or blank */
    static String resolve(String configured) {
        if (configured != null && !configured.isBlank()) {
            return configured.strip();
        }
        return "--lcores=0@(" + allowedCpus() + ") " + FIXED;
    }

    /**
     * @return the CPUs this process may run on as an EAL cpu set ({@code 0-3} or {@code 0,2-3}): the kernel's
     *         {@code Cpus_allowed_list}, because a cpuset that does not start at 0 would make EAL fail to set
     *         affinity; {@code 0-(availableProcessors-1)} when that cannot be read
     */
    static String allowedCpus() {
        try {
            List<String> status = Files.readAllLines(Path.of("/proc/self/status"));
            String list = cpusAllowed(status);
            if (list != null) {
                return list;
            }
        } catch (IOException | RuntimeException e) {
            // not Linux or /proc not mounted: the processor count is the best guess left
        }
        int n = Runtime.getRuntime().availableProcessors();
        return n <= 1 ? "0" : "0-" + (n - 1);
    }

    static String cpusAllowed(List<String> status) {
        for (String line : status) {
            if (line.startsWith("Cpus_allowed_list:")) {
                String list = line.substring("Cpus_allowed_list:".length()).strip();
                return CPU_LIST.matcher(list).matches() ? list : null;
            }
        }
        return null;
    }
}
