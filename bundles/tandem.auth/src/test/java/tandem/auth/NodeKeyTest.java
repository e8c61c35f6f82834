package tandem.auth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Base64;
import java.util.HexFormat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import tandem.protocol.files.DurableFiles;

@Timeout(20)
class NodeKeyTest {

    /** RFC 8032 section 7.1, TEST 1. */
    private static final byte[] RFC_SECRET =
            hex("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60");
    private static final byte[] RFC_PUBLIC =
            hex("d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a");
    private static final byte[] RFC_SIGNATURE = hex("e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901"
            + "555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b");

    @TempDir
    Path dir;

    @Test
    void reproducesRfc8032TestVector1FromASeedFile() throws Exception {
        Path file = dir.resolve("key");
        DurableFiles.writeAtomically(file, RFC_SECRET, KeyFilePermissions.OWNER_ONLY);
        NodeKey key = NodeKey.loadOrCreate(file, "tandem@rfc");
        assertThat(key.publicKey()).isEqualTo(RFC_PUBLIC);
        assertThat(key.sign(new byte[0])).isEqualTo(RFC_SIGNATURE);
        assertThat(key.line()).isEqualTo("replication " + Base64.getEncoder().encodeToString(RFC_PUBLIC)
                + " tandem@rfc");
        // the missing .pub was written
        assertThat(Files.readString(NodeKey.publicFile(file))).isEqualTo(key.line() + "\n");
    }

    @Test
    void generatesAnOwnerOnlySeedAndAPublicLine() throws Exception {
        Path file = dir.resolve("etc/node_ed25519");
        NodeKey key = NodeKey.generate(file, "tandem@b");
        assertThat(Files.size(file)).isEqualTo(32);
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file))).isEqualTo("rw-------");
        String pub = Files.readString(NodeKey.publicFile(file), StandardCharsets.UTF_8);
        assertThat(pub).endsWith(" tandem@b\n").startsWith("replication ");
        assertThat(Base64.getDecoder().decode(pub.split(" ")[1])).hasSize(32).isEqualTo(key.publicKey());
        assertThat(Files.list(file.getParent())).extracting(p -> p.getFileName().toString())
                .containsExactlyInAnyOrder("node_ed25519", "node_ed25519.pub");
        // the same seed reads back as the same key
        assertThat(NodeKey.loadOrCreate(file, "tandem@b").publicKey()).isEqualTo(key.publicKey());
        // never overwrites
        assertThatThrownBy(() -> NodeKey.generate(file, "x")).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining(file + " exists already");
        Files.delete(file);
        assertThatThrownBy(() -> NodeKey.generate(file, "x")).hasMessageContaining(".pub exists already");
    }

    @Test
    void noGeneratedKeyStartsWithASlashSoThatItsLineSurvivesTheShell() throws Exception {
        // the line is pasted into Gogo (auth:allow), which drops a word starting with "//" as a comment; one key in
        // 64 would start with "/": 200 keys meet one with a probability of 96 % if the generator did not redraw
        for (int i = 0; i < 200; i++) {
            NodeKey key = NodeKey.generate(dir.resolve("k" + i), "c");
            assertThat(key.line().split(" ")[1]).as("key %d", i).doesNotStartWith("/");
        }
    }

    @Test
    void twoGeneratedKeysDiffer() {
        NodeKey a = NodeKey.generate(dir.resolve("a"), "");
        NodeKey b = NodeKey.generate(dir.resolve("b"), "");
        assertThat(a.publicKey()).isNotEqualTo(b.publicKey());
        assertThat(a.line()).doesNotEndWith(" ").matches("replication [A-Za-z0-9+/]{43}=");
    }

    @Test
    void aStalePublicFileIsRewritten() throws Exception {
        Path file = dir.resolve("key");
        DurableFiles.writeAtomically(file, RFC_SECRET, KeyFilePermissions.OWNER_ONLY);
        Files.writeString(NodeKey.publicFile(file), "replication AAAA old\n");
        NodeKey key = NodeKey.loadOrCreate(file, "c");
        assertThat(Files.readString(NodeKey.publicFile(file))).isEqualTo(key.line() + "\n");
    }

    private static byte[] hex(String s) {
        return HexFormat.of().parseHex(s);
    }
}
