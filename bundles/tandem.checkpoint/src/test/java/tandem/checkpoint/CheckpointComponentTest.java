package tandem.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.osgi.util.converter.Converters;

import tandem.api.checkpoint.Checkpoints;
import tandem.api.store.Keyspace;
import tandem.api.store.Reply;
import tandem.store.StoreComponent;

/**
 * The service over a real store: a cut streams into a receive on another "node", which stages a checkpoint the
 * other store installs with the same digest; what a crash leaves under the root is gone at the next activation.
 */
@Timeout(60)
class CheckpointComponentTest {

    private static final String ID = "0123456789abcdef0123456789abcdef01234567";

    @TempDir
    Path tmp;

    private static CheckpointComponent checkpoints(Path home) {
        return new CheckpointComponent(Converters.standardConverter().convert(Map.of())
                .to(CheckpointComponent.Config.class), () -> home);
    }

    private static StoreComponent store(Path home) {
        return new StoreComponent(Converters.standardConverter().convert(Map.of())
                .to(StoreComponent.Config.class), () -> home);
    }

    private static void deactivate(StoreComponent store) {
        try {
            Method m = StoreComponent.class.getDeclaredMethod("deactivate");
            m.setAccessible(true);
            m.invoke(store);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }

    private static final Reply DISCARD = (Reply) Proxy.newProxyInstance(Reply.class.getClassLoader(),
            new Class<?>[] {Reply.class}, (proxy, method, args) -> proxy);

    private static void fill(Keyspace k, int n) {
        for (int i = 1; i <= n; i++) {
            byte[][] set = {b("SET"), b("key" + i), b("value-" + i)};
            k.apply(i, 1_700_000_000_000_000_000L, k.resolve(set), DISCARD);
        }
        k.commit(); // as the pipeline does once its journal holds them
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    @Test
    void aCutStreamsIntoAReceiveWhoseStagedCheckpointInstallsAsTheSameStore() throws IOException {
        Path primaryHome = tmp.resolve("primary");
        Path replicaHome = tmp.resolve("replica");
        StoreComponent primaryStore = store(primaryHome);
        StoreComponent replicaStore = store(replicaHome);
        try {
            fill(primaryStore, 2000);
            CheckpointComponent primary = checkpoints(primaryHome);
            primary.keyspace = primaryStore;
            CheckpointComponent replica = checkpoints(replicaHome);

            ByteArrayOutputStream wire = new ByteArrayOutputStream();
            long length;
            Path cutDir;
            try (Checkpoints.Cut cut = primary.cut("replica/key+==")) {
                assertThat(cut.appliedSequence()).isEqualTo(2000);
                length = cut.streamLength(ID, 777);
                assertThat(cut.send(ID, 777, Channels.newChannel(wire))).isEqualTo(length);
                try (var dirs = Files.list(primary.root())) {
                    cutDir = dirs.filter(p -> p.getFileName().toString().startsWith("fullsync_")).findFirst()
                            .orElseThrow();
                }
                assertThat(cutDir.getFileName().toString()).isEqualTo("fullsync_replica-key---_1");
            }
            assertThat(Files.exists(cutDir)).as("deleted when the transfer ends").isFalse();
            fill(primaryStore, 0);

            byte[] bytes = wire.toByteArray();
            assertThat((long) bytes.length).isEqualTo(length);
            Checkpoints.Staged staged;
            try (Checkpoints.Receive receive = replica.receive(length)) {
                boolean done = false;
                for (int at = 0; at < bytes.length; at += 1000) { // arrives in pieces
                    done = receive.feed(ByteBuffer.wrap(bytes, at, Math.min(1000, bytes.length - at)));
                }
                assertThat(done).isTrue();
                assertThat(receive.progress().bytes()).isEqualTo(length);
                assertThat(receive.progress().totalBytes()).isEqualTo(length);
                staged = receive.commit();
            }
            assertThat(staged.replicationId()).isEqualTo(ID);
            assertThat(staged.replicationOffset()).isEqualTo(777);
            replicaStore.install(staged.directory(), 2000, new byte[32]);
            assertThat(replicaStore.digest()).isEqualTo(primaryStore.digest());
            assertThat(replicaStore.appliedSequence()).isEqualTo(2000);
        } finally {
            deactivate(primaryStore);
            deactivate(replicaStore);
        }
    }

    @Test
    void aCorruptedByteIsDetectedAndNothingIsStaged() throws IOException {
        Path home = tmp.resolve("p");
        StoreComponent s = store(home);
        try {
            fill(s, 100);
            CheckpointComponent c = checkpoints(home);
            c.keyspace = s;
            ByteArrayOutputStream wire = new ByteArrayOutputStream();
            long length;
            try (Checkpoints.Cut cut = c.cut("r")) {
                length = cut.streamLength(ID, 0);
                cut.send(ID, 0, Channels.newChannel(wire));
            }
            byte[] bytes = wire.toByteArray();
            bytes[bytes.length / 2] ^= 0x40; // inside a file's data
            Path other = tmp.resolve("r");
            CheckpointComponent receiver = checkpoints(other);
            try (Checkpoints.Receive receive = receiver.receive(length)) {
                assertThatThrownBy(() -> receive.feed(ByteBuffer.wrap(bytes))).isInstanceOf(IOException.class)
                        .hasMessageContaining("checksum mismatch");
                assertThatThrownBy(receive::commit).isInstanceOf(IllegalStateException.class);
            }
            assertThat(Files.exists(receiver.root().resolve("incoming"))).isFalse();
            assertThat(Files.exists(receiver.root().resolve("staged"))).isFalse();
        } finally {
            deactivate(s);
        }
    }

    @Test
    void aSaveKeepsOneWholeCopyThatOpensAsTheStoreAtItsSequence() throws IOException {
        Path home = tmp.resolve("s");
        StoreComponent s = store(home);
        Path copyHome = tmp.resolve("copy");
        StoreComponent copy = store(copyHome);
        try {
            fill(s, 500);
            CheckpointComponent c = checkpoints(home);
            c.keyspace = s;
            Checkpoints.Saved first = c.save();
            assertThat(first.appliedSequence()).isEqualTo(500);
            assertThat(first.directory()).isEqualTo(c.root().resolve("saved"));
            assertThat(Files.readString(first.directory().resolve("SAVED")))
                    .startsWith("applied_sequence=500\nsaved_at=" + first.epochSecond() + "\n");
            byte[] digestAt500 = s.digest();
            for (int i = 501; i <= 700; i++) {
                s.apply(i, 1_700_000_000_000_000_000L, s.resolve(new byte[][] {b("SET"), b("key" + i), b("v")}),
                        DISCARD);
            }
            s.commit();
            Checkpoints.Saved second = c.save(); // replaces the first
            assertThat(second.appliedSequence()).isEqualTo(700);
            try (var files = Files.list(c.root())) {
                assertThat(files.map(p -> p.getFileName().toString())).containsExactly("saved");
            }
            // the copy is a store: installed elsewhere, it is the saved store at its sequence
            Path staged = tmp.resolve("staged-copy");
            copyTree(second.directory(), staged);
            copy.install(staged, 700, new byte[32]);
            assertThat(copy.digest()).isEqualTo(s.digest()).isNotEqualTo(digestAt500);
        } finally {
            deactivate(s);
            deactivate(copy);
        }
    }

    private static void copyTree(Path from, Path to) throws IOException {
        try (var files = Files.walk(from)) {
            for (Path p : (Iterable<Path>) files::iterator) {
                Path target = to.resolve(from.relativize(p).toString());
                if (Files.isDirectory(p)) {
                    Files.createDirectories(target);
                } else {
                    Files.copy(p, target);
                }
            }
        }
    }

    @Test
    void aSaveWithoutAStoreIsRefused() {
        assertThatThrownBy(() -> checkpoints(tmp.resolve("e")).save()).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("no store is active");
    }

    @Test
    void aCutWithoutAStoreIsRefusedAndLeftoversAreDeletedAtActivation() throws IOException {
        Path home = tmp.resolve("n");
        CheckpointComponent c = checkpoints(home);
        assertThatThrownBy(() -> c.cut("r")).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("no store is active");
        for (String left : new String[] {"fullsync_x_3", "incoming", "staged", "discarded", "saving", "unsaved"}) {
            Files.createDirectories(c.root().resolve(left).resolve("sub"));
            Files.writeString(c.root().resolve(left).resolve("sub/f"), "x");
        }
        Files.writeString(c.root().resolve("operator-notes.txt"), "kept");
        CheckpointComponent again = checkpoints(home);
        try (var files = Files.list(again.root())) {
            assertThat(files.map(p -> p.getFileName().toString())).containsExactly("operator-notes.txt");
        }
    }
}
