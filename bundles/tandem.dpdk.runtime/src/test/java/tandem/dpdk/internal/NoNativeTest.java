package tandem.dpdk.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Where the shim was not built, the runtime still activates and says why DPDK is unavailable. */
@Timeout(10)
class NoNativeTest {

    @Test
    void theRuntimeSaysTheLibraryWasNotBuilt() {
        Assumptions.assumeFalse(TestDpdk.NATIVE, "the shim was built: NoNativeTest applies to builds without it");
        DpdkRuntimeComponent runtime = new DpdkRuntimeComponent("");
        assertThat(runtime.unavailableReason()).isEqualTo(Native.NOT_BUILT);
        assertThat(runtime.ealArguments()).endsWith(EalArguments.FIXED);
        assertThatThrownBy(() -> runtime.openMemif("/tmp/x.sock", true)).isInstanceOf(IOException.class)
                .hasMessage("DPDK is unavailable: " + Native.NOT_BUILT);
        runtime.deactivate();
    }
}
