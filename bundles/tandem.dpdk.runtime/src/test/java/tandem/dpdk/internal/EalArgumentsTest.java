package tandem.dpdk.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The default EAL arguments; pure Java, runs everywhere. */
@Timeout(10)
class EalArgumentsTest {

    @Test
    void blankMeansTheDefaultOverTheAllowedCpus() {
        String d = EalArguments.resolve("");
        assertThat(EalArguments.resolve(null)).isEqualTo(d);
        assertThat(EalArguments.resolve("  \t")).isEqualTo(d);
        assertThat(d).isEqualTo("--lcores=0@(" + EalArguments.allowedCpus() + ") --no-huge --no-pci -m 256 "
                + "--no-shconf --no-telemetry");
        assertThat(EalArguments.allowedCpus()).matches("\\d+([-,]\\d+)*");
    }

    @Test
    void configuredArgumentsAreTakenAsTheyAre() {
        assertThat(EalArguments.resolve("  -l 1 --no-huge ")).isEqualTo("-l 1 --no-huge");
    }

    @Test
    void cpusAllowedListIsReadFromProcStatus() {
        assertThat(EalArguments.cpusAllowed(List.of("Name:\tjava", "Cpus_allowed:\t3", "Cpus_allowed_list:\t0-1")))
                .isEqualTo("0-1");
        assertThat(EalArguments.cpusAllowed(List.of("Cpus_allowed_list:\t0,2-3,8"))).isEqualTo("0,2-3,8");
        assertThat(EalArguments.cpusAllowed(List.of("Cpus_allowed_list:\t"))).isNull();
        assertThat(EalArguments.cpusAllowed(List.of("Name:\tjava"))).isNull();
    }
}
