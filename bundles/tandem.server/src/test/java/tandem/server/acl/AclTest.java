package tandem.server.acl;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The ACL model without a server: the ACL file's all-or-nothing load and its errors, the checks' corner cases, and
 * random rule sequences, whose descriptions must give the same user back (Redis panics when they would not) and
 * whose checks must be the description's. Replies against a real Redis are {@code AclSystemTest}'s.
 */
@Timeout(60)
class AclTest {

    private final Acl acl = new Acl(AclCatalog.get());

    @TempDir
    Path dir;

    private static byte[][] args(String... a) {
        byte[][] out = new byte[a.length][];
        for (int i = 0; i < a.length; i++) {
            out[i] = a[i].getBytes(StandardCharsets.ISO_8859_1);
        }
        return out;
    }

    private Denial check(String user, String... command) {
        byte[][] a = args(command);
        return acl.check(acl.user(user), acl.catalog().resolve(a), a);
    }

    @Test
    void theAclFileLoadsAllOrNothing() throws Exception {
        Path file = dir.resolve("users.acl");
        Files.writeString(file, "user alice on >a ~a:* +get\n\nuser bob on nopass +@all ~*\n");
        assertThat(acl.load(file)).isNull();
        assertThat(acl.users()).extracting(User::name).containsExactly("alice", "bob", "default");
        assertThat(acl.user("default").describe()).isEqualTo("on nopass ~* &* +@all");

        Files.writeString(file, "user carol on\nnotuser x\nuser carol off\nuser dan on (~x +get\nuser eve +nosuch "
                + "%Q~x\n");
        String errors = acl.load(file);
        assertThat(errors).contains(file + ":2 should start with user keyword followed by the username. ")
                .contains("WARNING: Duplicate user 'carol' found on line 3. ")
                .contains(file + ":4: Unmatched parenthesis in selector definition.")
                .contains(file + ":5: Error in applying operation '+nosuch': Unknown command or category name in ACL. ")
                .contains(file + ":5: Syntax error. ")
                .endsWith("WARNING: ACL errors detected, no change to the previously active ACL rules was performed");
        assertThat(acl.users()).extracting(User::name).containsExactly("alice", "bob", "default");
        assertThat(acl.load(dir.resolve("missing.acl"))).startsWith("Error loading ACLs, opening file '");

        acl.save(file);
        assertThat(Files.readString(file)).isEqualTo(String.join("\n", acl.list()) + "\n");
        assertThat(acl.load(file)).isNull();
    }

    @Test
    void checksFollowRedisOnKeysChannelsFirstArgumentsAndSelectors() {
        assertThat(acl.setUser("u", List.of("on", "nopass", "%R~r*", "%W~w*", "+@all", "&ch*", "-debug"))).isNull();
        assertThat(check("u", "get", "r1")).isNull();
        assertThat(check("u", "get", "w1")).isEqualTo(new Denial(Denial.KEY, 1));
        assertThat(check("u", "set", "w1", "v")).isNull();
        // COPY reads its source and writes its destination; the later key is named when both are refused
        assertThat(check("u", "copy", "r1", "w1")).isNull();
        assertThat(check("u", "copy", "w1", "r1")).isEqualTo(new Denial(Denial.KEY, 1));
        assertThat(check("u", "publish", "ch1", "m")).isNull();
        assertThat(check("u", "publish", "other", "m")).isEqualTo(new Denial(Denial.CHANNEL, 1));
        // a pattern subscription must be one of the user's patterns exactly
        assertThat(check("u", "psubscribe", "ch*")).isNull();
        assertThat(check("u", "psubscribe", "ch1*")).isEqualTo(new Denial(Denial.CHANNEL, 1));
        assertThat(check("u", "auth", "x")).as("no_auth commands are never refused").isNull();

        assertThat(acl.setUser("s", List.of("on", "-@all", "+select|0", "(~x", "+get)"))).isNull();
        assertThat(check("s", "select", "0")).isNull();
        assertThat(check("s", "select", "1")).isEqualTo(new Denial(Denial.COMMAND, 0));
        assertThat(check("s", "get", "x")).isNull();
        assertThat(check("s", "get", "y")).isEqualTo(new Denial(Denial.KEY, 1));
        assertThat(acl.user("s").describe()).isEqualTo("on resetchannels -@all +select|0 (~x resetchannels -@all +get)");

        assertThat(acl.setUser("x", List.of("(~a"))).isEqualTo("ERR Unmatched parenthesis in acl selector starting "
                + "at '(~a'.");
        assertThat(acl.delUsers(List.of("u", "default"))).isEqualTo(-1);
        assertThat(acl.user("u")).isNotNull();
        assertThat(acl.delUsers(List.of("u", "nosuch"))).isEqualTo(1);
    }

    @Test
    void theDefaultUsersPasswordIsRequirepass() {
        assertThat(acl.authRequired()).isFalse();
        acl.requirePass("s3cret");
        assertThat(acl.authRequired()).isTrue();
        assertThat(acl.authenticate("default", "s3cret".getBytes(StandardCharsets.UTF_8))).isNotNull();
        assertThat(acl.authenticate("default", "wrong".getBytes(StandardCharsets.UTF_8))).isNull();
        acl.requirePass(null);
        assertThat(acl.user("default").describe()).isEqualTo("on nopass ~* &* +@all");
        assertThat(Acl.genpass(5)).hasSize(2).matches("[0-9a-f]+");
        assertThat(Acl.genpass(256)).hasSize(64);
    }

    /**
     * Random users: their description, set again as rules on a new user, describes that user the same, and decides
     * every command of a sample the same. Capped at 300 users.
     */
    @Test
    void descriptionsGiveTheSameUserBack() {
        Random random = new Random(31);
        List<String> vocabulary = new ArrayList<>(List.of("on", "off", "nopass", "resetpass", ">p1", ">p2", "<p1",
                "allkeys", "resetkeys", "allchannels", "resetchannels", "allcommands", "nocommands", "reset",
                "~k:*", "%R~r:*", "%W~w:*", "%RW~b:*", "&ch:*", "&news", "+select|0", "+select|3", "+client|id",
                "-client", "+config|get", "-config|set", "+debug|object", "clearselectors", "(~s:* +get)",
                "(+set ~x &y)"));
        for (String c : AclCatalog.CATEGORIES) {
            vocabulary.add("+@" + c);
            vocabulary.add("-@" + c);
        }
        for (String c : List.of("get", "set", "del", "keys", "flushall", "acl", "acl|setuser", "object|encoding",
                "sort", "blpop", "publish", "subscribe", "eval", "xadd", "sentinel")) {
            vocabulary.add("+" + c);
            vocabulary.add("-" + c);
        }
        List<String[]> sample = List.of(new String[] {"get", "k:1"}, new String[] {"get", "r:1"},
                new String[] {"set", "w:1", "v"}, new String[] {"set", "b:1", "v"}, new String[] {"select", "0"},
                new String[] {"select", "1"}, new String[] {"client", "id"}, new String[] {"client", "list"},
                new String[] {"config", "get", "x"}, new String[] {"config", "set", "x", "y"},
                new String[] {"publish", "news", "m"}, new String[] {"subscribe", "ch:1"},
                new String[] {"acl", "setuser", "x"}, new String[] {"object", "encoding", "k:1"},
                new String[] {"eval", "return 1", "0"}, new String[] {"flushall"}, new String[] {"set", "x", "v"});
        for (int n = 0; n < 300; n++) {
            List<String> rules = new ArrayList<>();
            for (int k = random.nextInt(12); k >= 0; k--) {
                rules.add(vocabulary.get(random.nextInt(vocabulary.size())));
            }
            String name = "u" + n;
            String error = acl.setUser(name, rules);
            if (error != null) {
                assertThat(error).as("%s", rules).startsWith("ERR Error in ACL SETUSER modifier '");
                continue;
            }
            String description = acl.user(name).describe();
            String copy = "c" + n;
            assertThat(acl.setUser(copy, tokens(description))).as("%s -> %s", rules, description).isNull();
            assertThat(acl.user(copy).describe()).as("%s", rules).isEqualTo(description);
            for (String[] command : sample) {
                assertThat(check(copy, command)).as("%s of %s", Arrays.toString(command), rules)
                        .isEqualTo(check(name, command));
            }
        }
    }

    /** A description as the rules of ACL SETUSER for a new user: its words, a selector in parentheses one rule. */
    private static List<String> tokens(String description) {
        List<String> out = new ArrayList<>();
        StringBuilder selector = null;
        for (String word : description.split(" ")) {
            if (selector != null) {
                selector.append(' ').append(word);
                if (word.endsWith(")")) {
                    out.add(selector.toString());
                    selector = null;
                }
            } else if (word.startsWith("(") && !word.endsWith(")")) {
                selector = new StringBuilder(word);
            } else if (!word.isEmpty()) {
                out.add(word);
            }
        }
        return out;
    }
}
