package tandem.system;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import redis.clients.jedis.ClientSetInfoConfig;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.commands.ProtocolCommand;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisDataException;
import tandem.testsupport.Await;

/**
 * ACL users against a real Redis 7.0: {@code acl.redis} runs line by line on both servers, each line on its named
 * connection, and every reply is compared: rules and their errors, descriptions ({@code ACL LIST}, {@code GETUSER}),
 * {@code DRYRUN}, and a restricted user refused a command, a key (inside {@code MULTI}, in a blocking command, through
 * {@code SORT}'s patterns and {@code OBJECT}), a channel, with each refusal in {@code ACL LOG}. Then what Redis cannot
 * be compared on: the ACL file, Jedis and Lettuce as users, and a psync replica authenticating as a user that may
 * only replicate.
 */
@Timeout(240)
class AclSystemTest {

    private static RedisProcess redis;
    private static TandemNode tandem;
    private static Path aclFile;

    @BeforeAll
    static void start() throws IOException {
        redis = RedisProcess.start();
        Path home = TandemNode.newHome("acl");
        aclFile = home.resolve("etc/users.acl");
        Files.createDirectories(aclFile.getParent());
        Files.writeString(aclFile, "user default on nopass ~* &* +@all\nuser ops on >ops-pw ~* &* +@all\n");
        tandem = TandemNode.start(home, TandemNode.freePort(), Map.of(), "--config", "tandem.server:aclfile=etc/users.acl");
    }

    @AfterAll
    static void stop() throws Exception {
        PerClass.closeAll(tandem, redis);
    }

    private static Jedis connect(int port) {
        return new Jedis(new HostAndPort("127.0.0.1", port), DefaultJedisClientConfig.builder()
                .clientSetInfoConfig(ClientSetInfoConfig.DISABLED).socketTimeoutMillis(10_000).build());
    }

    @Test
    void everyLineOfTheCorpusAnswersAsRedis() throws IOException {
        List<String> lines;
        try (InputStream in = AclSystemTest.class.getResourceAsStream("/acl.redis")) {
            lines = new String(in.readAllBytes(), StandardCharsets.UTF_8).lines()
                    .filter(l -> !l.isBlank() && !l.startsWith("#")).toList();
        }
        Map<String, Jedis[]> connections = new LinkedHashMap<>();
        List<String> differences = new ArrayList<>();
        try {
            for (String line : lines) {
                char mode = "~%!".indexOf(line.charAt(0)) >= 0 ? line.charAt(0) : ' ';
                String rest = mode == ' ' ? line : line.substring(1);
                int space = rest.indexOf(' ');
                String name = rest.substring(0, space);
                List<String> args = split(rest.substring(space + 1));
                Jedis[] pair = connections.computeIfAbsent(name,
                        n -> new Jedis[] {connect(tandem.port()), connect(redis.port())});
                String t = normalize(send(pair[0], args), mode);
                String r = normalize(send(pair[1], args), mode);
                if (mode != '!' && !t.equals(r)) {
                    differences.add(line + "\n  tandem: " + t + "\n  redis:  " + r);
                }
            }
        } finally {
            connections.values().forEach(p -> {
                p[0].close();
                p[1].close();
            });
        }
        assertThat(differences).as("lines whose replies differ from Redis's").isEmpty();
        assertThat(lines).hasSizeGreaterThan(150);
    }

    private static Object send(Jedis j, List<String> args) {
        ProtocolCommand command = () -> args.get(0).getBytes(StandardCharsets.ISO_8859_1);
        String[] rest = args.subList(1, args.size()).toArray(String[]::new);
        try {
            return j.sendCommand(command, rest);
        } catch (JedisDataException e) {
            return "-" + e.getMessage();
        } catch (JedisConnectionException e) {
            return "CLOSED";
        }
    }

    /** Blanks separate arguments; double quotes hold blanks (the corpus needs no escapes). */
    static List<String> split(String line) {
        List<String> out = new ArrayList<>();
        Matcher m = Pattern.compile("\"([^\"]*)\"|(\\S+)").matcher(line);
        while (m.find()) {
            out.add(m.group(1) != null ? m.group(1) : m.group(2));
        }
        return out;
    }

    private static final Pattern SINGLE = Pattern.compile("[+-][^@ ()][^ ()]*\\)?");

    /** The reply as text, with what may differ between two servers masked or put in order. */
    static String normalize(Object reply, char mode) {
        if (mode == '%') {
            return reply instanceof byte[] b ? "length " + b.length : String.valueOf(render(reply));
        }
        String text = render(reply);
        if (mode == '~' && reply instanceof List<?> list) {
            List<String> items = new ArrayList<>();
            list.forEach(i -> items.add(render(i)));
            items.sort(null);
            text = "[ " + String.join(" ; ", items) + " ]";
        }
        text = text.replaceAll("age-seconds ; [0-9.e-]+", "age-seconds ; AGE")
                .replaceAll("id=\\d+ addr=\\S+ laddr=\\S+ fd=-?\\d+", "id= addr= laddr= fd=")
                .replaceAll("age=\\d+ idle=\\d+", "age= idle=").replaceAll("multi=-?\\d+", "multi=")
                .replaceAll("qbuf=\\d+ qbuf-free=\\d+ argv-mem=\\d+ multi-mem=\\d+ rbs=\\d+ rbp=\\d+ obl=\\d+ oll=\\d+ "
                        + "omem=\\d+ tot-mem=\\d+", "MEM");
        return sortSingles(text);
    }

    /** Sorts each run of single-command rules ({@code +get -keys +client|id}), which Redis emits in hash order. */
    static String sortSingles(String text) {
        String[] tokens = text.split(" ", -1);
        List<String> out = new ArrayList<>();
        List<String> run = new ArrayList<>();
        for (String token : tokens) {
            if (SINGLE.matcher(token).matches() && !token.endsWith(")")) {
                run.add(token);
                continue;
            }
            run.sort(null);
            out.addAll(run);
            run.clear();
            out.add(token);
        }
        run.sort(null);
        out.addAll(run);
        return String.join(" ", out);
    }

    private static String render(Object reply) {
        if (reply instanceof byte[] b) {
            return new String(b, StandardCharsets.ISO_8859_1);
        }
        if (reply instanceof List<?> list) {
            List<String> items = new ArrayList<>();
            list.forEach(i -> items.add(render(i)));
            return "[ " + String.join(" ; ", items) + " ]";
        }
        return String.valueOf(reply);
    }

    @Test
    void theAclFileLoadsAllOrNothingAndSavesWhatIsInEffect() throws IOException {
        try (Jedis admin = connect(tandem.port()); Jedis ops = connect(tandem.port())) {
            Files.writeString(aclFile, "user default on nopass ~* &* +@all\nuser ops on >ops-pw ~* &* +@all\n");
            assertThat(admin.aclLoad()).isEqualTo("OK");
            assertThat(ops.auth("ops", "ops-pw")).isEqualTo("OK");
            assertThat(admin.aclList()).contains("user ops on #" + sha256("ops-pw") + " ~* &* +@all");
            // a broken file changes nothing, and says which line is wrong
            Files.writeString(aclFile, "user default on nopass ~* &* +@all\nuser x on +nosuch\nuser y on\n");
            assertThatThrownBy(() -> admin.aclLoad()).hasMessageContaining(":2: Error in applying operation "
                    + "'+nosuch': Unknown command or category name in ACL.")
                    .hasMessageContaining("WARNING: ACL errors detected, no change to the previously active ACL "
                            + "rules was performed");
            assertThat(admin.aclUsers()).containsExactly("default", "ops");
            // ACL SAVE writes what is in effect; a user set since is in the file, and loads again
            assertThat(admin.aclSetUser("reader", "on", ">r", "%R~*", "+@read", "+acl|whoami")).isEqualTo("OK");
            assertThat(admin.aclSave()).isEqualTo("OK");
            assertThat(Files.readString(aclFile)).contains("user reader on #" + sha256("r")
                    + " %R~* resetchannels -@all +@read +acl|whoami");
            assertThat(admin.aclLoad()).isEqualTo("OK");
            assertThat(admin.aclUsers()).containsExactly("default", "ops", "reader");
            // Jedis and Lettuce as that user: reads pass, writes are refused with Redis's error
            try (Jedis reader = connect(tandem.port())) {
                reader.auth("reader", "r");
                admin.set("k", "v");
                assertThat(reader.get("k")).isEqualTo("v");
                assertThatThrownBy(() -> reader.set("k", "w"))
                        .hasMessage("NOPERM this user has no permissions to run the 'set' command");
            }
            RedisClient lettuce = RedisClient.create(RedisURI.builder().withHost("127.0.0.1")
                    .withPort(tandem.port()).withAuthentication("reader", "r".toCharArray())
                    .withTimeout(Duration.ofSeconds(10)).build());
            try (StatefulRedisConnection<String, String> c = lettuce.connect()) {
                assertThat(c.sync().get("k")).isEqualTo("v");
                assertThat(c.sync().aclWhoami()).isEqualTo("reader");
                assertThatThrownBy(() -> c.sync().del("k")).hasMessageContaining("NOPERM");
            } finally {
                lettuce.shutdown(Duration.ZERO, Duration.ofSeconds(2));
            }
            admin.aclDelUser("reader");
            assertThat(admin.aclSave()).isEqualTo("OK");
        }
    }

    @Test
    void aPsyncReplicaAuthenticatesAsAUserThatMayOnlyReplicate() throws Exception {
        try (Jedis admin = connect(tandem.port())) {
            assertThat(admin.aclSetUser("replicator", "on", ">repl-pw", "+psync", "+replconf", "+ping"))
                    .isEqualTo("OK");
            admin.set("before", "1");
        }
        try (TandemNode replica = TandemNode.start("acl-replica", "--config", "tandem.psync:masteruser=replicator",
                "--config", "tandem.psync:masterauth=repl-pw", "--config", "tandem.psync:reconnect.max.ms=300")) {
            TandemNode.Result ok = replica.redisCli("REPLICAOF", "127.0.0.1", Integer.toString(tandem.port()));
            assertThat(ok.out().trim()).as(ok.err()).isEqualTo("OK");
            JournalCluster.awaitStreaming(replica);
            try (Jedis admin = connect(tandem.port())) {
                admin.set("after", "2");
                Await.until("the replica has both keys", Duration.ofSeconds(30),
                        () -> "2\r\n".equals(value(replica, "after")) && "1\r\n".equals(value(replica, "before")));
                // the replication user can do nothing else
                try (Jedis as = connect(tandem.port())) {
                    as.auth("replicator", "repl-pw");
                    assertThatThrownBy(() -> as.get("after"))
                            .hasMessage("NOPERM this user has no permissions to run the 'get' command");
                }
                // deleting the user closes its connections, the replica's too: it cannot authenticate again
                assertThat(admin.aclDelUser("replicator")).isEqualTo(1);
                Await.until("the replica's link is down", Duration.ofSeconds(30),
                        () -> !"up".equals(JournalCluster.info(replica).get("master_link_status")));
                Await.until("the replica says why", Duration.ofSeconds(30),
                        () -> replica.log().contains("WRONGPASS"));
            }
        }
    }

    /** @return the bulk reply's line of GET key on {@code node}, or null */
    private static String value(TandemNode node, String key) {
        String reply = node.tryExchange("GET " + key + "\r\n");
        return reply == null || !reply.startsWith("$") ? null : reply.substring(reply.indexOf('\n') + 1);
    }

    private static String sha256(String s) {
        try {
            return java.util.HexFormat.of().formatHex(java.security.MessageDigest.getInstance("SHA-256")
                    .digest(s.getBytes(StandardCharsets.ISO_8859_1)));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
