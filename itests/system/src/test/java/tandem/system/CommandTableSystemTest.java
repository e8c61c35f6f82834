package tandem.system;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * {@code COMMAND} lists the keyspace's commands before any store is open: a client library that reads the command
 * table as it connects, while the node starts, sees {@code GET}. Here the store can never open (its directory is a
 * file), which holds the node in the state a start passes through.
 */
@Timeout(60)
class CommandTableSystemTest {

    @Test
    void theCommandTableListsTheKeyspaceWhileNoStoreIsOpen() throws Exception {
        Path home = TandemNode.newHome("no-store");
        Files.createDirectories(home.resolve("data"));
        Files.writeString(home.resolve("data/store"), "not a directory");
        try (TandemNode node = TandemNode.start(home, TandemNode.freePort(), Map.of(), "--config",
                "tandem.node:pause.max.ms=500")) {
            node.expectBindingFailures(); // the store component fails to activate, on purpose
            try (Jedis jedis = new Jedis("127.0.0.1", node.port())) {
                assertThatThrownBy(() -> jedis.get("k")).isInstanceOf(JedisDataException.class)
                        .hasMessageContaining("the store (tandem.store) is not active");
                List<String> names = node.redisCli("COMMAND", "LIST").out().lines().toList();
                assertThat(names).contains("get", "set", "hmset", "zadd", "ping", "command");
                assertThat(names).contains("client|list", "object|encoding"); // the subcommands, by full name
                assertThat(Long.parseLong(node.redisCli("COMMAND", "COUNT").out().trim()))
                        .isEqualTo(names.stream().filter(n -> !n.contains("|")).count());
                // redis-cli without a terminal prints each element of the nested reply on a line of its own
                assertThat(node.redisCli("COMMAND", "INFO", "get").out().lines()).startsWith("get", "2")
                        .contains("readonly");
            }
        }
    }
}
