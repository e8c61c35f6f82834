package tandem.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Scripts no node may die of: random compositions of the constructs that reach the edges of Lua and of the binding
 * (errors raised from metamethods and error handlers, error objects of every type, self-referencing and deep
 * replies, coroutines calling Redis, huge strings, recursion, the sandbox's guards) run on one real Lua state; each
 * gets a well-formed reply, and the state keeps answering. A script killed from another thread fails with Redis's
 * error and what it wrote is taken back.
 */
@Timeout(120)
class ScriptFuzzTest {

    /** The constructs; {@code %s} takes a random value. */
    private static final List<String> FRAGMENTS = List.of(
            "return redis.call(%s)",
            "return redis.pcall(%s)",
            "error(%s)",
            "return %s",
            "local t = setmetatable({}, {__index = function() error(%s) end}) return t.x",
            "error(setmetatable({}, {__newindex = function() error('in the handler') end}))",
            "error(setmetatable({err = 'E'}, {__index = function() error('x') end}))",
            "local t = {} t[1] = t return t",
            "local t = {} t.err = t return t",
            "local function f(n) return 1 + f(n + 1) end return f(1)",
            "return string.rep('x', 1000000)",
            "return coroutine.wrap(function() return redis.call('set', 'co', %s) end)()",
            "local co = coroutine.create(function() error({err = 'E'}) end) return {coroutine.resume(co)}",
            "local co = coroutine.create(function() redis.call('incr', 'k') end) return {coroutine.resume(co)}",
            "return pcall(redis.call, 'incr', 'k')",
            "return {pcall(error, %s)}",
            "getmetatable('').__index = nil",
            "setmetatable(_G, nil)",
            "return {err = {}}",
            "return {ok = 1}",
            "return {map = {[{}] = 1, a = %s}}",
            "return {set = {[1.5] = true, x = true}}",
            "return {double = 'x'}",
            "return {verbatim_string = {format = 'txt'}}",
            "return loadstring('\\27Lua')",
            "return load(function() return nil end)",
            "redis.setresp(3) return redis.call('hgetall', 'h')",
            "redis.setresp(3) return {redis.call('zrange', 'z', 0, -1, 'withscores'), redis.call('get', 'nope')}",
            "rawset(_G, 'x', 1) return x",
            "return unpack({}, 1, 1e6)",
            "return string.format('%%s', {})",
            "return math.random(1e10)",
            "redis.call('select', 15) return redis.call('set', 'x', %s)",
            "for i = 1, 300 do redis.call('incr', 'ctr') end return redis.call('get', 'ctr')",
            "return redis.call('hset', 'h', 'f', %s)",
            "return redis.call('zadd', 'z', 1, %s)",
            "return redis.call('rpush', 'k', %s)",
            "return tostring(redis.sha1hex(%s))",
            "redis.log(redis.LOG_WARNING, %s)",
            "return redis.error_reply(%s)",
            "return redis.status_reply(%s)",
            "return _G",
            "return KEYS, ARGV",
            "local s = '' for i = 1, 200 do s = s .. string.char(i %% 256) end return s",
            "return string.dump(function() end)");

    private static final List<String> VALUES = List.of("nil", "1", "-1.5", "0/0", "1/0", "'k'", "'\\0\\255'", "{}",
            "{err = 'X'}", "{1, {2, {3}}}", "true", "false", "function() end", "coroutine.create(function() end)",
            "'set', 'k', 'v'", "'get'", "'nosuch'", "'incr', 'k'", "'del', 'k', 'h', 'z'", "string.rep('y', 70000)",
            "2^63", "'eval', 'return 1', 0");

    @TempDir
    Path dir;

    @Test
    void randomScriptsGetWellFormedRepliesAndTheStateKeepsAnswering() {
        Random random = new Random(32);
        try (Harness h = new Harness(dir)) {
            for (int n = 0; n < 400; n++) {
                StringBuilder script = new StringBuilder();
                int parts = 1 + random.nextInt(3);
                for (int p = 0; p < parts; p++) {
                    String fragment = FRAGMENTS.get(random.nextInt(FRAGMENTS.size()));
                    script.append(fragment.replace("%s", VALUES.get(random.nextInt(VALUES.size()))))
                            .append(p + 1 < parts ? "\n" : "");
                }
                String reply = h.exec("eval", script.toString(), "0");
                assertThat(reply).as("reply to %s", script).isNotEmpty();
                assertThat("+-:$*").as("reply to %s: %s", script, reply).contains(reply.substring(0, 1));
                assertThat(h.exec("eval", "return redis.call('ping')", "0")).isEqualTo("+PONG\\r\\n");
            }
        }
    }

    @Test
    void aScriptKilledFromAnotherThreadFailsAndItsWritesAreTakenBack() throws Exception {
        try (Harness h = new Harness(dir)) {
            CompletableFuture<String> looping = CompletableFuture.supplyAsync(() -> h.exec("eval",
                    "redis.call('set', 'written', 1) while true do pcall(function() end) end", "0"));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (h.ks.killScript(false) != null) {
                assertThat(System.nanoTime()).as("the script starts").isLessThan(deadline);
                Thread.onSpinWait();
            }
            assertThat(looping.get(30, TimeUnit.SECONDS))
                    .startsWith("-ERR Script killed by user with SCRIPT KILL... script: ");
            assertThat(h.exec("get", "written")).isEqualTo("$-1\\r\\n");
            assertThat(h.journaled).isEmpty();
            assertThat(h.ks.killScript(false)).isEqualTo("NOTBUSY No scripts in execution right now.");
        }
    }
}
