package tandem.psync;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.lang.reflect.Proxy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
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
        return activate(state, null);
    }

    /** @param upstreamProtocol how the node follows ({@code journal}), or null on a primary */
    private PsyncComponent activate(Path state, String upstreamProtocol) throws IOException {
        PsyncComponent.Config config = Converters.standardConverter()
                .convert(Map.of("state.directory", state.toString())).to(PsyncComponent.Config.class);
        BundleContext context = proxy(BundleContext.class);
        Journal journal = proxy(Journal.class, "addDurabilityListener", "removeDurabilityListener");
        ReplicationHub hub = (ReplicationHub) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {ReplicationHub.class}, (p, method, args) -> switch (method.getName()) {
                    case "upstreamProtocol" -> upstreamProtocol;
                    case "upstream" -> upstreamProtocol == null ? null : "127.0.0.1:7380";
                    default -> throw new UnsupportedOperationException("ReplicationHub." + method.getName());
                });
        return new PsyncComponent(config, context, () -> home, journal, hub, proxy(ConfigurationAdmin.class));
    }

    /**
     * A journal replica's journal is its primary's at the same offsets: it takes the primary's psync id (durably,
     * marked as taken by the journal protocol), and promoted it keeps that id valid up to the end of its journal, so
     * that the former primary's psync replicas continue from it.
     */
    @Test
    void aJournalReplicaTakesItsPrimarysIdAndPromotedKeepsItValidUpToItsJournalsEnd() throws IOException {
        Path state = Files.createDirectories(home.resolve("data/psync"));
        PsyncComponent psync = activate(state, "journal");
        try {
            String r0 = "0123456789abcdef0123456789abcdef01234567";
            psync.followedByJournal(r0.toUpperCase(java.util.Locale.ROOT));
            assertThat(psync.historyId()).isEqualTo(r0);
            assertThat(Identity.load(state)).isEqualTo(new Identity(r0, Identity.NONE, -1, 0, true));
            assertThat(state.resolve(Identity.FILE)).content().contains("via=journal");
            psync.leading(1234);
            Identity led = Identity.load(state);
            assertThat(led.replicationId()).isNotEqualTo(r0).isEqualTo(psync.historyId());
            assertThat(led).isEqualTo(new Identity(led.replicationId(), r0, 1234, 1, false));
            assertThat(led.windowContains(r0, 1234, 5000)).isTrue();
            assertThat(led.windowContains(r0, 1235, 5000)).as("never past what the journal held of it").isFalse();
            psync.followedByJournal(null); // demoted later, and about to receive a snapshot
            assertThat(psync.historyId()).isNull();
            assertThat(Identity.load(state)).isEqualTo(new Identity(Identity.NONE, Identity.NONE, -1, 1, true));
            assertThatThrownBy(() -> psync.followedByJournal("not-an-id"))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not 40 hex digits");
        } finally {
            psync.deactivate();
        }
    }

    /**
     * After the psync protocol was away, a journal replica claims no id until the journal protocol tells it again
     * (a snapshot may have replaced its journal meanwhile), whichever id it held; a node that took its id from the
     * journal protocol and left that role (promoted, made a primary) starts a new history, since the id could claim
     * writes of its own tenure.
     */
    @Test
    void anIdIsNotTrustedAfterThePsyncProtocolWasAwayFromAJournalReplica() throws IOException {
        Path state = Files.createDirectories(home.resolve("data/psync"));
        String r0 = "0123456789abcdef0123456789abcdef01234567";
        for (Identity held : List.of(new Identity(r0, Identity.NONE, -1, 2, true),
                new Identity(r0, "ab".repeat(20), 77, 2, false))) { // its own, from the days it led
            held.store(state);
            PsyncComponent replica = activate(state, "journal");
            replica.deactivate();
            assertThat(replica.historyId()).isNull();
            assertThat(Identity.load(state)).isEqualTo(new Identity(Identity.NONE, Identity.NONE, -1, 2, true));
        }

        new Identity(r0, Identity.NONE, -1, 2, true).store(state);
        PsyncComponent primary = activate(state);
        primary.deactivate();
        Identity fresh = Identity.load(state);
        assertThat(fresh.replicationId()).isNotEqualTo(r0).isEqualTo(primary.historyId());
        assertThat(fresh).isEqualTo(new Identity(fresh.replicationId(), Identity.NONE, -1, 2, false));
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
