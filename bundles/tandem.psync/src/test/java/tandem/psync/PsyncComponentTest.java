package tandem.psync;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.lang.reflect.Proxy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.osgi.framework.BundleContext;
import org.osgi.service.cm.ConfigurationAdmin;
import org.osgi.util.converter.Converters;

import tandem.api.journal.Journal;
import tandem.api.replication.ReplicationHub;

/** The component on a primary, activated over the identity file it finds in its state directory. */
@Timeout(10)
class PsyncComponentTest {

    @TempDir
    Path home;

    /** @return a {@code type} whose methods {@code answered} return nothing (null, void); any other is a failure */
    @SuppressWarnings("unchecked")
    private static <T> T proxy(Class<T> type, String... answered) {
        Set<String> names = Set.of(answered);
        return (T) Proxy.newProxyInstance(PsyncComponentTest.class.getClassLoader(), new Class<?>[] {type},
                (p, method, args) -> {
                    if (!names.contains(method.getName())) {
                        throw new UnsupportedOperationException(type.getSimpleName() + "." + method.getName());
                    }
                    return null;
                });
    }

    /** A primary's component (no {@code replicaof}) whose identity is kept in {@code state}. */
    private PsyncComponent activate(Path state) throws IOException {
        PsyncComponent.Config config = Converters.standardConverter()
                .convert(Map.of("state.directory", state.toString())).to(PsyncComponent.Config.class);
        BundleContext context = proxy(BundleContext.class);
        Journal journal = proxy(Journal.class, "addDurabilityListener", "removeDurabilityListener");
        ReplicationHub hub = proxy(ReplicationHub.class, "upstreamProtocol"); // none: a primary
        return new PsyncComponent(config, context, () -> home, journal, hub, proxy(ConfigurationAdmin.class));
    }

    /**
     * FM-REPLICATION-021: a damaged {@code state} is set aside as {@code state.damaged}, byte for byte, and a fresh
     * identity (a new id that claims no history of any replica) is written in its place and used; the node starts.
     */
    @Test
    void aDamagedIdentityFileIsSetAsideAndAFreshIdentityIsWrittenAndUsed() throws IOException {
        Path state = Files.createDirectories(home.resolve("data/psync"));
        Files.writeString(state.resolve(Identity.FILE), "replid=xyz\nepoch=4\n");
        PsyncComponent psync = activate(state);
        try {
            assertThat(state.resolve(Identity.FILE + ".damaged")).hasContent("replid=xyz\nepoch=4\n");
            Identity used = psync.identity();
            assertThat(Identity.isId(used.replicationId())).isTrue();
            assertThat(used).as("a fresh identity").isEqualTo(new Identity(used.replicationId(), Identity.NONE, -1,
                    0));
            assertThat(Identity.load(state)).as("written in the damaged file's place").isEqualTo(used);
        } finally {
            psync.deactivate();
        }
    }

    /** The set-aside is for a damaged file only: an intact one is the identity the node uses, and stays. */
    @Test
    void anIntactIdentityFileIsUsedAsItIs() throws IOException {
        Path state = Files.createDirectories(home.resolve("data/psync"));
        Identity promoted = Identity.fresh(0).promoted(12);
        promoted.store(state);
        PsyncComponent psync = activate(state);
        try {
            assertThat(psync.identity()).isEqualTo(promoted);
            assertThat(state.resolve(Identity.FILE + ".damaged")).doesNotExist();
        } finally {
            psync.deactivate();
        }
    }
}
