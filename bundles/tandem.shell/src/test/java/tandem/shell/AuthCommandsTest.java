package tandem.shell;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import tandem.api.auth.AuthorizedKey;
import tandem.api.auth.NodeIdentity;
import tandem.api.auth.ReplicaAuthorizer;

/** The commands as Gogo parses and calls them, over fake services. */
@Timeout(20)
class AuthCommandsTest {

    private static final String KEY = "11qYAYKxCrfVS/7TyWQHOg7hcvPapiMlrwIaaPcHURo=";

    private final List<String> calls = new ArrayList<>();
    private final AuthCommands commands = new AuthCommands();
    private final Gogo gogo = new Gogo("auth", commands, "keygen", "list", "allow", "revoke");

    @AfterEach
    void close() {
        gogo.close();
    }

    private Object run(String line) throws Exception {
        return gogo.run(line);
    }

    @Test
    void withoutTheServicesEveryCommandSaysSo() throws Exception {
        for (String line : List.of("auth:keygen", "auth:keygen f", "auth:list", "auth:allow " + KEY,
                "auth:revoke " + KEY)) {
            assertThat(run(line)).asString().startsWith("auth: not active");
        }
    }

    @Test
    void allowTakesAKeyOrAPastedLine() throws Exception {
        commands.authorizer = fakeAuthorizer();
        assertThat(run("auth:allow " + KEY)).isEqualTo("allowed for replication: " + KEY);
        assertThat(run("auth:allow " + KEY + " node b")).isEqualTo("allowed for replication: " + KEY);
        assertThat(run("auth:allow replication " + KEY + " tandem@node-b")).isEqualTo(
                "allowed for replication: " + KEY);
        assertThat(calls).containsExactly("allow " + KEY + " []", "allow " + KEY + " [node b]",
                "allow " + KEY + " [tandem@node-b]");
        assertThatThrownBy(() -> run("auth:allow operator " + KEY)).hasMessageContaining("only replication keys");
        assertThat(run("auth:revoke " + KEY)).isEqualTo("revoked: " + KEY);
        assertThat(run("auth:revoke AAAA")).isEqualTo("not authorized, nothing revoked: AAAA");
        assertThat(run("auth:list")).isEqualTo("replication " + KEY + " node b" + System.lineSeparator()
                + "operator " + KEY);
    }

    @Test
    void keygenPrintsTheNodeLineOrMakesAKeyForAnotherNode() throws Exception {
        commands.identity = new NodeIdentity() {
            @Override
            public byte[] publicKey() {
                return new byte[32];
            }

            @Override
            public byte[] sign(byte[] message) {
                return new byte[64];
            }

            @Override
            public String authorizedKeysLine() {
                return "replication " + KEY + " tandem@a";
            }
        };
        commands.keyGenerator = (file, comment) -> file + "|" + comment;
        assertThat(run("auth:keygen")).isEqualTo("replication " + KEY + " tandem@a");
        assertThat(run("auth:keygen etc/b_ed25519")).isEqualTo("etc/b_ed25519|");
        assertThat(run("auth:keygen etc/b_ed25519 node b")).isEqualTo("etc/b_ed25519|node b");
    }

    private ReplicaAuthorizer fakeAuthorizer() {
        return new ReplicaAuthorizer() {
            @Override
            public Verdict verify(byte[] publicKey, byte[] nonce, byte[] signature) {
                return Verdict.UNKNOWN_KEY;
            }

            @Override
            public List<AuthorizedKey> authorizedKeys() {
                return List.of(new AuthorizedKey("replication", KEY, "node b"), new AuthorizedKey("operator", KEY,
                        ""));
            }

            @Override
            public void allow(String base64Key, String comment) {
                calls.add("allow " + base64Key + " [" + comment + "]");
            }

            @Override
            public boolean revoke(String base64Key) {
                return base64Key.equals(KEY);
            }
        };
    }
}
