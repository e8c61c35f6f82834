package tandem.dpdk.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.net.URL;
import java.net.URLClassLoader;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Where the shim was not built, the runtime still activates and says why DPDK is unavailable. The runtime's classes
 * run here in a class loader that hides the native libraries, as a bundle built without libdpdk-dev would: so the
 * test runs whether or not this build made the shim (it never loads it).
 */
@Timeout(10)
class NoNativeTest {

    @Test
    void theRuntimeSaysTheLibraryWasNotBuilt() throws Exception {
        URL classes = DpdkRuntimeComponent.class.getProtectionDomain().getCodeSource().getLocation();
        try (URLClassLoader withoutShim = new URLClassLoader(new URL[] {classes},
                ClassLoader.getPlatformClassLoader()) {
            @Override
            public URL findResource(String name) {
                return name.startsWith(Native.RESOURCES.substring(1)) ? null : super.findResource(name);
            }
        }) {
            Class<?> component = withoutShim.loadClass(DpdkRuntimeComponent.class.getName());
            Constructor<?> constructor = component.getDeclaredConstructor(String.class);
            constructor.setAccessible(true);
            Object runtime = constructor.newInstance("");
            assertThat(component.getMethod("unavailableReason").invoke(runtime)).isEqualTo(Native.NOT_BUILT);
            assertThat((String) component.getMethod("ealArguments").invoke(runtime)).endsWith(EalArguments.FIXED);
            assertThatThrownBy(() -> invoke(component.getMethod("openMemif", String.class, boolean.class), runtime,
                    "/tmp/x.sock", true)).isInstanceOf(IOException.class)
                    .hasMessage("DPDK is unavailable: " + Native.NOT_BUILT);
            var deactivate = component.getDeclaredMethod("deactivate");
            deactivate.setAccessible(true);
            deactivate.invoke(runtime);
        }
    }

    private static Object invoke(java.lang.reflect.Method method, Object target, Object... args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }
}
