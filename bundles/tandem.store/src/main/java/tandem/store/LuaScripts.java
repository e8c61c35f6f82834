package tandem.store;

import static tandem.store.LuaValues.bytes;
import static tandem.store.LuaValues.direct;
import static tandem.store.LuaValues.field;
import static tandem.store.LuaValues.oneLine;
import static tandem.store.LuaValues.protectedCall;
import static tandem.store.LuaValues.push;
import static tandem.store.LuaValues.pushArray;
import static tandem.store.LuaValues.pushBytes;
import static tandem.store.LuaValues.pushError;
import static tandem.store.LuaValues.text;
import static tandem.store.LuaValues.write;
import static tandem.store.LuaValues.writeError;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;

import party.iroiro.luajava.Lua;
import party.iroiro.luajava.LuaException;
import party.iroiro.luajava.lua51.Lua51;
import party.iroiro.luajava.lua51.Lua51Natives;

import tandem.api.store.Reply;

/**
 * The scripts' Lua: one Lua 5.1 state per store, as Redis has one, with Redis 7.0's environment, its conversions
 * between replies and Lua values, and its errors byte for byte.
 *
 * <p><b>Why real Lua 5.1 (through luajava's JNI binding)</b>: Redis runs the Lua 5.1 interpreter, so numbers print,
 * {@code #} counts, {@code pairs} orders, {@code tonumber} parses and errors read exactly as they do only in the same
 * interpreter; compared with Redis 7.0.15 on 238 snippets it differed only where Redis adds to Lua (its libraries,
 * read-only tables, its random generator), which is written here, while LuaJ and Luna differ in the language itself
 * and LuaJIT cannot be interrupted while it compiles ({@code research/lua.md}).
 *
 * <p>What the binding makes this class do: a Lua error raised outside a protected call aborts the JVM, so every entry
 * into Lua is a {@code pcall} and the globals' guard lets luajava's own {@code __jthrowable__} through; luajava can
 * push a string only through JNI's modified UTF-8, so any byte string that is not plain ASCII is pushed by loading
 * a chunk that returns it as a literal ({@link LuaValues#pushBytes}); its {@code java} global is removed.
 *
 * <p>Not thread-safe: the logic thread alone runs scripts; {@link #kill} and {@link #runningMillis} are read from
 * others.
 */
final class LuaScripts implements AutoCloseable {

    private static final Logger LOG = System.getLogger("tandem.script");

    /** Lua instructions between two looks at {@code SCRIPT KILL} and the clock, as Redis's count hook. */
    static final int HOOK_INSTRUCTIONS = 100_000;
    /** Redis's {@code busy-reply-threshold} default: a script running longer is logged, and may be killed. */
    static final long BUSY_MILLIS = 5_000;
    /** The most memory (KB) a script's Lua may hold at a look of the hook: Redis sets none, a node must. */
    static final int MEMORY_LIMIT_KB = 512 * 1024;
    static final String KILLED = "ERR Script killed by user with SCRIPT KILL...";
    static final String NOSCRIPT = "NOSCRIPT No matching script. Please use EVAL.";
    /** {@code REDIS_VERSION_NUM} of 7.0.15, which the replies here follow. */
    private static final int VERSION_NUM = 0x07000f;
    private static final int LUA_GCSTEP = 5;
    /** {@code LUA_NOREF}: no reference taken. */
    private static final int LUA_NOREF = -2;
    private static final int GC_PERIOD = 50;

    /**
     * Redis 7.0's environment, written in Lua over the Java functions it is given: the error handler, the
     * {@code redis} table, the random generator's wrapper, the sandbox. Run once per state with the Java functions as
     * its arguments; returns the runner the scripts are called through.
     */
    private static final String PRELUDE = """
            local J = ...
            local G = _G
            local dbg = debug
            local setfenv, rawget, rawset, type, error, tostring, xpcall, gcinfo =
                setfenv, rawget, rawset, type, error, tostring, xpcall, gcinfo
            local PRELUDE = '=tandem'
            local MEMORY_KB = %d

            -- Redis's __redis__err__handler, looking past this environment's own frames as past C ones
            local function errh(err)
              local level = 2
              local i = dbg.getinfo(level, 'nSl')
              while i and (i.what == 'C' or i.source == PRELUDE) do
                level = level + 1
                i = dbg.getinfo(level, 'nSl')
              end
              if type(err) ~= 'table' then
                err = {err = 'ERR ' .. tostring(err)}
              end
              if i then
                err['source'] = i.source
                err['line'] = i.currentline
              end
              return err
            end

            -- Java functions, which Lua sees as C ones, as Redis's are: a call in tail position keeps the
            -- script's frame, so an error names the script's line
            local R = {}
            R.call, R.pcall, R.sha1hex, R.error_reply, R.status_reply, R.log, R.setresp, R.set_repl,
                R.acl_check_cmd = J.call, J.pcall, J.sha1hex, J.error_reply, J.status_reply, J.log, J.setresp,
                J.set_repl, J.acl_check_cmd
            R.replicate_commands = function() return true end
            R.breakpoint = function() return false end
            R.debug = function() end
            R.REDIS_VERSION = '7.0.15'
            R.REDIS_VERSION_NUM = %d
            R.LOG_DEBUG, R.LOG_VERBOSE, R.LOG_NOTICE, R.LOG_WARNING = 0, 1, 2, 3
            R.REPL_NONE, R.REPL_AOF, R.REPL_SLAVE, R.REPL_REPLICA, R.REPL_ALL = 0, 1, 2, 2, 3
            math.random, math.randomseed = J.random, J.randomseed
            local jinterrupt = J.interrupt

            local function readonly() error('Attempt to modify a readonly table', 2) end
            local redis = setmetatable({}, {__index = R, __newindex = readonly, __metatable = false})

            -- no bytecode: Redis's loadstring and load refuse a precompiled chunk
            local rawloadstring, rawload = loadstring, load
            loadstring = function(s, ...)
              if type(s) == 'string' and s:byte(1) == 27 then return nil, 'bytecode is not allowed' end
              return rawloadstring(s, ...)
            end
            load = function(f, ...)
              if type(f) ~= 'function' then return rawload(f, ...) end
              local first = true
              return rawload(function()
                local piece = f()
                if first and type(piece) == 'string' and piece:byte(1) == 27 then return nil end
                first = false
                return piece
              end, ...)
            end

            for _, name in ipairs({'dofile', 'loadfile', 'print', 'setfenv', 'getfenv', 'newproxy', 'module',
                                    'require', 'package', 'os', 'io', 'debug', 'java'}) do
              rawset(G, name, nil)
            end
            rawset(G, 'redis', redis)
            -- the libraries Redis loads (LuaLibraries), read-only as Redis makes them; the helper names a library
            -- function as its caller named it, for luaL_argerror's words
            J.libnamer(function()
              local i = dbg.getinfo(2, 'n')
              if i then return i.name, i.namewhat end
            end)
            for name, lib in pairs(J.libs) do
              rawset(G, name, setmetatable({}, {__index = lib, __newindex = readonly, __metatable = false}))
            end
            -- Redis's pcall hands back an error table's message, as Redis 6's string errors were
            local rawpcall = pcall
            local function unpackerror(ok, ...)
              if ok then return true, ... end
              local e = ...
              if type(e) == 'table' then
                local m = e.err
                if type(m) == 'string' or type(m) == 'number' then e = m end
              end
              return false, e
            end
            rawset(G, 'pcall', function(...) return unpackerror(rawpcall(...)) end)
            rawset(G, '__redis__err__handler', errh)
            rawset(G, '__jthrowable__', false)
            getmetatable('').__metatable = false -- strings' metatable is shared by every script: out of reach

            -- the globals are read-only, and reading one that does not exist is an error, as in Redis
            local function missing(name)
              error("Script attempted to access nonexistent global variable '" .. tostring(name) .. "'", 3)
            end
            setmetatable(G, {
              __index = function(t, k)
                if k == '__jthrowable__' then return nil end -- luajava's own, read without rawget
                missing(k)
              end,
              __newindex = function(t, k, v)
                -- luajava's own: kept present (false for none), so that its reads never run this metatable
                if k == '__jthrowable__' then rawset(t, k, v == nil and false or v) return end
                error('Attempt to modify a readonly table', 2)
              end,
              __metatable = false,
            })
            -- each script sees the globals through this table, so that it can neither add nor replace one
            local env = setmetatable({}, {
              __index = function(t, k)
                local v = rawget(G, k)
                if v == nil then missing(k) end
                return v
              end,
              __newindex = function() error('Attempt to modify a readonly table', 2) end,
              __metatable = false,
            })

            -- the hooks raise only in the script's own code: an error raised in this environment's functions
            -- (a metamethod luajava reaches outside any protected call, the runner) would abort the process
            local function inscript()
              local i = dbg.getinfo(3, 'S')
              return i and i.source ~= PRELUDE
            end
            local stopped
            local function killed()
              if inscript() then error({err = stopped}) end
            end
            local function hook()
              if not inscript() then return end
              local stop = jinterrupt()
              if stop then
                stopped = stop
                dbg.sethook(killed, 'l') -- again at every line: a pcall in the script cannot swallow it
                error({err = stop})
              end
              if gcinfo() > MEMORY_KB then
                collectgarbage('collect')
                if gcinfo() > MEMORY_KB then
                  error({err = 'ERR script used more than ' .. MEMORY_KB .. ' KB of Lua memory'})
                end
              end
            end

            local function prepare(f)
              setfenv(f, env)
              return f
            end
            -- runs a compiled script: KEYS and ARGV are set as Redis sets them, first value returned
            local function run(f, keys, argv)
              rawset(G, 'KEYS', keys)
              rawset(G, 'ARGV', argv)
              dbg.sethook(hook, '', %d)
              local ok, result = xpcall(f, errh)
              dbg.sethook()
              return ok, result
            end

            -- functions (FUNCTION LOAD, FCALL): a library's code runs once at its load, where it sees nothing but
            -- a redis table that registers functions and logs (Redis's library API); the functions it registers
            -- see the globals, through the same table, when they are called
            local LR = {register_function = J.register_function, log = J.log, REDIS_VERSION = R.REDIS_VERSION,
                        REDIS_VERSION_NUM = R.REDIS_VERSION_NUM, LOG_DEBUG = 0, LOG_VERBOSE = 1, LOG_NOTICE = 2,
                        LOG_WARNING = 3}
            local libredis = setmetatable({}, {
              __index = function(t, k)
                local v = LR[k]
                if v == nil then missing(k) end
                return v
              end,
              __newindex = readonly,
              __metatable = false,
            })
            local loading = false
            local fenv = setmetatable({}, {
              __index = function(t, k)
                if loading then
                  if k == 'redis' then return libredis end
                  missing(k)
                end
                local v = rawget(G, k)
                if v == nil then missing(k) end
                return v
              end,
              __newindex = function() error('Attempt to modify a readonly table', 2) end,
              __metatable = false,
            })
            local function loadlib(f)
              setfenv(f, fenv)
              loading = true
              dbg.sethook(hook, '', %d)
              local ok, err = xpcall(f, errh)
              dbg.sethook()
              loading = false
              return ok, err
            end
            local function callfn(f, keys, argv)
              dbg.sethook(hook, '', %d)
              local ok, result = xpcall(function() return f(keys, argv) end, errh)
              dbg.sethook()
              return ok, result
            end
            return run, prepare, loadlib, callfn
            """.formatted(MEMORY_LIMIT_KB, VERSION_NUM, HOOK_INSTRUCTIONS, HOOK_INSTRUCTIONS, HOOK_INSTRUCTIONS);

    /** What a script's {@code redis.call} reaches: runs one command for it. */
    interface Host {
        /** Runs {@code args} as a command called from the script, writing its reply (errors included). */
        void call(byte[][] args, Reply reply);

        /** @return whether {@code name} is a command a script could call ({@code redis.acl_check_cmd}) */
        boolean knows(byte[] name);
    }

    /** Registers a function while a library loads ({@code redis.register_function}). */
    interface Registrar {
        /**
         * @param ref         the callback's registry reference, released by the caller when this answers an error
         * @param flags       the bits of {@link Functions#FLAGS}
         * @param description null when none was given
         * @return null when registered, else the error to raise (without its code)
         */
        String register(String name, int ref, String description, int flags);
    }

    private Lua lua;
    private int runRef;
    private int prepareRef;
    private int loadlibRef;
    private int callfnRef;
    /** A compiled script: its function's registry reference, and whether its shebang says {@code no-writes}. */
    private record Compiled(int ref, boolean noWrites) {
    }

    /** Compiled scripts by their SHA-1 (lower-case hex). */
    private final Map<String, Compiled> functions = new HashMap<>();
    private final Rand48 random;
    private int runs;

    // the invocation running now
    private Host host;
    private int resp = 2;
    private boolean replicate = true;
    private RuntimeException fatal;
    /** The library being loaded, while its code runs; null otherwise. */
    private Registrar registrar;
    private long loadDeadlineNanos;
    private volatile long startedNanos = -1;
    private volatile boolean killRequested;
    private boolean busyLogged;

    /** @param random the generator behind {@code math.random}: Redis has one for its scripts and functions */
    LuaScripts(Rand48 random) {
        this.random = random;
    }

    /** @return the SHA-1 of {@code body}, lower-case hex, as Redis names scripts */
    static String sha1(byte[] body) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-1").digest(body));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** @return whether a script with this SHA-1 (any case) is compiled here ({@code SCRIPT EXISTS}) */
    boolean exists(byte[] sha) {
        return sha.length == 40 && functions.containsKey(new String(sha, StandardCharsets.US_ASCII)
                .toLowerCase(java.util.Locale.ROOT));
    }

    /** {@code SCRIPT FLUSH}: forgets every script, and starts a new Lua state as Redis does. */
    void flush() {
        close();
        functions.clear();
    }

    /**
     * Compiles {@code body} unless it is compiled already ({@code SCRIPT LOAD}, and {@code EVAL}'s first run).
     *
     * @return its SHA-1, or an error reply text ({@code -…}) when it does not compile or its shebang is wrong
     */
    String load(byte[] body) {
        String sha = sha1(body);
        if (functions.containsKey(sha)) {
            return sha;
        }
        Shebang shebang = Shebang.of(body);
        if (shebang.error() != null) {
            return "-" + shebang.error();
        }
        Lua l = state();
        try {
            l.load(direct(shebang.code()), "@user_script");
        } catch (LuaException e) {
            String message = l.getTop() > 0 && l.type(-1) == Lua.LuaType.STRING ? text(l, -1) : e.getMessage();
            l.setTop(0);
            return "-ERR Error compiling script (new function): " + message;
        }
        l.refGet(prepareRef);
        l.insert(-2);
        protectedCall(l, 1, 1);
        functions.put(sha, new Compiled(l.ref(), shebang.noWrites()));
        return sha;
    }

    /** @return whether the compiled script {@code sha} declares {@code no-writes} in its shebang */
    boolean noWrites(String sha) {
        Compiled c = functions.get(sha);
        return c != null && c.noWrites();
    }

    /**
     * Runs the compiled script {@code sha} with {@code KEYS} and {@code ARGV}, and writes its reply.
     *
     * @return false when it was killed ({@link #kill}): its writes must be taken back
     * @throws RuntimeException what a command it called failed with unexpectedly (a store failure): its writes
     *                          must be taken back
     */
    boolean run(String sha, byte[][] keys, byte[][] argv, Host calls, Reply reply) {
        Compiled compiled = functions.get(sha);
        if (compiled == null) {
            reply.error(NOSCRIPT);
            return true;
        }
        return invoke(runRef, compiled.ref(), "script", sha, keys, argv, calls, reply);
    }

    /**
     * Runs the function {@code ref} through the environment's runner {@code runner} with {@code keys} and
     * {@code argv}, and writes its reply; an error names it {@code name}.
     */
    private boolean invoke(int runner, int ref, String kind, String name, byte[][] keys, byte[][] argv, Host calls,
            Reply reply) {
        Lua l = state();
        host = calls;
        resp = 2;
        replicate = true;
        fatal = null;
        busyLogged = false;
        killRequested = false;
        startedNanos = System.nanoTime();
        try {
            l.setTop(0);
            l.refGet(runner);
            l.refGet(ref);
            pushArray(l, keys);
            pushArray(l, argv);
            protectedCall(l, 3, 2);
            if (fatal != null) {
                throw fatal;
            }
            boolean ok = l.toBoolean(1);
            if (ok) {
                write(l, 2, reply, 0, resp);
            } else {
                writeError(l, 2, name, reply);
            }
            return ok || !killRequested;
        } finally {
            l.setTop(0);
            host = null;
            long took = (System.nanoTime() - startedNanos) / 1_000_000;
            startedNanos = -1;
            if (busyLogged) {
                LOG.log(Level.WARNING, "{0} {1} ended after {2} ms", kind, name, took);
            }
            if (++runs % GC_PERIOD == 0) {
                ((Lua51Natives) l.getLuaNatives()).lua_gc(l.getPointer(), LUA_GCSTEP, GC_PERIOD);
            }
        }
    }

    // ------------------------------------------------------------------ functions

    /**
     * Compiles a library's code ({@code FUNCTION LOAD}, without its shebang line) and runs it, so that it registers
     * its functions through {@code registrar}.
     *
     * @param timeoutMillis how long the code may run, 0 for no limit
     * @return null when it ran, else the error reply ({@code ERR Error compiling function: …} or {@code ERR Error
     *         registering functions: …})
     */
    String loadLibrary(byte[] code, long timeoutMillis, Registrar registrar) {
        Lua l = state();
        try {
            l.load(direct(code), "@user_function");
        } catch (LuaException e) {
            String message = l.getTop() > 0 && l.type(-1) == Lua.LuaType.STRING ? text(l, -1) : e.getMessage();
            l.setTop(0);
            return "ERR Error compiling function: " + message;
        }
        this.registrar = registrar;
        loadDeadlineNanos = timeoutMillis == 0 ? 0 : System.nanoTime() + timeoutMillis * 1_000_000L;
        killRequested = false;
        host = null;
        try {
            l.refGet(loadlibRef);
            l.insert(-2);
            protectedCall(l, 1, 2);
            if (l.toBoolean(1)) {
                return null;
            }
            String err = l.type(2) == Lua.LuaType.TABLE && field(l, 2, "err") == Lua.LuaType.STRING
                    ? text(l, -1) : "ERR the library raised an error object without an 'err' field";
            return "ERR Error registering functions: " + oneLine(err);
        } finally {
            l.setTop(0);
            this.registrar = null;
            loadDeadlineNanos = 0;
        }
    }

    /** Releases a registered function's callback. */
    void release(int ref) {
        if (lua != null) {
            lua.unref(ref);
        }
    }

    /**
     * Runs the registered function {@code ref} ({@code FCALL}) with its keys and arguments, and writes its reply;
     * an error names the function as Redis names it.
     *
     * @return false when it was killed: its writes must be taken back
     */
    boolean call(int ref, String name, byte[][] keys, byte[][] argv, Host calls, Reply reply) {
        return invoke(callfnRef, ref, "function", name, keys, argv, calls, reply);
    }

    /** {@code redis.register_function}, positional ({@code name, callback}) or named ({@code {function_name = …}}). */
    private int registerFunction(Lua l) {
        Registrar r = registrar;
        if (r == null) {
            return raise(l, "redis.register_function can only be called on FUNCTION LOAD command");
        }
        int n = l.getTop();
        if (n < 1 || n > 2) {
            return raise(l, "wrong number of arguments to redis.register_function");
        }
        String name = null;
        String description = null;
        int flags = 0;
        int ref = LUA_NOREF;
        String error = null;
        if (n == 2) {
            if (!l.isString(1)) {
                error = "first argument to redis.register_function must be a string";
            } else if (l.type(2) != Lua.LuaType.FUNCTION) {
                error = "second argument to redis.register_function must be a function";
            } else {
                name = text(l, 1);
                l.setTop(2);
                ref = l.ref();
            }
        } else if (l.type(1) != Lua.LuaType.TABLE) {
            error = "calling redis.register_function with a single argument is only applicable to Lua table "
                    + "(representing named arguments).";
        } else {
            l.pushNil();
            while (error == null && l.next(1) != 0) {
                // the stack: the table, a key, its value
                if (!l.isString(-2)) {
                    error = "named argument key given to redis.register_function is not a string";
                    break;
                }
                String key = text(l, -2).toLowerCase(java.util.Locale.ROOT);
                switch (key) {
                    case "function_name" -> {
                        if (l.isString(-1)) {
                            name = text(l, -1);
                        } else {
                            error = "function_name argument given to redis.register_function must be a string";
                        }
                    }
                    case "description" -> {
                        if (l.isString(-1)) {
                            description = text(l, -1);
                        } else {
                            error = "description argument given to redis.register_function must be a string";
                        }
                    }
                    case "callback" -> {
                        if (l.type(-1) == Lua.LuaType.FUNCTION) {
                            if (ref != LUA_NOREF) {
                                l.unref(ref);
                            }
                            l.pushValue(-1);
                            ref = l.ref();
                        } else {
                            error = "callback argument given to redis.register_function must be a function";
                        }
                    }
                    case "flags" -> {
                        if (l.type(-1) != Lua.LuaType.TABLE) {
                            error = "flags argument to redis.register_function must be a table representing "
                                    + "function flags";
                        } else {
                            flags = readFlags(l);
                            if (flags < 0) {
                                error = "unknown flag given";
                            }
                        }
                    }
                    default -> error = "unknown argument given to redis.register_function";
                }
                l.pop(1); // the value: the key stays for the next step
            }
            if (error == null && name == null) {
                error = "redis.register_function must get a function name argument";
            } else if (error == null && ref == LUA_NOREF) {
                error = "redis.register_function must get a callback argument";
            }
        }
        if (error == null) {
            error = r.register(name, ref, description, flags);
        }
        if (error != null) {
            if (ref != LUA_NOREF) {
                l.unref(ref);
            }
            return raise(l, error);
        }
        l.setTop(0);
        return 0;
    }

    /** The flags table on top of the stack as {@link Functions#FLAGS} bits; -1 for one that is not a flag. */
    private static int readFlags(Lua l) {
        int flags = 0;
        for (int i = 1; ; i++) {
            l.rawGetI(-1, i);
            if (l.type(-1) == Lua.LuaType.NIL) {
                l.pop(1);
                return flags;
            }
            int bit = l.isString(-1) ? Functions.flag(text(l, -1)) : 0;
            l.pop(1);
            if (bit == 0) {
                return -1;
            }
            flags |= bit;
        }
    }

    /** @return whether the writes of the running script go to the journal ({@code redis.set_repl}) */
    boolean replicating() {
        return replicate;
    }

    /** @return the protocol the running script reads replies in ({@code redis.setresp}) */
    int protocol() {
        return resp;
    }

    /** {@code SCRIPT KILL}, from another thread: the running script fails at its next look. */
    boolean kill() {
        if (startedNanos < 0) {
            return false;
        }
        killRequested = true;
        return true;
    }

    /** @return milliseconds the running script has been running, -1 when none runs */
    long runningMillis() {
        long started = startedNanos;
        return started < 0 ? -1 : (System.nanoTime() - started) / 1_000_000;
    }

    @Override
    public void close() {
        if (lua != null) {
            lua.close();
            lua = null;
            functions.clear();
        }
    }

    // ------------------------------------------------------------------ the state

    private Lua state() {
        if (lua != null) {
            return lua;
        }
        Lua l = new Lua51();
        try {
            for (String lib : List.of("base", "table", "string", "math", "debug")) {
                l.openLibrary(lib);
            }
            l.load(direct(PRELUDE.getBytes(StandardCharsets.UTF_8)), "=tandem");
            l.createTable(0, 12);
            function(l, "call", x -> call(x, true));
            function(l, "pcall", x -> call(x, false));
            function(l, "sha1hex", this::sha1hex);
            function(l, "error_reply", x -> singleField(x, "err"));
            function(l, "status_reply", x -> singleField(x, "ok"));
            function(l, "log", this::log);
            function(l, "setresp", this::setResp);
            function(l, "set_repl", this::setRepl);
            function(l, "acl_check_cmd", this::aclCheck);
            function(l, "random", this::random);
            function(l, "randomseed", this::randomSeed);
            function(l, "interrupt", this::interrupt);
            function(l, "register_function", this::registerFunction);
            new LuaLibraries().install(l);
            protectedCall(l, 1, 4);
            callfnRef = l.ref();
            loadlibRef = l.ref();
            prepareRef = l.ref();
            runRef = l.ref();
        } catch (RuntimeException e) {
            l.close();
            throw e;
        }
        lua = l;
        return l;
    }

    private static void function(Lua l, String name, party.iroiro.luajava.JFunction f) {
        l.push(f);
        l.setField(-2, name);
    }

    // ------------------------------------------------------------------ the Java functions

    /**
     * {@code redis.call} ({@code raise}) and {@code redis.pcall}: the reply as a Lua value; an error reply is
     * raised by {@code redis.call}, returned as {@code {err = …}} by {@code redis.pcall}.
     */
    private int call(Lua l, boolean raise) {
        int n = l.getTop();
        if (n == 0) {
            l.setTop(0);
            pushError(l, "Please specify at least one argument for this redis lib call");
            return raise ? -1 : 1;
        }
        byte[][] args = new byte[n][];
        for (int i = 1; i <= n; i++) {
            Lua.LuaType t = l.type(i);
            if (t == Lua.LuaType.NUMBER) {
                args[i - 1] = Doubles.format(l.toNumber(i)); // "%.17g", as Redis passes numbers
            } else if (t == Lua.LuaType.STRING) {
                args[i - 1] = bytes(l, i);
            } else {
                l.setTop(0);
                pushError(l, "Lua redis lib command arguments must be strings or integers");
                return raise ? -1 : 1;
            }
        }
        l.setTop(0);
        if (fatal != null) {
            pushError(l, "the store failed while running this script: " + fatal.getMessage());
            return raise ? -1 : 1;
        }
        TreeReply captured = new TreeReply(resp);
        try {
            host.call(args, captured);
        } catch (RuntimeException e) {
            fatal = e; // the writes are taken back; the script may go on, but calls no command any more
            pushError(l, "the store failed while running this script: " + e.getMessage());
            return raise ? -1 : 1;
        }
        Object value = captured.value();
        push(l, value, resp);
        return raise && value instanceof TreeReply.Error ? -1 : 1;
    }

    private int sha1hex(Lua l) {
        if (l.getTop() != 1) {
            l.setTop(0);
            pushError(l, "wrong number of arguments");
            return -1;
        }
        Lua.LuaType t = l.type(1);
        byte[] text = t == Lua.LuaType.NUMBER || t == Lua.LuaType.STRING ? bytes(l, 1) : new byte[0];
        l.setTop(0);
        l.push(sha1(text));
        return 1;
    }

    /** {@code redis.error_reply} ({@code field} "err") and {@code redis.status_reply} ("ok"). */
    private static int singleField(Lua l, String field) {
        if (l.getTop() != 1 || l.type(1) != Lua.LuaType.STRING) {
            l.setTop(0);
            pushError(l, "wrong number or type of arguments");
            return 1;
        }
        byte[] text = bytes(l, 1);
        l.setTop(0);
        if (field.equals("err")) {
            String e = new String(text, StandardCharsets.ISO_8859_1);
            pushError(l, e.startsWith("-") ? e : "-" + e);
        } else {
            l.createTable(0, 1);
            pushBytes(l, text);
            l.setField(-2, "ok");
        }
        return 1;
    }

    private int log(Lua l) {
        int n = l.getTop();
        if (n < 2) {
            return raise(l, "redis.log() requires two arguments or more.");
        }
        if (!l.isNumber(1)) {
            return raise(l, "First argument must be a number (log level).");
        }
        double level = l.toNumber(1);
        if (level < 0 || level > 3) {
            return raise(l, "Invalid debug level.");
        }
        StringBuilder line = new StringBuilder();
        for (int i = 2; i <= n; i++) {
            Lua.LuaType t = l.type(i);
            if (t == Lua.LuaType.STRING || t == Lua.LuaType.NUMBER) {
                if (i > 2) {
                    line.append(' ');
                }
                line.append(new String(bytes(l, i), StandardCharsets.ISO_8859_1));
            }
        }
        l.setTop(0);
        LOG.log(level < 2 ? Level.DEBUG : level < 3 ? Level.INFO : Level.WARNING, "script: {0}", line);
        return 0;
    }

    private int setResp(Lua l) {
        if (l.getTop() != 1) {
            return raise(l, "redis.setresp() requires one argument.");
        }
        long v = (long) l.toNumber(1);
        if (v != 2 && v != 3) {
            return raise(l, "RESP version must be 2 or 3.");
        }
        resp = (int) v;
        l.setTop(0);
        return 0;
    }

    private int setRepl(Lua l) {
        if (l.getTop() != 1) {
            return raise(l, "redis.set_repl() requires two arguments.");
        }
        long flags = (long) l.toNumber(1);
        if ((flags & ~3L) != 0) {
            return raise(l, "Invalid replication flags. Use REPL_AOF, REPL_REPLICA, REPL_ALL or REPL_NONE.");
        }
        replicate = flags != 0; // the journal is both the AOF and the replication stream
        l.setTop(0);
        return 0;
    }

    private int aclCheck(Lua l) {
        if (l.getTop() < 1) {
            return raise(l, "Please specify at least one argument for this redis lib call");
        }
        boolean known = host != null && l.type(1) == Lua.LuaType.STRING && host.knows(bytes(l, 1));
        if (!known) {
            return raise(l, "Invalid command passed to redis.acl_check_cmd()");
        }
        l.setTop(0);
        l.push(true);
        return 1;
    }

    /** {@code math.random}: Redis's, over rand48, drawing before it looks at its arguments. */
    private int random(Lua l) {
        double r = this.random.nextDouble();
        int n = l.getTop();
        if (n == 0) {
            l.push(r);
            return 1;
        }
        if (n > 2) {
            return raiseAt(l, "wrong number of arguments");
        }
        for (int i = 1; i <= n; i++) {
            if (!l.isNumber(i)) {
                return raiseAt(l, "bad argument #" + i + " to 'random' (number expected, got "
                        + typeName(l, i) + ")");
            }
        }
        long lower = n == 1 ? 1 : (int) (long) l.toNumber(1);
        long upper = (int) (long) l.toNumber(n);
        if (lower > upper) {
            return raiseAt(l, "bad argument #" + n + " to 'random' (interval is empty)");
        }
        l.setTop(0);
        l.push(Math.floor(r * (upper - lower + 1)) + lower);
        return 1;
    }

    private int randomSeed(Lua l) {
        if (!l.isNumber(1)) {
            return raiseAt(l, "bad argument #1 to 'randomseed' (number expected, got " + typeName(l, 1) + ")");
        }
        random.seed((int) (long) l.toNumber(1));
        l.setTop(0);
        return 0;
    }

    private static String typeName(Lua l, int i) {
        return i > l.getTop() ? "no value" : switch (l.type(i)) {
            case NIL -> "nil";
            case BOOLEAN -> "boolean";
            case TABLE -> "table";
            case FUNCTION -> "function";
            case STRING -> "string";
            case NUMBER -> "number";
            case THREAD -> "thread";
            default -> "userdata";
        };
    }

    /** Raises Redis's error table {@code {err = "ERR " .. message}} (what {@code luaPushError} then {@code luaError} do). */
    private static int raise(Lua l, String message) {
        l.setTop(0);
        pushError(l, message);
        return -1;
    }

    /** Raises {@code message} as a C library function does ({@code luaL_error}): prefixed by the caller's position. */
    private static int raiseAt(Lua l, String message) {
        l.setTop(0);
        Lua51Natives natives = (Lua51Natives) l.getLuaNatives();
        natives.luaL_where(l.getPointer(), 1);
        l.push(message);
        natives.lua_concat(l.getPointer(), 2);
        return -1;
    }

    /** The count hook's look: whether {@code SCRIPT KILL} asked the script to stop; logs a long-running one once. */
    private int interrupt(Lua l) {
        if (!busyLogged && runningMillis() >= BUSY_MILLIS) {
            busyLogged = true;
            LOG.log(Level.WARNING, "a script has been running for {0} ms on the logic thread; SCRIPT KILL stops it "
                    + "(and takes back what it wrote)", runningMillis());
        }
        if (killRequested) {
            l.push(KILLED);
        } else if (registrar != null && loadDeadlineNanos != 0 && System.nanoTime() - loadDeadlineNanos > 0) {
            l.push("ERR FUNCTION LOAD timeout");
        } else {
            l.push(false);
        }
        return 1;
    }

    /**
     * A script's first line when it starts with {@code #!}: Redis 7's shebang, {@code #!lua} with optional
     * {@code flags=…}. The line is compiled as an empty one, so that line numbers stay the script's.
     */
    record Shebang(byte[] code, boolean noWrites, String error) {

        static Shebang of(byte[] body) {
            if (body.length < 2 || body[0] != '#' || body[1] != '!') {
                return new Shebang(body, false, null);
            }
            int end = 0;
            while (end < body.length && body[end] != '\n') {
                end++;
            }
            String line = new String(body, 0, end, StandardCharsets.ISO_8859_1);
            List<String> parts = new ArrayList<>(List.of(line.substring(2).trim().split(" +")));
            if (parts.isEmpty() || !parts.get(0).equals("lua")) {
                return new Shebang(body, false, "ERR Unexpected engine in script shebang: " + line);
            }
            boolean noWrites = false;
            for (String part : parts.subList(1, parts.size())) {
                if (!part.startsWith("flags=")) {
                    return new Shebang(body, false, "ERR Unknown lua shebang option: " + part);
                }
                for (String flag : part.substring(6).split(",")) {
                    switch (flag) {
                        case "no-writes" -> noWrites = true;
                        case "allow-oom", "allow-stale", "no-cluster", "allow-cross-slot-keys", "" -> {
                            // nothing to do here: no memory limit refuses writes, no cluster
                        }
                        default -> {
                            return new Shebang(body, false, "ERR Unexpected flag in script shebang: " + flag);
                        }
                    }
                }
            }
            byte[] code = new byte[body.length - end];
            System.arraycopy(body, end, code, 0, code.length);
            return new Shebang(code, noWrites, null);
        }
    }
}
