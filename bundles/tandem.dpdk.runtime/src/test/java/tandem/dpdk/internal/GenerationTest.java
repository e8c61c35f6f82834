package tandem.dpdk.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static tandem.dpdk.internal.TestDpdk.awaitLinkUp;
import static tandem.dpdk.internal.TestDpdk.frame;
import static tandem.dpdk.internal.TestDpdk.exchange;
import static tandem.dpdk.internal.TestDpdk.socketPath;

import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import tandem.dpdk.MemifPort;

/**
 * A second class loader stands in for the bundle generation after an update: it must load its own copy of the JNI
 * glue, find the process's EAL up, and open ports on it that link with ports of the first generation.
 */
@Timeout(60)
class GenerationTest {

    @Test
    void aSecondGenerationReusesTheProcesssEal() throws Exception {
        DpdkRuntimeComponent gen1 = TestDpdk.runtime();
        URL classes = DpdkRuntimeComponent.class.getProtectionDomain().getCodeSource().getLocation();
        try (URLClassLoader loader = new URLClassLoader(new URL[] {classes}, ClassLoader.getPlatformClassLoader())) {
            Class<?> component = loader.loadClass(DpdkRuntimeComponent.class.getName());
            assertThat(component).isNotSameAs(DpdkRuntimeComponent.class);
            Constructor<?> constructor = component.getDeclaredConstructor(String.class);
            constructor.setAccessible(true);
            Object gen2 = constructor.newInstance("--lcores=0@(0) --no-huge -m 64");
            assertThat(component.getMethod("unavailableReason").invoke(gen2)).isNull();
            assertThat(component.getMethod("ealArguments").invoke(gen2)).isEqualTo(gen1.ealArguments());

            String socket = socketPath("generation");
            Object port2 = component.getMethod("openMemif", String.class, boolean.class).invoke(gen2, socket, true);
            MemifPort server = adapt(port2, loader.loadClass(MemifPort.class.getName()));
            try (MemifPort client = gen1.openMemif(socket, false)) {
                try {
                    assertThat(server.name()).isNotEqualTo(client.name());
                    awaitLinkUp(server, client);
                    List<byte[]> frames = List.of(frame(64, 1), frame(1500, 2));
                    assertThat(exchange(client, server, frames)).containsExactlyElementsOf(frames);
                    assertThat(exchange(server, client, frames)).containsExactlyElementsOf(frames);
                } finally {
                    server.close();
                }
            }
        }
    }

    /** @return {@code port}, a MemifPort of the other generation, seen through this generation's interface */
    private static MemifPort adapt(Object port, Class<?> itsInterface) {
        return (MemifPort) Proxy.newProxyInstance(MemifPort.class.getClassLoader(), new Class<?>[] {MemifPort.class},
                (proxy, method, args) -> {
                    Method target = method.getDeclaringClass() == Object.class ? method
                            : itsInterface.getMethod(method.getName(), method.getParameterTypes());
                    try {
                        return target.invoke(port, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }
}
