package tandem.auth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.HashMap;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.osgi.util.converter.Converters;

import tandem.api.auth.AuthorizedKey;
import tandem.api.auth.ReplicaAuthorizer.Verdict;

@Timeout(20)
class AuthComponentTest {

    private static final SecureRandom RANDOM = new SecureRandom();

    @TempDir
    Path home;

    private static AuthComponent.Config config(Map<String, Object> props) {
        return Converters.standardConverter().convert(props).to(AuthComponent.Config.class);
    }

    private AuthComponent start(Map<String, Object> props) {
        return new AuthComponent(config(props), () -> home);
    }

    private static byte[] nonce() {
        byte[] n = new byte[32];
        RANDOM.nextBytes(n);
        return n;
    }

    @Test
    void theFirstStartCreatesAnOwnerOnlyKeyAndItsLine() throws Exception {
        AuthComponent c = start(Map.of());
        Path key = home.resolve("etc/replication_ed25519");
        assertThat(c.settings().keyFile()).isEqualTo(key);
        assertThat(c.settings().authorizedKeys()).isEqualTo(home.resolve("etc/authorized_keys"));
        assertThat(Files.size(key)).isEqualTo(32);
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(key))).isEqualTo("rw-------");
        String line = "replication " + Base64.getEncoder().encodeToString(c.publicKey()) + " tandem@"
                + home.getFileName();
        assertThat(c.authorizedKeysLine()).isEqualTo(line);
        assertThat(Files.readString(home.resolve("etc/replication_ed25519.pub"))).isEqualTo(line + "\n");
        assertThat(c.publicKey()).hasSize(32);
        assertThat(c.authorizedKeys()).isEmpty(); // no authorized_keys file: nobody, and no error

        // the next start reads the same key, and rewrites a deleted .pub
        Files.delete(home.resolve("etc/replication_ed25519.pub"));
        AuthComponent again = start(Map.of());
        assertThat(again.publicKey()).isEqualTo(c.publicKey());
        assertThat(Files.readString(home.resolve("etc/replication_ed25519.pub"))).isEqualTo(line + "\n");
    }

    @Test
    void aReplicaWhosePublicLineIsAllowedPassesTheChallenge() throws Exception {
        AuthComponent primary = start(Map.of("reload.check.ms", 0));
        Path replicaHome = Files.createDirectory(home.resolve("replica"));
        AuthComponent replica = new AuthComponent(config(Map.of()), () -> replicaHome);
        byte[] nonce = nonce();
        byte[] signature = replica.sign(nonce);
        assertThat(signature).hasSize(64);
        assertThat(primary.verify(replica.publicKey(), nonce, signature)).isEqualTo(Verdict.UNKNOWN_KEY);

        String[] pub = Files.readString(replicaHome.resolve("etc/replication_ed25519.pub")).strip().split(" ", 3);
        primary.allow(pub[1], pub[2]);
        assertThat(primary.authorizedKeys()).containsExactly(new AuthorizedKey("replication", pub[1], "tandem@replica"));
        assertThat(primary.verify(replica.publicKey(), nonce, signature)).isEqualTo(Verdict.ALLOWED);

        byte[] wrong = signature.clone();
        wrong[5] ^= 1;
        assertThat(primary.verify(replica.publicKey(), nonce, wrong)).isEqualTo(Verdict.BAD_SIGNATURE);
        assertThat(primary.verify(replica.publicKey(), nonce(), signature)).isEqualTo(Verdict.BAD_SIGNATURE);
        // the primary's own key is not authorized
        assertThat(primary.verify(primary.publicKey(), nonce, primary.sign(nonce))).isEqualTo(Verdict.UNKNOWN_KEY);

        assertThat(primary.revoke(pub[1])).isTrue();
        assertThat(primary.verify(replica.publicKey(), nonce, signature)).isEqualTo(Verdict.UNKNOWN_KEY);
        assertThat(primary.revoke(pub[1])).isFalse();
    }

    @Test
    void wrongLengthsAreMalformed() {
        AuthComponent c = start(Map.of());
        byte[] n = nonce();
        byte[] s = c.sign(n);
        byte[] k = c.publicKey();
        assertThat(c.verify(new byte[31], n, s)).isEqualTo(Verdict.MALFORMED);
        assertThat(c.verify(new byte[33], n, s)).isEqualTo(Verdict.MALFORMED);
        assertThat(c.verify(k, new byte[16], s)).isEqualTo(Verdict.MALFORMED);
        assertThat(c.verify(k, n, new byte[63])).isEqualTo(Verdict.MALFORMED);
        assertThat(c.verify(null, n, s)).isEqualTo(Verdict.MALFORMED);
        assertThat(c.verify(k, null, s)).isEqualTo(Verdict.MALFORMED);
        assertThat(c.verify(k, n, null)).isEqualTo(Verdict.MALFORMED);
    }

    @Test
    void editsOfTheFileApplyWithoutARestart() throws Exception {
        AuthComponent primary = start(Map.of("reload.check.ms", 0, "authorized.keys", "conf/ak"));
        AuthComponent replica = new AuthComponent(config(Map.of("key.file", home.resolve("r/key").toString())),
                () -> home);
        byte[] n = nonce();
        Path file = home.resolve("conf/ak");
        Files.createDirectories(file.getParent());
        Files.writeString(file, "# by hand\n" + replica.authorizedKeysLine() + "\n");
        assertThat(primary.verify(replica.publicKey(), n, replica.sign(n))).isEqualTo(Verdict.ALLOWED);
        Files.writeString(file, "# by hand\n");
        assertThat(primary.verify(replica.publicKey(), n, replica.sign(n))).isEqualTo(Verdict.UNKNOWN_KEY);
    }

    @Test
    void aKeyReadableByOthersIsRefusedAndLeftAsItIs() throws Exception {
        Path key = home.resolve("etc/replication_ed25519");
        Files.createDirectories(key.getParent());
        byte[] seed = new byte[32];
        RANDOM.nextBytes(seed);
        Files.write(key, seed);
        Files.setPosixFilePermissions(key, PosixFilePermissions.fromString("rw-r--r--"));
        assertThatThrownBy(() -> start(Map.of())).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining(key.toString()).hasMessageContaining("rw-r--r--")
                .hasMessageContaining("chmod 600");
        assertThat(Files.readAllBytes(key)).isEqualTo(seed);
        assertThat(home.resolve("etc/replication_ed25519.pub")).doesNotExist();

        Files.setPosixFilePermissions(key, PosixFilePermissions.fromString("rw-------"));
        assertThat(start(Map.of()).publicKey()).hasSize(32);
    }

    @Test
    void aKeyOfTheWrongSizeIsRefusedAndLeftAsItIs() throws Exception {
        Path key = home.resolve("k");
        Files.writeString(key, "-----BEGIN OPENSSH PRIVATE KEY-----\n");
        Files.setPosixFilePermissions(key, PosixFilePermissions.fromString("rw-------"));
        assertThatThrownBy(() -> start(Map.of("key.file", "k"))).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining(key.toString()).hasMessageContaining("holds 36 bytes");
        assertThat(Files.readString(key)).isEqualTo("-----BEGIN OPENSSH PRIVATE KEY-----\n");
    }

    @Test
    void invalidValuesNameTheirProperty() {
        assertInvalid(Map.of("reload.check.ms", -1), "tandem.auth: reload.check.ms=-1 is invalid");
        assertInvalid(Map.of("reload.check.ms", 3_600_001), "reload.check.ms=3600001");
        assertInvalid(Map.of("key.file", " "), "key.file= is invalid");
        assertInvalid(Map.of("authorized.keys", ""), "authorized.keys= is invalid");
        assertInvalid(Map.of("authorized.keys", "etc/replication_ed25519"), "is the same file as key.file");
        assertInvalid(Map.of("key.file", "."), "key.file=. is invalid: must name a file");
        assertInvalid(Map.of("key.file", "a\0b"), "key.file=a\0b is invalid: is not a valid path");
    }

    @Test
    void absolutePathsAndTheWorkingDirectoryAsHome() {
        Path abs = home.resolve("x/ak");
        // the home of a framework whose tandem.home is not set
        Path workingDirectory = Path.of("").toAbsolutePath();
        AuthSettings s = AuthSettings.of(config(Map.of("authorized.keys", abs.toString())), () -> workingDirectory);
        assertThat(s.authorizedKeys()).isEqualTo(abs);
        assertThat(s.home()).isEqualTo(Path.of("").toAbsolutePath());
        assertThat(s.keyFile()).isEqualTo(Path.of("etc/replication_ed25519").toAbsolutePath());
    }

    @Test
    void aLiveChangeSwitchesTheAuthorizedKeysFileButNotTheKey() throws Exception {
        AuthComponent c = start(Map.of("reload.check.ms", 0));
        byte[] before = c.publicKey();
        Path other = home.resolve("other_keys");
        AuthComponent replica = new AuthComponent(config(Map.of("key.file", "r/key")), () -> home);
        Files.writeString(other, replica.authorizedKeysLine() + "\n");
        Map<String, Object> live = new HashMap<>();
        live.put("authorized.keys", "other_keys");
        live.put("key.file", "elsewhere/key");
        c.modified(config(live));
        assertThat(c.authorizedKeys()).extracting(AuthorizedKey::base64Key)
                .containsExactly(Base64.getEncoder().encodeToString(replica.publicKey()));
        assertThat(c.publicKey()).isEqualTo(before);
        assertThat(home.resolve("elsewhere")).doesNotExist();
        c.modified(config(Map.of("reload.check.ms", -3))); // refused: the running configuration stays
        assertThat(c.authorizedKeysFile().file()).isEqualTo(other);
    }

    @Test
    void keyGeneratorWritesAPairForAnotherNodeAndNeverOverwrites() throws Exception {
        KeyGeneratorComponent g = new KeyGeneratorComponent(() -> home);
        String line = g.apply("nodes/b_ed25519", "");
        assertThat(line).startsWith("replication ").endsWith(" tandem@b_ed25519");
        assertThat(Files.size(home.resolve("nodes/b_ed25519"))).isEqualTo(32);
        assertThat(Files.readString(home.resolve("nodes/b_ed25519.pub"))).isEqualTo(line + "\n");
        assertThatThrownBy(() -> g.apply("nodes/b_ed25519", "x")).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("exists already");
        assertThat(g.apply(home.resolve("c").toString(), "node c")).endsWith(" node c");
        // the new key signs as a node started on it
        AuthComponent b = new AuthComponent(config(Map.of("key.file", "nodes/b_ed25519")), () -> home);
        assertThat(b.authorizedKeysLine()).startsWith(line.substring(0, "replication ".length() + 44));
    }

    private void assertInvalid(Map<String, Object> props, String message) {
        assertThatThrownBy(() -> AuthSettings.of(config(props), () -> home))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(message);
    }
}
