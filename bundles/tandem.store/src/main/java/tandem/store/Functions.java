package tandem.store;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

import tandem.api.store.Reply;
import tandem.protocol.command.Glob;
import tandem.protocol.command.InlineSplitter;

/**
 * Redis 7.0's functions: the libraries {@code FUNCTION LOAD} registers, their functions, and the records that keep
 * them. Unlike the scripts' cache, libraries are data: a load, delete, flush or restore is journaled as the command
 * and applied on every node, each library's whole code is a record of the {@code meta} family ({@code function:} and
 * its name) in the same batch as the applied sequence, so a checkpoint and a full sync carry them, and an open loads
 * them again. Their Lua state is a second {@link LuaScripts}, apart from the scripts', as Redis keeps one.
 *
 * <p>A change is made at once (later commands of the same round see it) and recorded with {@link Tx#outside}, so an
 * apply that is dropped takes it back and one that is kept releases what it replaced.
 *
 * <p>Libraries are listed and dumped in the order of their names: Redis's order is its dictionary's, which changes
 * with the hash seed of each process; a name order is the same on every node and after every restart.
 */
final class Functions {

    /** {@code scripts_flags_def}: the flags a function may declare, as bits in this order. */
    static final List<String> FLAGS = List.of("no-writes", "allow-oom", "allow-stale", "no-cluster",
            "allow-cross-slot-keys");
    static final int NO_WRITES = 1;
    /** Redis's {@code LOAD_TIMEOUT_MS}: how long a library's code may run on the node that decides writes. */
    static final long LOAD_TIMEOUT_MILLIS = 500;
    private static final byte[] PREFIX = "function:".getBytes(StandardCharsets.US_ASCII);
    private static final String NAME_RULE = "Library names can only contain letters, numbers, or underscores(_) "
            + "and must be at least one character long";

    /** A registered function: its callback's reference in the Lua state. */
    record Function(String name, int ref, String description, int flags, Library library) {
    }

    /** A library: its name, its whole code (as loaded, shebang included) and its functions, in registration order. */
    static final class Library {
        final String name;
        final byte[] code;
        final List<Function> functions = new ArrayList<>();

        Library(String name, byte[] code) {
            this.name = name;
            this.code = code;
        }
    }

    /** The libraries and the functions they register, by name (functions by lower-case name, as Redis matches them). */
    private static final class Context {
        final TreeMap<String, Library> libraries = new TreeMap<>();
        final Map<String, Function> functions = new HashMap<>();

        void link(Library library) {
            for (Function f : library.functions) {
                functions.put(lower(f.name()), f);
            }
            libraries.put(library.name, library);
        }

        void unlink(Library library) {
            for (Function f : library.functions) {
                functions.remove(lower(f.name()));
            }
            libraries.remove(library.name);
        }
    }

    private final LuaScripts lua;
    private Context current = new Context();

    Functions(LuaScripts lua) {
        this.lua = lua;
    }

    /** @return the bit of the flag {@code name} (any case), 0 when it is none */
    static int flag(String name) {
        int i = FLAGS.indexOf(name.toLowerCase(Locale.ROOT));
        return i < 0 ? 0 : 1 << i;
    }

    /** @return the function named {@code name} (any case), or null */
    Function find(byte[] name) {
        return current.functions.get(lower(Args.text(name)));
    }

    /** The store opened: loads the libraries its records hold, in their names' order. */
    void open(org.rocksdb.RocksDB db, org.rocksdb.ColumnFamilyHandle meta) {
        try (org.rocksdb.RocksIterator it = db.newIterator(meta)) {
            for (it.seek(PREFIX); it.isValid() && startsWith(it.key(), PREFIX); it.next()) {
                Library library = create(it.value(), current, false, 0);
                current.link(library);
            }
        } catch (CommandError e) {
            throw new IllegalStateException("a stored function library does not load again: " + e.getMessage(), e);
        }
    }

    /** @return the number of libraries ({@code FUNCTION STATS}, {@code INFO}) */
    int libraries() {
        return current.libraries.size();
    }

    /** @return the number of functions */
    int functions() {
        return current.functions.size();
    }

    // ---------------------------------------------------------------- changes

    /** {@code FUNCTION LOAD [REPLACE] code}. @return the library's name */
    String load(Tx tx, byte[] payload, boolean replace) {
        Library library = create(payload, current, replace, tx.loadTimeoutMillis);
        Library old = current.libraries.get(library.name); // what it replaces: create allowed it
        if (old != null) {
            current.unlink(old);
        }
        current.link(library);
        tx.putMeta(key(library.name), library.code);
        tx.outside(() -> {
            current.unlink(library);
            release(library);
            if (old != null) {
                current.link(old);
            }
        }, () -> release(old));
        return library.name;
    }

    /** {@code FUNCTION DELETE name}. */
    void delete(Tx tx, byte[] name) {
        Library library = current.libraries.get(Args.text(name));
        if (library == null) {
            throw new CommandError("ERR Library not found");
        }
        current.unlink(library);
        tx.deleteMeta(key(library.name));
        tx.outside(() -> current.link(library), () -> release(library));
    }

    /** {@code FUNCTION FLUSH}. */
    void flush(Tx tx) {
        Context old = current;
        for (String name : old.libraries.keySet()) {
            tx.deleteMeta(key(name));
        }
        current = new Context();
        tx.outside(() -> current = old, () -> old.libraries.values().forEach(this::release));
    }

    /** {@code FUNCTION RESTORE payload [FLUSH|APPEND|REPLACE]}: Redis's {@code functionRestoreCommand}. */
    void restore(Tx tx, byte[] payload, String policy) {
        List<byte[]> codes = DumpPayload.functionCodes(payload);
        Context loaded = new Context();
        try {
            for (byte[] code : codes) {
                loaded.link(create(code, loaded, false, tx.loadTimeoutMillis));
            }
        } catch (CommandError e) {
            loaded.libraries.values().forEach(this::release);
            throw e;
        }
        if (policy.equals("flush")) {
            Context old = current;
            for (String name : old.libraries.keySet()) {
                tx.deleteMeta(key(name));
            }
            current = loaded;
            loaded.libraries.values().forEach(l -> tx.putMeta(key(l.name), l.code));
            tx.outside(() -> {
                current = old;
                loaded.libraries.values().forEach(this::release);
            }, () -> old.libraries.values().forEach(this::release));
            return;
        }
        // libraryJoin: every library, or none
        List<Library> replaced = new ArrayList<>();
        String error = null;
        for (Library l : loaded.libraries.values()) {
            Library old = current.libraries.get(l.name);
            if (old != null) {
                if (!policy.equals("replace")) {
                    error = "ERR Library " + l.name + " already exists";
                    break;
                }
                current.unlink(old);
                replaced.add(old);
            }
        }
        if (error == null) {
            for (String f : loaded.functions.keySet()) {
                if (current.functions.containsKey(f)) {
                    error = "ERR Function " + loaded.functions.get(f).name() + " already exists";
                    break;
                }
            }
        }
        if (error != null) {
            replaced.forEach(current::link);
            loaded.libraries.values().forEach(this::release);
            throw new CommandError(error);
        }
        for (Library l : loaded.libraries.values()) {
            current.link(l);
            tx.putMeta(key(l.name), l.code);
        }
        tx.outside(() -> {
            loaded.libraries.values().forEach(l -> {
                current.unlink(l);
                release(l);
            });
            replaced.forEach(current::link);
        }, () -> replaced.forEach(this::release));
    }

    /**
     * Redis's {@code functionsCreateWithLibraryCtx} against {@code context}, which it leaves as it was: the metadata,
     * the name, the engine, the library it would replace, then the code runs and registers its functions, which must
     * be some and must not collide with another library's.
     *
     * @return the library, not linked yet; its functions' references are the caller's to release
     */
    private Library create(byte[] payload, Context context, boolean replace, long timeoutMillis) {
        Metadata md = Metadata.of(payload);
        if (!validName(md.name())) {
            throw new CommandError("ERR " + NAME_RULE);
        }
        if (!md.engine().equalsIgnoreCase("lua")) {
            throw new CommandError("ERR Engine '" + md.engine() + "' not found");
        }
        Library old = context.libraries.get(md.name());
        if (old != null && !replace) {
            throw new CommandError("ERR Library '" + md.name() + "' already exists");
        }
        Library library = new Library(md.name(), payload);
        Map<String, Function> own = new HashMap<>();
        String error = lua.loadLibrary(md.code(), timeoutMillis, (name, ref, description, flags) -> {
            if (!validName(name)) {
                return NAME_RULE;
            }
            if (own.containsKey(lower(name))) {
                return "Function already exists in the library";
            }
            Function f = new Function(name, ref, description, flags, library);
            own.put(lower(name), f);
            library.functions.add(f);
            return null;
        });
        if (error == null && library.functions.isEmpty()) {
            error = "ERR No functions registered";
        }
        if (error == null) {
            for (Function f : library.functions) {
                Function other = context.functions.get(lower(f.name()));
                if (other != null && other.library() != old) {
                    error = "ERR Function " + f.name() + " already exists";
                    break;
                }
            }
        }
        if (error != null) {
            release(library);
            throw new CommandError(error);
        }
        return library;
    }

    private void release(Library library) {
        if (library != null) {
            for (Function f : library.functions) {
                lua.release(f.ref());
            }
        }
    }

    // ---------------------------------------------------------------- reads

    /** {@code FUNCTION DUMP}. */
    byte[] dump() {
        List<byte[]> codes = new ArrayList<>();
        current.libraries.values().forEach(l -> codes.add(l.code));
        return DumpPayload.functions(codes);
    }

    /** {@code FUNCTION LIST [WITHCODE] [LIBRARYNAME pattern]}: Redis's {@code functionListCommand}. */
    void list(byte[][] a, Reply r) {
        boolean withCode = false;
        byte[] pattern = null;
        for (int i = 2; i < a.length; i++) {
            if (!withCode && Args.is(a[i], "withcode")) {
                withCode = true;
            } else if (pattern == null && Args.is(a[i], "libraryname")) {
                if (i >= a.length - 1) {
                    throw new CommandError("ERR library name argument was not given");
                }
                pattern = a[++i];
            } else {
                throw new CommandError("ERR Unknown argument " + Args.text(a[i]));
            }
        }
        List<Library> listed = new ArrayList<>();
        for (Library l : current.libraries.values()) {
            if (pattern == null || Glob.matches(pattern, l.name.getBytes(StandardCharsets.ISO_8859_1), true)) {
                listed.add(l);
            }
        }
        r.array(listed.size());
        for (Library l : listed) {
            r.map(withCode ? 4 : 3);
            r.bulk(Args.ascii("library_name")).bulk(l.name.getBytes(StandardCharsets.ISO_8859_1));
            r.bulk(Args.ascii("engine")).bulk(Args.ascii("LUA"));
            r.bulk(Args.ascii("functions")).array(l.functions.size());
            for (Function f : l.functions) {
                r.map(3);
                r.bulk(Args.ascii("name")).bulk(f.name().getBytes(StandardCharsets.ISO_8859_1));
                r.bulk(Args.ascii("description"));
                if (f.description() == null) {
                    r.nullBulk();
                } else {
                    r.bulk(f.description().getBytes(StandardCharsets.ISO_8859_1));
                }
                r.bulk(Args.ascii("flags")).set(Integer.bitCount(f.flags()));
                for (int i = 0; i < FLAGS.size(); i++) {
                    if ((f.flags() & 1 << i) != 0) {
                        r.simple(FLAGS.get(i));
                    }
                }
            }
            if (withCode) {
                r.bulk(Args.ascii("library_code")).bulk(l.code);
            }
        }
    }

    /** {@code FUNCTION STATS} while no function runs (the front end answers while one does). */
    void stats(Reply r) {
        r.map(2);
        r.bulk(Args.ascii("running_script")).nullBulk();
        r.bulk(Args.ascii("engines")).map(1);
        r.bulk(Args.ascii("LUA")).map(2);
        r.bulk(Args.ascii("libraries_count")).integer(libraries());
        r.bulk(Args.ascii("functions_count")).integer(functions());
    }

    // ---------------------------------------------------------------- the metadata

    /** A library's shebang, {@code #!<engine> name=<name>}, and the code after it (from its newline on). */
    record Metadata(String engine, String name, byte[] code) {

        /** Redis's {@code functionExtractLibMetaData}, with its errors. */
        static Metadata of(byte[] payload) {
            if (payload.length < 2 || payload[0] != '#' || payload[1] != '!') {
                throw new CommandError("ERR Missing library metadata");
            }
            int end = 0;
            while (end < payload.length && payload[end] != '\n') {
                end++;
            }
            if (end == payload.length) {
                throw new CommandError("ERR Invalid library metadata");
            }
            byte[][] parts = InlineSplitter.split(java.util.Arrays.copyOf(payload, end));
            if (parts == null || parts.length == 0) {
                throw new CommandError("ERR Invalid library metadata");
            }
            String engine = new String(parts[0], 2, parts[0].length - 2, StandardCharsets.ISO_8859_1);
            String name = null;
            for (int i = 1; i < parts.length; i++) {
                String part = new String(parts[i], StandardCharsets.ISO_8859_1);
                if (!part.regionMatches(true, 0, "name=", 0, 5)) {
                    throw new CommandError("ERR Invalid metadata value given: " + part);
                }
                if (name != null) {
                    throw new CommandError("ERR Invalid metadata value, name argument was given multiple times");
                }
                name = part.substring(5);
            }
            if (name == null) {
                throw new CommandError("ERR Library name was not given");
            }
            return new Metadata(engine, name, java.util.Arrays.copyOfRange(payload, end, payload.length));
        }
    }

    private static boolean validName(String name) {
        if (name.isEmpty()) {
            return false;
        }
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (!(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_')) {
                return false;
            }
        }
        return true;
    }

    private static String lower(String name) {
        return name.toLowerCase(Locale.ROOT);
    }

    private static byte[] key(String name) {
        byte[] n = name.getBytes(StandardCharsets.ISO_8859_1);
        byte[] k = java.util.Arrays.copyOf(PREFIX, PREFIX.length + n.length);
        System.arraycopy(n, 0, k, PREFIX.length, n.length);
        return k;
    }

    private static boolean startsWith(byte[] b, byte[] prefix) {
        return b.length >= prefix.length && java.util.Arrays.equals(b, 0, prefix.length, prefix, 0, prefix.length);
    }
}
