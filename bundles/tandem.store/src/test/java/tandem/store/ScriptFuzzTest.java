package tandem.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
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
 * error and what it wrote is taken back. Redis's libraries ({@code cjson}, {@code cmsgpack}, {@code struct},
 * {@code bit}) get garbage, deep values and odd arguments among the rest.
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
            "return string.dump(function() end)",
            // Redis's libraries (LuaLibraries): garbage in, deep values, odd arguments, from coroutines too
            "return cjson.decode(%g)",
            "return {pcall(cjson.decode, %g)}",
            "return cjson.new().decode(%g)",
            "return cjson.encode(%s)",
            "return cjson.decode(cjson.encode(%s))",
            "return cjson.decode(string.rep('[', %n) .. string.rep(']', %n))",
            "return cjson.decode(string.rep('{\\34a\\34:', %n) .. '1' .. string.rep('}', %n))",
            "cjson.decode_max_depth(%n) return cjson.decode(string.rep('[', %n) .. '1')",
            "cjson.encode_max_depth(%n) local t = {} local c = t for i = 1, %n do c.k = {} c = c.k end "
                    + "return cjson.encode(t)",
            "return cjson.encode_sparse_array(%s)",
            "return cjson.encode_number_precision(%s)",
            "return cjson.encode_invalid_numbers(%s)",
            "return cjson.encode(setmetatable({}, {__index = function() error(%s) end}))",
            "return cmsgpack.unpack(%g)",
            "return {pcall(cmsgpack.unpack_limit, %g, 3, 1)}",
            "return cmsgpack.unpack_one(%g, %n)",
            "return cmsgpack.pack(%s)",
            "return cmsgpack.unpack(cmsgpack.pack(%s))",
            "return cmsgpack.unpack(string.rep('\\145', %n) .. '\\1')",
            "local t = {} for i = 1, %n do t[i] = i end return cmsgpack.pack(unpack(t))",
            "return struct.unpack(%f, %g)",
            "return struct.unpack(%f, %g, %n)",
            "return struct.pack(%f, %s)",
            "return struct.size(%f)",
            "return {bit.tobit(%s), bit.tohex(%s), bit.band(%s), bit.lshift(%s)}",
            "return coroutine.wrap(function() return cjson.decode(%g), cmsgpack.unpack(%g) end)()",
            "cjson.encode = %s",
            "return cjson:decode(%g)");

    /** Struct's format letters, and some that are none. */
    private static final String FORMAT = "bBhHlLTifdscx<>!= 0123456789z";
    private static final List<String> SIZES = List.of("0", "1", "15", "16", "17", "999", "1001", "5000", "9000",
            "-1", "2^40");
    /** Well-formed inputs, which garbage is made from by cutting and flipping. */
    private static final List<byte[]> SEEDS = List.of(
            "{\"a\":[1,2.5e3,\"x\\u00e9\",null,true,{\"b\":{}}]}".getBytes(StandardCharsets.ISO_8859_1),
            "[\"\\ud83d\\ude00\",-0,1e400,0x10,nan]".getBytes(StandardCharsets.ISO_8859_1),
            new byte[] {(byte) 0x93, 1, (byte) 0xa2, 'a', 'b', (byte) 0x82, (byte) 0xc0, 1, (byte) 0xcb, 0x3f,
                (byte) 0xf1, 0, 0, 0, 0, 0, 0, (byte) 0xdd, 0, 0, 0, 9, (byte) 0xdf, (byte) 0xff, 0, 0, 0});

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
                    script.append(fragment.replace("%s", VALUES.get(random.nextInt(VALUES.size())))
                                    .replace("%g", garbage(random))
                                    .replace("%f", format(random))
                                    .replace("%n", SIZES.get(random.nextInt(SIZES.size()))))
                            .append(p + 1 < parts ? "\n" : "");
                }
                String reply = h.exec("eval", script.toString(), "0");
                assertThat(reply).as("reply to %s", script).isNotEmpty();
                assertThat("+-:$*").as("reply to %s: %s", script, reply).contains(reply.substring(0, 1));
                assertThat(h.exec("eval", "return redis.call('ping')", "0")).isEqualTo("+PONG\\r\\n");
            }
        }
    }

    /** A Lua literal of random bytes, or of a well-formed input cut short and with bytes flipped. */
    private static String garbage(Random random) {
        byte[] b;
        if (random.nextBoolean()) {
            b = new byte[random.nextInt(40)];
            random.nextBytes(b);
        } else {
            byte[] seed = SEEDS.get(random.nextInt(SEEDS.size()));
            b = java.util.Arrays.copyOf(seed, random.nextInt(seed.length + 1));
            for (int i = random.nextInt(3); i > 0 && b.length > 0; i--) {
                b[random.nextInt(b.length)] = (byte) random.nextInt(256);
            }
        }
        StringBuilder literal = new StringBuilder("'");
        for (byte x : b) {
            literal.append(String.format("\\%03d", x & 0xff));
        }
        return literal.append('\'').toString();
    }

    /** A Lua literal of a random struct format. */
    private static String format(Random random) {
        StringBuilder literal = new StringBuilder("'");
        for (int i = random.nextInt(8); i > 0; i--) {
            literal.append(FORMAT.charAt(random.nextInt(FORMAT.length())));
        }
        return literal.append('\'').toString();
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
