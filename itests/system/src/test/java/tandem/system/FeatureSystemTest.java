package tandem.system;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;

import redis.clients.jedis.Jedis;

import tandem.testsupport.Await;

/**
 * {@code feature:*} on real nodes: a psync primary and its replica. {@code feature:list} names every feature of the
 * distribution; uninstalling and installing {@code replication-psync} on the primary under writes drops no client,
 * loses nothing and the replica continues with {@code +CONTINUE}; a feature's configuration is created and deleted
 * with it, and what is installed survives a restart; unknown names, required features, missing bundles and a
 * second feature for an exclusive slot are refused with the reason. One cluster for the class; tests run in order.
 */
@Timeout(300)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class FeatureSystemTest {

    private static TandemNode primary;
    private static TandemNode replica;

    @BeforeAll
    static void start() throws IOException {
        primary = TandemNode.start("feature-primary", "--replication-port", Integer.toString(TandemNode.freePort()));
        // the replica reads a copy of the features with three more: two for one exclusive slot, one whose bundle
        // the repository does not hold
        Path home = TandemNode.newHome("feature-replica");
        Path features = Files.createDirectories(home.resolve("features"));
        try (Stream<Path> files = Files.list(TandemNode.dist().resolve("features"))) {
            for (Path f : files.toList()) {
                Files.copy(f, features.resolve(f.getFileName()));
            }
        }
        for (String slot : List.of("slot-a", "slot-b")) {
            Files.writeString(features.resolve(slot + ".json"), feature(slot, "\"categories\": [\"exclusive:test\"],",
                    "org.osgi:org.osgi.util.converter:1.0.9"));
        }
        Files.writeString(features.resolve("absent.json"), feature("absent", "", "dev.tandem:tandem.nothing:1.0.0"));
        replica = TandemNode.start(home, TandemNode.freePort(), Map.of(), "--replication-port",
                Integer.toString(TandemNode.freePort()), "--config", "tandem.psync:reconnect.max.ms=300",
                "--config", "tandem.features:features.directory=" + features);
        assertThat(cli(replica, "REPLICAOF", "127.0.0.1", Integer.toString(primary.port()))).isEqualTo("OK");
        awaitLinkUp();
    }

    private static String feature(String name, String categories, String bundle) {
        return "{ \"feature-resource-version\": \"1.0\", \"id\": \"test:" + name + ":1.0.0\", \"name\": \"" + name
                + "\", " + categories + " \"bundles\": [ { \"id\": \"" + bundle + "\" } ] }";
    }

    @AfterAll
    static void stop() throws Exception {
        PerClass.closeAll(primary, replica);
    }

    @Test
    @Order(1)
    void featureListNamesEveryFeatureOfTheDistributionAllStartedButTheOptInDpdkTransport() throws IOException {
        Set<String> files = new TreeSet<>();
        Pattern name = Pattern.compile("\"name\"\\s*:\\s*\"([^\"]+)\"");
        try (Stream<Path> fs = Files.list(TandemNode.dist().resolve("features"))) {
            for (Path f : fs.toList()) {
                Matcher m = name.matcher(Files.readString(f));
                assertThat(m.find()).as("%s has a name", f).isTrue();
                files.add(m.group(1));
            }
        }
        assertThat(files).contains("core", "store", "replication-psync", "replication-journal", "transport-tcp");
        Map<String, String> states = list(primary);
        assertThat(states.keySet()).isEqualTo(files);
        // DPDK polls a core per link: a fresh home does not install it
        assertThat(states).containsEntry("transport-dpdk", "Uninstalled");
        states.remove("transport-dpdk");
        assertThat(states.values()).containsOnly("Started");
    }

    @Test
    @Order(2)
    void uninstallingAndInstallingReplicationPsyncUnderWritesLosesNothingAndTheReplicaContinues() throws Exception {
        int continued = count(replica.log(), "+CONTINUE at offset");
        List<Writer> writers = Writer.start("feat", 2, primary::port);
        writers.forEach(w -> w.awaitProgress(50));

        TandemNode.Result out = primary.shell("feature:uninstall replication-psync");
        assertThat(out.exit()).as(out.err()).isZero();
        assertThat(out.out()).contains("2 bundle(s) removed (tandem.psync, tandem.frpl)");
        assertThat(list(primary)).containsEntry("replication-psync", "Uninstalled");
        Await.until("the replica sees its link down", Duration.ofSeconds(30),
                () -> !"up".equals(replica.info("replication").get("master_link_status")));
        writers.forEach(w -> w.awaitProgress(50)); // the primary serves on without psync

        out = primary.shell("feature:install replication-psync");
        assertThat(out.exit()).as(out.err()).isZero();
        assertThat(out.out()).contains("2 bundle(s) installed");
        assertThat(list(primary)).containsEntry("replication-psync", "Started");
        awaitLinkUp();
        Await.until("the replica continued", Duration.ofSeconds(60),
                () -> count(replica.log(), "+CONTINUE at offset") > continued);
        writers.forEach(w -> w.awaitProgress(50));
        Writer.haltAll(writers, false); // their connections never dropped
        assertThat(primary.stat("sync_full")).as("the reinstalled bundle served no full sync").isZero();
        awaitConverged();
        try (Jedis jedis = new Jedis("127.0.0.1", replica.port())) {
            for (Writer w : writers) {
                assertThat(jedis.get(w.prefix + ":" + w.acked.get())).isEqualTo(Long.toString(w.acked.get()));
                assertThat(Long.parseLong(jedis.get(w.prefix + ":count"))).isGreaterThanOrEqualTo(w.countAcked.get());
            }
        }
    }

    @Test
    @Order(3)
    void aFeaturesConfigurationIsCreatedAndDeletedWithItAndWhatIsInstalledSurvivesARestart() throws Exception {
        Files.delete(replica.home().resolve("etc/tandem.fencing.cfg")); // FileInstall deletes that configuration
        Await.until("the fencing configuration is gone", Duration.ofSeconds(20),
                () -> {
                    try {
                        return replica.shell("feature:info fencing").out().contains("tandem.fencing: absent");
                    } catch (IOException e) {
                        return false;
                    }
                });
        Path required = replica.home().resolve("data/node/admissions.required");
        assertThat(Files.readString(required)).as("the fence, required after a restart too")
                .contains("tandem.fencing quorum fence (tandem.fencing)");
        assertThat(shellOut(replica, "feature:uninstall fencing")).contains("1 bundle(s) removed (tandem.fencing)");
        assertThat(replica.home().resolve("deploy").toFile().list()).noneMatch(f -> f.startsWith("tandem.fencing"));
        Await.until("the fence given up is no longer required at a restart", Duration.ofSeconds(20),
                () -> !readQuietly(required).contains("tandem.fencing"));
        assertThat(shellOut(replica, "feature:install fencing")).contains("configurations created: tandem.fencing");
        Await.until("the fence is required again", Duration.ofSeconds(20),
                () -> readQuietly(required).contains("tandem.fencing"));
        // the journal protocol's transport: a psync replica does not use it
        assertThat(shellOut(replica, "feature:uninstall transport-tcp")).contains("(tandem.transport.tcp)");

        replica.stop();
        replica.restart();
        awaitLinkUp();
        Map<String, String> states = list(replica);
        assertThat(states).containsEntry("transport-tcp", "Uninstalled").containsEntry("fencing", "Started");
        assertThat(shellOut(replica, "feature:info fencing")).contains("tandem.fencing: created by this feature");
        assertThat(shellOut(replica, "feature:uninstall fencing")).contains("configurations deleted: tandem.fencing");
        assertThat(shellOut(replica, "feature:info fencing")).contains("tandem.fencing: absent");
        assertThat(shellOut(replica, "feature:install transport-tcp")).contains("(tandem.transport.tcp)");
        assertThat(shellOut(replica, "feature:install fencing")).contains("configurations created: tandem.fencing");
        assertThat(list(replica)).containsEntry("transport-tcp", "Started").containsEntry("fencing", "Started");
        assertThat(shellOut(replica, "feature:install fencing")).isEqualTo("feature fencing is already installed");
    }

    @Test
    @Order(4)
    void unknownRequiredMissingAndExclusiveAreRefusedWithTheReason() throws IOException {
        assertRefused(primary, "feature:install nosuch", "no feature named nosuch in ");
        assertRefused(primary, "feature:info nosuch", "no feature named nosuch in ");
        assertRefused(primary, "feature:uninstall core", "feature core is required");
        assertRefused(primary, "feature:uninstall store", "feature store is required");
        assertRefused(replica, "feature:install absent", "dev.tandem:tandem.nothing:1.0.0 is in neither ");
        // both name an installed runtime bundle, so both count as installed: the second is refused for the slot
        assertRefused(replica, "feature:install slot-b", "it serves test, which the installed feature slot-a serves");
        assertThat(primary.shell("help feature:install").out()).contains("installs a feature");
        assertThat(cli(primary, "PING")).isEqualTo("PONG");
    }

    private static void assertRefused(TandemNode node, String command, String reason) throws IOException {
        TandemNode.Result r = node.shell(command);
        assertThat(r.exit()).as("%s: %s", command, r.out()).isEqualTo(1);
        assertThat(r.out() + r.err()).contains(reason);
    }

    /** feature:list as name to state. */
    private static Map<String, String> list(TandemNode node) throws IOException {
        Map<String, String> out = new java.util.TreeMap<>();
        String[] lines = shellOut(node, "feature:list").split("\r?\n");
        for (int i = 1; i < lines.length; i++) {
            String[] cols = lines[i].split("\\|");
            out.put(cols[0].trim(), cols[3].trim());
        }
        return out;
    }

    private static String shellOut(TandemNode node, String command) throws IOException {
        TandemNode.Result r = node.shell(command);
        assertThat(r.exit()).as("%s: %s", command, r.err()).isZero();
        return r.out().trim();
    }

    private static String cli(TandemNode node, String... args) throws IOException {
        TandemNode.Result r = node.redisCli(args);
        assertThat(r.exit()).as(r.err()).isZero();
        return r.out().trim();
    }

    private static void awaitLinkUp() {
        Await.until("the replica streams", Duration.ofSeconds(60),
                () -> "up".equals(replica.info("replication").get("master_link_status")));
    }

    private static void awaitConverged() {
        Await.until("the replica at the primary's offset and digest", Duration.ofSeconds(60), () -> {
            try {
                String p = primary.info("replication").get("master_repl_offset");
                return p != null && p.equals(replica.info("replication").get("master_repl_offset"))
                        && primary.digest().equals(replica.digest())
                        && p.equals(primary.info("replication").get("master_repl_offset"));
            } catch (IOException e) {
                return false;
            }
        });
    }

    private static int count(String log, String text) {
        return log.split(Pattern.quote(text), -1).length - 1;
    }

    private static String readQuietly(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            return "";
        }
    }
}
