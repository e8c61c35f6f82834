package tandem.auth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import tandem.api.auth.AuthorizedKey;

@Timeout(20)
class AuthorizedKeysFileTest {

    private static final String A = key(1);
    private static final String B = key(2);
    private static final String C = key(3);

    @TempDir
    Path dir;

    private final AtomicLong clock = new AtomicLong();

    @Test
    void parsesKeysSkippingCommentsBlankAndMalformedLinesWithTheirNumbers() {
        List<String> lines = List.of(
                "# replicas of the primary",
                "",
                "   ",
                "replication " + A + " node b  (rack 2)",
                "operator " + B,
                "replication not*base64",
                "admin " + C + " unknown permission",
                "replication " + Base64.getEncoder().encodeToString(new byte[31]) + " short",
                "replication",
                "readonly " + A + " listed twice",
                "\treplication   " + C + "   ");
        AuthorizedKeysFile.Parsed p = AuthorizedKeysFile.parse("ak", lines);
        assertThat(p.keys()).containsExactly(
                new AuthorizedKey("replication", A, "node b  (rack 2)"),
                new AuthorizedKey("operator", B, ""),
                new AuthorizedKey("replication", C, ""));
        assertThat(p.problems()).hasSize(5);
        assertThat(p.problems().get(0)).startsWith("ak:6: the key is not standard base64").endsWith("line skipped");
        assertThat(p.problems().get(1)).startsWith("ak:7: unknown permission 'admin'");
        assertThat(p.problems().get(2)).startsWith("ak:8: the key is 31 bytes");
        assertThat(p.problems().get(3)).startsWith("ak:9: no key after the permission");
        assertThat(p.problems().get(4)).startsWith("ak:10: the key is listed already at line 4");
    }

    @Test
    void aMissingFileAuthorizesNothing() {
        AuthorizedKeysFile f = new AuthorizedKeysFile(dir.resolve("none"), 0, clock::get);
        assertThat(f.keys()).isEmpty();
        assertThat(f.replicationKey(Base64.getDecoder().decode(A))).isFalse();
    }

    @Test
    void onlyTheReplicationPermissionGrantsReplication() throws Exception {
        Path file = dir.resolve("ak");
        Files.writeString(file, "replication " + A + "\noperator " + B + "\n");
        AuthorizedKeysFile f = new AuthorizedKeysFile(file, 0, clock::get);
        assertThat(f.replicationKey(Base64.getDecoder().decode(A))).isTrue();
        assertThat(f.replicationKey(Base64.getDecoder().decode(B))).isFalse();
        assertThat(f.replicationKey(Base64.getDecoder().decode(C))).isFalse();
    }

    @Test
    void reReadsTheFileWhenItChangesAtMostOncePerInterval() throws Exception {
        Path file = dir.resolve("ak");
        Files.writeString(file, "replication " + A + "\n");
        FileTime t0 = FileTime.fromMillis(1_000_000);
        Files.setLastModifiedTime(file, t0);
        AuthorizedKeysFile f = new AuthorizedKeysFile(file, 1000, clock::get);
        assertThat(f.keys()).extracting(AuthorizedKey::base64Key).containsExactly(A);

        Files.writeString(file, "replication " + B + "\n"); // same size
        Files.setLastModifiedTime(file, FileTime.fromMillis(2_000_000));
        clock.addAndGet(TimeUnit.MILLISECONDS.toNanos(999));
        assertThat(f.keys()).extracting(AuthorizedKey::base64Key).containsExactly(A); // not yet checked
        clock.addAndGet(TimeUnit.MILLISECONDS.toNanos(1));
        assertThat(f.keys()).extracting(AuthorizedKey::base64Key).containsExactly(B);

        Files.delete(file);
        clock.addAndGet(TimeUnit.SECONDS.toNanos(1));
        assertThat(f.replicationKey(Base64.getDecoder().decode(B))).isFalse();

        Files.writeString(file, "replication " + C + "\n");
        clock.addAndGet(TimeUnit.SECONDS.toNanos(1));
        assertThat(f.replicationKey(Base64.getDecoder().decode(C))).isTrue();
    }

    @Test
    void anUnchangedStampIsNotReRead() throws Exception {
        Path file = dir.resolve("ak");
        Files.writeString(file, "replication " + A + "\n");
        FileTime t = FileTime.fromMillis(1_000_000);
        Files.setLastModifiedTime(file, t);
        AuthorizedKeysFile f = new AuthorizedKeysFile(file, 0, clock::get);
        // rewritten in place, same size, same time, same inode: taken as unchanged (the documented limit)
        Files.writeString(file, "replication " + B + "\n");
        Files.setLastModifiedTime(file, t);
        assertThat(f.keys()).extracting(AuthorizedKey::base64Key).containsExactly(A);
        Files.setLastModifiedTime(file, FileTime.fromMillis(1_000_001));
        assertThat(f.keys()).extracting(AuthorizedKey::base64Key).containsExactly(B);
    }

    @Test
    void allowAndRevokeRewriteTheFileKeepingCommentsAndOtherLines() throws Exception {
        Path file = dir.resolve("etc/ak");
        Files.createDirectories(file.getParent());
        String original = "# operators\noperator " + B + " alice\n\n# replicas\nreplication bad-line\n";
        Files.writeString(file, original);
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r-----"));
        Object inode = Files.readAttributes(file, java.nio.file.attribute.BasicFileAttributes.class).fileKey();
        AuthorizedKeysFile f = new AuthorizedKeysFile(file, 60_000, clock::get);

        f.allow(A, "  node b \n evil-line ");
        assertThat(Files.readString(file)).isEqualTo(original + "replication " + A + " node b evil-line\n");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file))).isEqualTo("rw-r-----");
        assertThat(Files.readAttributes(file, java.nio.file.attribute.BasicFileAttributes.class).fileKey())
                .isNotEqualTo(inode); // replaced by a rename, not written in place
        assertThat(Files.list(file.getParent())).hasSize(1); // no temp file left
        // seen at once, without waiting for the interval
        assertThat(f.replicationKey(Base64.getDecoder().decode(A))).isTrue();

        f.allow(A, "again"); // no-op
        assertThat(Files.readString(file)).isEqualTo(original + "replication " + A + " node b evil-line\n");

        assertThatThrownBy(() -> f.allow(B, "")).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("with the permission operator");
        assertThatThrownBy(() -> f.allow("AAAA", "")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("3 bytes");
        assertThatThrownBy(() -> f.allow("#!", "")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("not standard base64");

        assertThat(f.revoke(A)).isTrue();
        assertThat(Files.readString(file)).isEqualTo(original);
        assertThat(f.replicationKey(Base64.getDecoder().decode(A))).isFalse();
        assertThat(f.revoke(A)).isFalse();
        assertThat(f.revoke(B)).isTrue();
        assertThat(Files.readString(file)).isEqualTo("# operators\n\n# replicas\nreplication bad-line\n");
    }

    @Test
    void allowCreatesAMissingFileOwnerOnly() throws Exception {
        Path file = dir.resolve("etc/ak");
        AuthorizedKeysFile f = new AuthorizedKeysFile(file, 1000, clock::get);
        f.allow(A, "");
        assertThat(Files.readString(file)).isEqualTo("replication " + A + "\n");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file))).isEqualTo("rw-------");
        assertThat(f.keys()).containsExactly(new AuthorizedKey("replication", A, ""));
    }

    private static String key(int fill) {
        byte[] k = new byte[32];
        java.util.Arrays.fill(k, (byte) fill);
        return Base64.getEncoder().encodeToString(k);
    }
}
