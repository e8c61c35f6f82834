package tandem.store;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import tandem.api.store.Command;
import tandem.api.store.CommandDescriptor;
import tandem.api.store.Keyspace;
import tandem.api.store.Reply;
import tandem.protocol.command.KeyHash;
import tandem.protocol.command.NameTable;

/**
 * The keyspace command table: each command's descriptor, as Redis 7.0's {@code COMMAND INFO} and
 * {@code COMMAND DOCS} describe it, and its implementation.
 */
final class Commands {

    /** A command's implementation: reads and writes through {@code tx}, writes exactly one reply. */
    @FunctionalInterface
    interface Handler {
        void run(Tx tx, byte[][] args, Reply reply);
    }

    /**
     * The checks a write passes before it is sequenced: those whose outcome does not depend on the keyspace (option
     * syntax, integers and floats, offsets and lengths). Throws {@link CommandError} when the write fails whatever
     * the keyspace holds; such a write is never journaled. Must never refuse a write that could succeed: the
     * handler runs the same checks again when the write is applied, in Redis' order.
     */
    @FunctionalInterface
    interface Check {
        /** @param nowMs the time the write would be applied at, or an earlier one */
        void check(byte[][] args, long nowMs);
    }

    /**
     * A {@link Check} that returns what it parsed, for the apply of the same command on the node that sequences it
     * ({@link Tx#parsed}): its handler then parses nothing again.
     */
    @FunctionalInterface
    interface Parse {
        /** @param nowMs the time the write would be applied at, or an earlier one */
        Object parse(byte[][] args, long nowMs);
    }

    /**
     * @param name  as the table spells it (a woken form: {@code blpop|woken})
     * @param check null when the command has no check beyond its arity
     */
    record Spec(String name, CommandDescriptor descriptor, Handler handler, Parse check) {
    }

    private static final Map<String, Spec> TABLE = new HashMap<>();
    private static final List<CommandDescriptor> DESCRIPTORS = new ArrayList<>();
    private static final NameTable<Spec> NAMES;

    static {
        // strings
        d("get", 2, false, 1, 1, 1, List.of("readonly", "fast"), "string", "1.0.0",
                "Get the value of a key", StringCommands::get);
        d("set", -3, true, 1, 1, 1, List.of("write", "denyoom"), "string", "1.0.0",
                "Set the string value of a key", StringCommands::set, (Parse) StringCommands::checkSet);
        d("mget", -2, false, 1, -1, 1, List.of("readonly", "fast"), "string", "1.0.0",
                "Get the values of all the given keys", StringCommands::mget);
        d("mset", -3, true, 1, -1, 2, List.of("write", "denyoom"), "string", "1.0.1",
                "Set multiple keys to multiple values", StringCommands::mset, StringCommands::checkMset);
        d("msetnx", -3, true, 1, -1, 2, List.of("write", "denyoom"), "string", "1.0.1",
                "Set multiple keys to multiple values, only if none of the keys exist", StringCommands::msetnx, StringCommands::checkMset);
        d("setnx", 3, true, 1, 1, 1, List.of("write", "denyoom", "fast"), "string", "1.0.0",
                "Set the value of a key, only if the key does not exist", StringCommands::setnx);
        d("setex", 4, true, 1, 1, 1, List.of("write", "denyoom"), "string", "2.0.0",
                "Set the value and expiration of a key", StringCommands::setex, StringCommands::checkSetex);
        d("psetex", 4, true, 1, 1, 1, List.of("write", "denyoom"), "string", "2.6.0",
                "Set the value and expiration in milliseconds of a key", StringCommands::psetex, StringCommands::checkPsetex);
        d("getset", 3, true, 1, 1, 1, List.of("write", "denyoom", "fast"), "string", "1.0.0",
                "Set the string value of a key and return its old value", StringCommands::getset);
        d("getdel", 2, true, 1, 1, 1, List.of("write", "fast"), "string", "6.2.0",
                "Get the value of a key and delete the key", StringCommands::getdel);
        d("getex", -2, true, 1, 1, 1, List.of("write", "fast"), "string", "6.2.0",
                "Get the value of a key and optionally set its expiration", StringCommands::getex, StringCommands::checkGetex);
        d("append", 3, true, 1, 1, 1, List.of("write", "denyoom", "fast"), "string", "2.0.0",
                "Append a value to a key", StringCommands::append);
        d("strlen", 2, false, 1, 1, 1, List.of("readonly", "fast"), "string", "2.2.0",
                "Get the length of the value stored in a key", StringCommands::strlen);
        d("incr", 2, true, 1, 1, 1, List.of("write", "denyoom", "fast"), "string", "1.0.0",
                "Increment the integer value of a key by one", StringCommands::incr);
        d("decr", 2, true, 1, 1, 1, List.of("write", "denyoom", "fast"), "string", "1.0.0",
                "Decrement the integer value of a key by one", StringCommands::decr);
        d("incrby", 3, true, 1, 1, 1, List.of("write", "denyoom", "fast"), "string", "1.0.0",
                "Increment the integer value of a key by the given amount", StringCommands::incrby, StringCommands::checkIncrby);
        d("decrby", 3, true, 1, 1, 1, List.of("write", "denyoom", "fast"), "string", "1.0.0",
                "Decrement the integer value of a key by the given number", StringCommands::decrby, StringCommands::checkDecrby);
        d("incrbyfloat", 3, true, 1, 1, 1, List.of("write", "denyoom", "fast"), "string", "2.6.0",
                "Increment the float value of a key by the given amount", StringCommands::incrbyfloat, StringCommands::checkIncrbyfloat);
        d("getrange", 4, false, 1, 1, 1, List.of("readonly"), "string", "2.4.0",
                "Get a substring of the string stored at a key", StringCommands::getrange);
        // deprecated since 2.0.0 for GETRANGE, and still sent by old clients
        d("substr", 4, false, 1, 1, 1, List.of("readonly"), "string", "1.0.0",
                "Get a substring of the string stored at a key", StringCommands::getrange);
        d("setrange", 4, true, 1, 1, 1, List.of("write", "denyoom"), "string", "2.2.0",
                "Overwrite part of a string at key starting at the specified offset", StringCommands::setrange, StringCommands::checkSetrange);
        d("lcs", -3, false, 1, 2, 1, List.of("readonly"), "string", "7.0.0",
                "Find longest common substring", StringCommands::lcs);
        // bitmaps
        d("setbit", 4, true, 1, 1, 1, List.of("write", "denyoom"), "bitmap", "2.2.0",
                "Sets or clears the bit at offset in the string value stored at key", BitCommands::setbit,
                BitCommands::checkSetbit);
        d("getbit", 3, false, 1, 1, 1, List.of("readonly", "fast"), "bitmap", "2.2.0",
                "Returns the bit value at offset in the string value stored at key", BitCommands::getbit);
        d("bitcount", -2, false, 1, 1, 1, List.of("readonly"), "bitmap", "2.6.0",
                "Count set bits in a string", BitCommands::bitcount);
        d("bitpos", -3, false, 1, 1, 1, List.of("readonly"), "bitmap", "2.8.7",
                "Find first bit set or clear in a string", BitCommands::bitpos);
        d("bitop", -4, true, 2, -1, 1, List.of("write", "denyoom"), "bitmap", "2.6.0",
                "Perform bitwise operations between strings", BitCommands::bitop, BitCommands::checkBitop);
        d("bitfield", -2, true, 1, 1, 1, List.of("write", "denyoom"), "bitmap", "3.2.0",
                "Perform arbitrary bitfield integer operations on strings", BitCommands::bitfield,
                BitCommands::checkBitfield);
        d("bitfield_ro", -2, false, 1, 1, 1, List.of("readonly", "fast"), "bitmap", "6.0.0",
                "Perform arbitrary bitfield integer operations on strings. Read-only variant of BITFIELD",
                BitCommands::bitfieldRo);
        // keys
        d("del", -2, true, 1, -1, 1, List.of("write"), "generic", "1.0.0",
                "Delete a key", KeyCommands::del);
        d("unlink", -2, true, 1, -1, 1, List.of("write", "fast"), "generic", "4.0.0",
                "Delete a key asynchronously in another thread. Otherwise it is just as DEL, but non blocking.",
                KeyCommands::del);
        d("exists", -2, false, 1, -1, 1, List.of("readonly", "fast"), "generic", "1.0.0",
                "Determine if a key exists", KeyCommands::exists);
        // Tandem keeps no access time (OBJECT IDLETIME is 0), so touching a key is counting it as EXISTS does
        d("touch", -2, false, 1, -1, 1, List.of("readonly", "fast"), "generic", "3.2.1",
                "Alters the last access time of a key(s). Returns the number of existing keys specified.",
                KeyCommands::exists);
        d("type", 2, false, 1, 1, 1, List.of("readonly", "fast"), "generic", "1.0.0",
                "Determine the type stored at key", KeyCommands::type);
        d("expire", -3, true, 1, 1, 1, List.of("write", "fast"), "generic", "1.0.0",
                "Set a key's time to live in seconds", KeyCommands::expire, KeyCommands::checkExpire);
        d("pexpire", -3, true, 1, 1, 1, List.of("write", "fast"), "generic", "2.6.0",
                "Set a key's time to live in milliseconds", KeyCommands::pexpire, KeyCommands::checkPexpire);
        d("expireat", -3, true, 1, 1, 1, List.of("write", "fast"), "generic", "1.2.0",
                "Set the expiration for a key as a UNIX timestamp", KeyCommands::expireat, KeyCommands::checkExpireat);
        d("pexpireat", -3, true, 1, 1, 1, List.of("write", "fast"), "generic", "2.6.0",
                "Set the expiration for a key as a UNIX timestamp specified in milliseconds", KeyCommands::pexpireat, KeyCommands::checkPexpireat);
        d("ttl", 2, false, 1, 1, 1, List.of("readonly", "fast"), "generic", "1.0.0",
                "Get the time to live for a key in seconds", KeyCommands::ttl);
        d("pttl", 2, false, 1, 1, 1, List.of("readonly", "fast"), "generic", "2.6.0",
                "Get the time to live for a key in milliseconds", KeyCommands::pttl);
        d("expiretime", 2, false, 1, 1, 1, List.of("readonly", "fast"), "generic", "7.0.0",
                "Get the expiration Unix timestamp for a key", KeyCommands::expiretime);
        d("pexpiretime", 2, false, 1, 1, 1, List.of("readonly", "fast"), "generic", "7.0.0",
                "Get the expiration Unix timestamp for a key in milliseconds", KeyCommands::pexpiretime);
        d("persist", 2, true, 1, 1, 1, List.of("write", "fast"), "generic", "2.2.0",
                "Remove the expiration from a key", KeyCommands::persist);
        d("keys", 2, false, 0, 0, 0, List.of("readonly"), "generic", "1.0.0",
                "Find all keys matching the given pattern", KeyCommands::keys);
        d("scan", -2, false, 0, 0, 0, List.of("readonly"), "generic", "2.8.0",
                "Incrementally iterate the keys space", KeyCommands::scan);
        d("randomkey", 1, false, 0, 0, 0, List.of("readonly"), "generic", "1.0.0",
                "Return a random key from the keyspace", KeyCommands::randomkey);
        d("rename", 3, true, 1, 2, 1, List.of("write"), "generic", "1.0.0",
                "Rename a key", KeyCommands::rename);
        d("renamenx", 3, true, 1, 2, 1, List.of("write", "fast"), "generic", "1.0.0",
                "Rename a key, only if the new key does not exist", KeyCommands::renamenx);
        d("copy", -3, true, 1, 2, 1, List.of("write", "denyoom"), "generic", "6.2.0",
                "Copy a key", KeyCommands::copy, KeyCommands::checkCopy);
        d("dump", 2, false, 1, 1, 1, List.of("readonly"), "generic", "2.6.0",
                "Return a serialized version of the value stored at the specified key.", DumpCommands::dump);
        d("restore", -4, true, 1, 1, 1, List.of("write", "denyoom"), "generic", "2.6.0",
                "Create a key using the provided serialized value, previously obtained using DUMP.",
                DumpCommands::restore, (Parse) DumpCommands::checkRestore);
        d("move", 3, true, 1, 1, 1, List.of("write", "fast"), "generic", "1.0.0",
                "Move a key to another database", KeyCommands::move, KeyCommands::checkMove);
        d("swapdb", 3, true, 0, 0, 0, List.of("write", "fast"), "server", "4.0.0",
                "Swaps two Redis databases", KeyCommands::swapdb, KeyCommands::checkSwapdb);
        d("sort", -2, true, 1, 1, 1, List.of("write", "denyoom", "movablekeys"), "generic", "1.0.0",
                "Sort the elements in a list, set or sorted set", SortCommands::sort, SortCommands::checkSort);
        d("sort_ro", -2, false, 1, 1, 1, List.of("readonly", "movablekeys"), "generic", "7.0.0",
                "Sort the elements in a list, set or sorted set. Read-only variant of SORT.", SortCommands::sortRo);
        d("dbsize", 1, false, 0, 0, 0, List.of("readonly", "fast"), "server", "1.0.0",
                "Return the number of keys in the selected database", KeyCommands::dbsize);
        d("flushdb", -1, true, 0, 0, 0, List.of("write"), "server", "1.0.0",
                "Remove all keys from the current database", KeyCommands::flush, KeyCommands::checkFlush);
        d("flushall", -1, true, 0, 0, 0, List.of("write"), "server", "1.0.0",
                "Remove all keys from all databases", KeyCommands::flush, KeyCommands::checkFlush);
        d("object", -2, false, 0, 0, 0, List.of(), "generic", "2.2.3",
                "A container for object introspection commands", ObjectCommands::object);
        d("memory", -2, false, 0, 0, 0, List.of(), "server", "4.0.0",
                "A container for memory diagnostics commands", ObjectCommands::memory);
        // scripting: the node runs EVAL and its kin through the keyspace's capture and journals their effects
        d("eval", -3, false, 0, 0, 0, List.of("noscript", "stale", "skip_monitor", "no_mandatory_keys",
                "movablekeys"), "scripting", "2.6.0", "Execute a Lua script server side", ScriptCommands::elsewhere);
        d("evalsha", -3, false, 0, 0, 0, List.of("noscript", "stale", "skip_monitor", "no_mandatory_keys",
                "movablekeys"), "scripting", "2.6.0", "Execute a Lua script server side", ScriptCommands::elsewhere);
        d("eval_ro", -3, false, 0, 0, 0, List.of("readonly", "noscript", "stale", "skip_monitor",
                "no_mandatory_keys", "movablekeys"), "scripting", "7.0.0",
                "Execute a read-only Lua script server side", ScriptCommands::elsewhere);
        d("evalsha_ro", -3, false, 0, 0, 0, List.of("readonly", "noscript", "stale", "skip_monitor",
                "no_mandatory_keys", "movablekeys"), "scripting", "7.0.0",
                "Execute a read-only Lua script server side", ScriptCommands::elsewhere);
        d("script", -2, false, 0, 0, 0, List.of(), "scripting", "2.6.0",
                "A container for Lua scripts management commands", ScriptCommands::script);
        d("function", -2, false, 0, 0, 0, List.of(), "scripting", "7.0.0",
                "A container for function commands", FunctionCommands::function);
        d("fcall", -3, false, 0, 0, 0, List.of("noscript", "stale", "skip_monitor", "no_mandatory_keys",
                "movablekeys"), "scripting", "7.0.0", "Invoke a function", ScriptCommands::elsewhere);
        d("fcall_ro", -3, false, 0, 0, 0, List.of("readonly", "noscript", "stale", "skip_monitor",
                "no_mandatory_keys", "movablekeys"), "scripting", "7.0.0", "Invoke a read-only function",
                ScriptCommands::elsewhere);
        // hashes
        d("hset", -4, true, 1, 1, 1, List.of("write", "denyoom", "fast"), "hash", "2.0.0",
                "Set the string value of a hash field", HashCommands::hset, HashCommands::checkHset);
        // deprecated since 4.0.0 for HSET, and still what Spring Data Redis sends for putAll
        d("hmset", -4, true, 1, 1, 1, List.of("write", "denyoom", "fast"), "hash", "2.0.0",
                "Set multiple hash fields to multiple values", HashCommands::hmset, HashCommands::checkHmset);
        d("hrandfield", -2, false, 1, 1, 1, List.of("readonly"), "hash", "6.2.0",
                "Get one or multiple random fields from a hash", HashCommands::hrandfield);
        d("hsetnx", 4, true, 1, 1, 1, List.of("write", "denyoom", "fast"), "hash", "2.0.0",
                "Set the value of a hash field, only if the field does not exist", HashCommands::hsetnx);
        d("hget", 3, false, 1, 1, 1, List.of("readonly", "fast"), "hash", "2.0.0",
                "Get the value of a hash field", HashCommands::hget);
        d("hmget", -3, false, 1, 1, 1, List.of("readonly", "fast"), "hash", "2.0.0",
                "Get the values of all the given hash fields", HashCommands::hmget);
        d("hdel", -3, true, 1, 1, 1, List.of("write", "fast"), "hash", "2.0.0",
                "Delete one or more hash fields", HashCommands::hdel);
        d("hgetall", 2, false, 1, 1, 1, List.of("readonly"), "hash", "2.0.0",
                "Get all the fields and values in a hash", HashCommands::hgetall);
        d("hkeys", 2, false, 1, 1, 1, List.of("readonly"), "hash", "2.0.0",
                "Get all the fields in a hash", HashCommands::hkeys);
        d("hvals", 2, false, 1, 1, 1, List.of("readonly"), "hash", "2.0.0",
                "Get all the values in a hash", HashCommands::hvals);
        d("hlen", 2, false, 1, 1, 1, List.of("readonly", "fast"), "hash", "2.0.0",
                "Get the number of fields in a hash", HashCommands::hlen);
        d("hexists", 3, false, 1, 1, 1, List.of("readonly", "fast"), "hash", "2.0.0",
                "Determine if a hash field exists", HashCommands::hexists);
        d("hincrby", 4, true, 1, 1, 1, List.of("write", "denyoom", "fast"), "hash", "2.0.0",
                "Increment the integer value of a hash field by the given number", HashCommands::hincrby, HashCommands::checkHincrby);
        d("hincrbyfloat", 4, true, 1, 1, 1, List.of("write", "denyoom", "fast"), "hash", "2.6.0",
                "Increment the float value of a hash field by the given amount", HashCommands::hincrbyfloat, HashCommands::checkHincrbyfloat);
        d("hstrlen", 3, false, 1, 1, 1, List.of("readonly", "fast"), "hash", "3.2.0",
                "Get the length of the value of a hash field", HashCommands::hstrlen);
        d("hscan", -3, false, 1, 1, 1, List.of("readonly"), "hash", "2.8.0",
                "Incrementally iterate hash fields and associated values", HashCommands::hscan);
        // lists
        d("lpush", -3, true, 1, 1, 1, List.of("write", "denyoom", "fast"), "list", "1.0.0",
                "Prepend one or multiple elements to a list", ListCommands::lpush);
        d("rpush", -3, true, 1, 1, 1, List.of("write", "denyoom", "fast"), "list", "1.0.0",
                "Append one or multiple elements to a list", ListCommands::rpush);
        d("lpushx", -3, true, 1, 1, 1, List.of("write", "denyoom", "fast"), "list", "2.2.0",
                "Prepend an element to a list, only if the list exists", ListCommands::lpushx);
        d("rpushx", -3, true, 1, 1, 1, List.of("write", "denyoom", "fast"), "list", "2.2.0",
                "Append an element to a list, only if the list exists", ListCommands::rpushx);
        d("lpop", -2, true, 1, 1, 1, List.of("write", "fast"), "list", "1.0.0",
                "Remove and get the first elements in a list", ListCommands::lpop,
                ListCommands::checkPop);
        d("rpop", -2, true, 1, 1, 1, List.of("write", "fast"), "list", "1.0.0",
                "Remove and get the last elements in a list", ListCommands::rpop,
                ListCommands::checkPop);
        d("llen", 2, false, 1, 1, 1, List.of("readonly", "fast"), "list", "1.0.0",
                "Get the length of a list", ListCommands::llen);
        d("lrange", 4, false, 1, 1, 1, List.of("readonly"), "list", "1.0.0",
                "Get a range of elements from a list", ListCommands::lrange);
        d("lindex", 3, false, 1, 1, 1, List.of("readonly"), "list", "1.0.0",
                "Get an element from a list by its index", ListCommands::lindex);
        d("lset", 4, true, 1, 1, 1, List.of("write", "denyoom"), "list", "1.0.0",
                "Set the value of an element in a list by its index", ListCommands::lset,
                ListCommands::checkLset);
        d("linsert", 5, true, 1, 1, 1, List.of("write", "denyoom"), "list", "2.2.0",
                "Insert an element before or after another element in a list", ListCommands::linsert,
                ListCommands::checkLinsert);
        d("lrem", 4, true, 1, 1, 1, List.of("write"), "list", "1.0.0",
                "Remove elements from a list", ListCommands::lrem,
                ListCommands::checkLrem);
        d("ltrim", 4, true, 1, 1, 1, List.of("write"), "list", "1.0.0",
                "Trim a list to the specified range", ListCommands::ltrim,
                ListCommands::checkLtrim);
        d("lpos", -3, false, 1, 1, 1, List.of("readonly"), "list", "6.0.6",
                "Return the index of matching elements on a list", ListCommands::lpos);
        d("lmove", 5, true, 1, 2, 1, List.of("write", "denyoom"), "list", "6.2.0",
                "Pop an element from a list, push it to another list and return it", ListCommands::lmove,
                ListCommands::checkLmove);
        d("rpoplpush", 3, true, 1, 2, 1, List.of("write", "denyoom"), "list", "1.2.0",
                "Remove the last element in a list, prepend it to another list and return it", ListCommands::rpoplpush);
        d("lmpop", -4, true, 0, 0, 0, List.of("write", "movablekeys"), "list", "7.0.0",
                "Pop elements from a list", ListCommands::lmpop,
                ListCommands::checkLmpop);
        // blocking forms: the pipeline parks a client whose command replied nil (ListCommands)
        d("blpop", -3, true, 1, -2, 1, List.of("write", "noscript", "blocking"), "list", "2.0.0",
                "Remove and get the first element in a list, or block until one is available", ListCommands::blpop,
                ListCommands::checkBlockingPop);
        d("brpop", -3, true, 1, -2, 1, List.of("write", "noscript", "blocking"), "list", "2.0.0",
                "Remove and get the last element in a list, or block until one is available", ListCommands::brpop,
                ListCommands::checkBlockingPop);
        d("blmove", 6, true, 1, 2, 1, List.of("write", "denyoom", "noscript", "blocking"), "list", "6.2.0",
                "Pop an element from a list, push it to another list and return it; or block until one is available",
                ListCommands::blmove, ListCommands::checkBlmove);
        d("brpoplpush", 4, true, 1, 2, 1, List.of("write", "denyoom", "noscript", "blocking"), "list", "2.2.0",
                "Pop an element from a list, push it to another list and return it; or block until one is available",
                ListCommands::brpoplpush, ListCommands::checkBrpoplpush);
        d("blmpop", -5, true, 0, 0, 0, List.of("write", "blocking", "movablekeys"), "list", "7.0.0",
                "Pop elements from a list, or block until one is available", ListCommands::blmpop,
                ListCommands::checkBlmpop);
        d("bzpopmin", -3, true, 1, -2, 1, List.of("write", "noscript", "blocking", "fast"), "sorted-set", "5.0.0",
                "Remove and return the member with the lowest score from one or more sorted sets, or block until one "
                + "is available", ZsetCommands::bzpopmin, ZsetCommands::checkBlockingZpop);
        d("bzpopmax", -3, true, 1, -2, 1, List.of("write", "noscript", "blocking", "fast"), "sorted-set", "5.0.0",
                "Remove and return the member with the highest score from one or more sorted sets, or block until one "
                + "is available", ZsetCommands::bzpopmax, ZsetCommands::checkBlockingZpop);
        d("bzmpop", -5, true, 0, 0, 0, List.of("write", "blocking", "movablekeys"), "sorted-set", "7.0.0",
                "Remove and return members with scores in a sorted set or block until one is available",
                ZsetCommands::bzmpop, ZsetCommands::checkBzmpop);
        // a blocking command applied again after it blocked: same descriptor, not listed by COMMAND, never sent by a
        // client (a name with '|' is a subcommand to the server), journaled by the pipeline only
        woken("blpop", ListCommands::blpopWoken);
        woken("brpop", ListCommands::brpopWoken);
        woken("blmove", ListCommands::blmoveWoken);
        woken("brpoplpush", ListCommands::brpoplpushWoken);
        woken("blmpop", ListCommands::blmpopWoken);
        woken("bzpopmin", ZsetCommands::bzpopminWoken);
        woken("bzpopmax", ZsetCommands::bzpopmaxWoken);
        woken("bzmpop", ZsetCommands::bzmpopWoken);
        // sets
        d("sadd", -3, true, 1, 1, 1, List.of("write", "denyoom", "fast"), "set", "1.0.0",
                "Add one or more members to a set", SetCommands::sadd);
        d("srem", -3, true, 1, 1, 1, List.of("write", "fast"), "set", "1.0.0",
                "Remove one or more members from a set", SetCommands::srem);
        d("scard", 2, false, 1, 1, 1, List.of("readonly", "fast"), "set", "1.0.0",
                "Get the number of members in a set", SetCommands::scard);
        d("sismember", 3, false, 1, 1, 1, List.of("readonly", "fast"), "set", "1.0.0",
                "Determine if a given value is a member of a set", SetCommands::sismember);
        d("smismember", -3, false, 1, 1, 1, List.of("readonly", "fast"), "set", "6.2.0",
                "Returns the membership associated with the given elements for a set", SetCommands::smismember);
        d("smembers", 2, false, 1, 1, 1, List.of("readonly"), "set", "1.0.0",
                "Get all the members in a set", SetCommands::smembers);
        d("spop", -2, true, 1, 1, 1, List.of("write", "fast"), "set", "1.0.0",
                "Remove and return one or multiple random members from a set", SetCommands::spop,
                SetCommands::checkSpop);
        d("srandmember", -2, false, 1, 1, 1, List.of("readonly"), "set", "1.0.0",
                "Get one or multiple random members from a set", SetCommands::srandmember);
        d("smove", 4, true, 1, 2, 1, List.of("write", "fast"), "set", "1.0.0",
                "Move a member from one set to another", SetCommands::smove);
        d("sinter", -2, false, 1, -1, 1, List.of("readonly"), "set", "1.0.0",
                "Intersect multiple sets", SetCommands::sinter);
        d("sintercard", -3, false, 0, 0, 0, List.of("readonly", "movablekeys"), "set", "7.0.0",
                "Intersect multiple sets and return the cardinality of the result", SetCommands::sintercard);
        d("sunion", -2, false, 1, -1, 1, List.of("readonly"), "set", "1.0.0",
                "Add multiple sets", SetCommands::sunion);
        d("sdiff", -2, false, 1, -1, 1, List.of("readonly"), "set", "1.0.0",
                "Subtract multiple sets", SetCommands::sdiff);
        d("sinterstore", -3, true, 1, -1, 1, List.of("write", "denyoom"), "set", "1.0.0",
                "Intersect multiple sets and store the resulting set in a key", SetCommands::sinterstore);
        d("sunionstore", -3, true, 1, -1, 1, List.of("write", "denyoom"), "set", "1.0.0",
                "Add multiple sets and store the resulting set in a key", SetCommands::sunionstore);
        d("sdiffstore", -3, true, 1, -1, 1, List.of("write", "denyoom"), "set", "1.0.0",
                "Subtract multiple sets and store the resulting set in a key", SetCommands::sdiffstore);
        d("sscan", -3, false, 1, 1, 1, List.of("readonly"), "set", "2.8.0",
                "Incrementally iterate Set elements", SetCommands::sscan);
        // sorted sets
        d("zadd", -4, true, 1, 1, 1, List.of("write", "denyoom", "fast"), "sorted-set", "1.2.0",
                "Add one or more members to a sorted set, or update its score if it already exists", ZsetCommands::zadd,
                ZsetCommands::checkZadd);
        d("zincrby", 4, true, 1, 1, 1, List.of("write", "denyoom", "fast"), "sorted-set", "1.2.0",
                "Increment the score of a member in a sorted set", ZsetCommands::zincrby,
                ZsetCommands::checkZincrby);
        d("zrem", -3, true, 1, 1, 1, List.of("write", "fast"), "sorted-set", "1.2.0",
                "Remove one or more members from a sorted set", ZsetCommands::zrem);
        d("zcard", 2, false, 1, 1, 1, List.of("readonly", "fast"), "sorted-set", "1.2.0",
                "Get the number of members in a sorted set", ZsetCommands::zcard);
        d("zscore", 3, false, 1, 1, 1, List.of("readonly", "fast"), "sorted-set", "1.2.0",
                "Get the score associated with the given member in a sorted set", ZsetCommands::zscore);
        d("zmscore", -3, false, 1, 1, 1, List.of("readonly", "fast"), "sorted-set", "6.2.0",
                "Get the score associated with the given members in a sorted set", ZsetCommands::zmscore);
        d("zrank", 3, false, 1, 1, 1, List.of("readonly", "fast"), "sorted-set", "2.0.0",
                "Determine the index of a member in a sorted set", ZsetCommands::zrank);
        d("zrevrank", 3, false, 1, 1, 1, List.of("readonly", "fast"), "sorted-set", "2.0.0",
                "Determine the index of a member in a sorted set, with scores ordered from high to low", ZsetCommands::zrevrank);
        d("zcount", 4, false, 1, 1, 1, List.of("readonly", "fast"), "sorted-set", "2.0.0",
                "Count the members in a sorted set with scores within the given values", ZsetCommands::zcount);
        d("zlexcount", 4, false, 1, 1, 1, List.of("readonly", "fast"), "sorted-set", "2.8.9",
                "Count the number of members in a sorted set between a given lexicographical range", ZsetCommands::zlexcount);
        d("zrange", -4, false, 1, 1, 1, List.of("readonly"), "sorted-set", "1.2.0",
                "Return a range of members in a sorted set", ZsetCommands::zrange);
        d("zrangestore", -5, true, 1, 2, 1, List.of("write", "denyoom"), "sorted-set", "6.2.0",
                "Store a range of members from sorted set into another key", ZsetCommands::zrangestore,
                ZsetCommands::checkZrangestore);
        d("zrevrange", -4, false, 1, 1, 1, List.of("readonly"), "sorted-set", "1.2.0",
                "Return a range of members in a sorted set, by index, with scores ordered from high to low", ZsetCommands::zrevrange);
        d("zrangebyscore", -4, false, 1, 1, 1, List.of("readonly"), "sorted-set", "1.0.5",
                "Return a range of members in a sorted set, by score", ZsetCommands::zrangebyscore);
        d("zrevrangebyscore", -4, false, 1, 1, 1, List.of("readonly"), "sorted-set", "2.2.0",
                "Return a range of members in a sorted set, by score, with scores ordered from high to low", ZsetCommands::zrevrangebyscore);
        d("zrangebylex", -4, false, 1, 1, 1, List.of("readonly"), "sorted-set", "2.8.9",
                "Return a range of members in a sorted set, by lexicographical range", ZsetCommands::zrangebylex);
        d("zrevrangebylex", -4, false, 1, 1, 1, List.of("readonly"), "sorted-set", "2.8.9",
                "Return a range of members in a sorted set, by lexicographical range, ordered from higher to lower strings.", ZsetCommands::zrevrangebylex);
        d("zremrangebyrank", 4, true, 1, 1, 1, List.of("write"), "sorted-set", "2.0.0",
                "Remove all members in a sorted set within the given indexes", ZsetCommands::zremrangebyrank,
                ZsetCommands::checkZremrangebyrank);
        d("zremrangebyscore", 4, true, 1, 1, 1, List.of("write"), "sorted-set", "1.2.0",
                "Remove all members in a sorted set within the given scores", ZsetCommands::zremrangebyscore,
                ZsetCommands::checkZremrangebyscore);
        d("zremrangebylex", 4, true, 1, 1, 1, List.of("write"), "sorted-set", "2.8.9",
                "Remove all members in a sorted set between the given lexicographical range", ZsetCommands::zremrangebylex,
                ZsetCommands::checkZremrangebylex);
        d("zpopmin", -2, true, 1, 1, 1, List.of("write", "fast"), "sorted-set", "5.0.0",
                "Remove and return members with the lowest scores in a sorted set", ZsetCommands::zpopmin,
                ZsetCommands::checkZpop);
        d("zpopmax", -2, true, 1, 1, 1, List.of("write", "fast"), "sorted-set", "5.0.0",
                "Remove and return members with the highest scores in a sorted set", ZsetCommands::zpopmax,
                ZsetCommands::checkZpop);
        d("zmpop", -4, true, 0, 0, 0, List.of("write", "movablekeys"), "sorted-set", "7.0.0",
                "Remove and return members with scores in a sorted set", ZsetCommands::zmpop,
                ZsetCommands::checkZmpop);
        d("zrandmember", -2, false, 1, 1, 1, List.of("readonly"), "sorted-set", "6.2.0",
                "Get one or multiple random elements from a sorted set", ZsetCommands::zrandmember);
        d("zunion", -3, false, 0, 0, 0, List.of("readonly", "movablekeys"), "sorted-set", "6.2.0",
                "Add multiple sorted sets", ZsetAlgebra::zunion);
        d("zinter", -3, false, 0, 0, 0, List.of("readonly", "movablekeys"), "sorted-set", "6.2.0",
                "Intersect multiple sorted sets", ZsetAlgebra::zinter);
        d("zdiff", -3, false, 0, 0, 0, List.of("readonly", "movablekeys"), "sorted-set", "6.2.0",
                "Subtract multiple sorted sets", ZsetAlgebra::zdiff);
        d("zunionstore", -4, true, 1, 1, 1, List.of("write", "denyoom", "movablekeys"), "sorted-set", "2.0.0",
                "Add multiple sorted sets and store the resulting sorted set in a new key", ZsetAlgebra::zunionstore,
                ZsetAlgebra::checkZunionstore);
        d("zinterstore", -4, true, 1, 1, 1, List.of("write", "denyoom", "movablekeys"), "sorted-set", "2.0.0",
                "Intersect multiple sorted sets and store the resulting sorted set in a new key", ZsetAlgebra::zinterstore,
                ZsetAlgebra::checkZinterstore);
        d("zdiffstore", -4, true, 1, 1, 1, List.of("write", "denyoom", "movablekeys"), "sorted-set", "6.2.0",
                "Subtract multiple sorted sets and store the resulting sorted set in a new key", ZsetAlgebra::zdiffstore,
                ZsetAlgebra::checkZdiffstore);
        d("zintercard", -3, false, 0, 0, 0, List.of("readonly", "movablekeys"), "sorted-set", "7.0.0",
                "Intersect multiple sorted sets and return the cardinality of the result", ZsetAlgebra::zintercard);
        d("zscan", -3, false, 1, 1, 1, List.of("readonly"), "sorted-set", "2.8.0",
                "Incrementally iterate sorted sets elements and associated scores", ZsetCommands::zscan);
        // HyperLogLog
        d("pfadd", -2, true, 1, 1, 1, List.of("write", "denyoom", "fast"), "hyperloglog", "2.8.9",
                "Adds the specified elements to the specified HyperLogLog.", HllCommands::pfadd);
        // a read in Tandem, as its flags say: the cardinality it caches in Redis is not written (departures.md)
        d("pfcount", -2, false, 1, -1, 1, List.of("readonly"), "hyperloglog", "2.8.9",
                "Return the approximated cardinality of the set(s) observed by the HyperLogLog at key(s).",
                HllCommands::pfcount);
        d("pfmerge", -2, true, 1, -1, 1, List.of("write", "denyoom"), "hyperloglog", "2.8.9",
                "Merge N different HyperLogLogs into a single one.", HllCommands::pfmerge);
        // geo: positions as sorted-set members scored by their geohash
        d("geoadd", -5, true, 1, 1, 1, List.of("write", "denyoom"), "geo", "3.2.0",
                "Add one or more geospatial items in the geospatial index represented using a sorted set",
                GeoCommands::geoadd, GeoCommands::checkGeoadd);
        d("geodist", -4, false, 1, 1, 1, List.of("readonly"), "geo", "3.2.0",
                "Returns the distance between two members of a geospatial index", GeoCommands::geodist);
        d("geohash", -2, false, 1, 1, 1, List.of("readonly"), "geo", "3.2.0",
                "Returns members of a geospatial index as standard geohash strings", GeoCommands::geohash);
        d("geopos", -2, false, 1, 1, 1, List.of("readonly"), "geo", "3.2.0",
                "Returns longitude and latitude of members of a geospatial index", GeoCommands::geopos);
        d("geosearch", -7, false, 1, 1, 1, List.of("readonly"), "geo", "6.2.0",
                "Query a sorted set representing a geospatial index to fetch members inside an area of a box or a "
                + "circle.", GeoCommands::geosearch);
        d("geosearchstore", -8, true, 1, 2, 1, List.of("write", "denyoom"), "geo", "6.2.0",
                "Query a sorted set representing a geospatial index to fetch members inside an area of a box or a "
                + "circle, and store the result in another key.", GeoCommands::geosearchstore);
        // writes as in Redis (STORE), journaled with or without it. No check refuses them before: Redis looks the
        // source key up first (a missing one is a keymiss event) and only then finds an argument wrong

        d("georadius", -6, true, 1, 1, 1, List.of("write", "denyoom", "movablekeys"), "geo", "3.2.0",
                "Query a sorted set representing a geospatial index to fetch members matching a given maximum "
                + "distance from a point", GeoCommands::georadius);
        d("georadiusbymember", -5, true, 1, 1, 1, List.of("write", "denyoom", "movablekeys"), "geo", "3.2.0",
                "Query a sorted set representing a geospatial index to fetch members matching a given maximum "
                + "distance from a member", GeoCommands::georadiusbymember);
        d("georadius_ro", -6, false, 1, 1, 1, List.of("readonly"), "geo", "3.2.10",
                "A read-only variant for GEORADIUS", GeoCommands::georadiusRo);
        d("georadiusbymember_ro", -5, false, 1, 1, 1, List.of("readonly"), "geo", "3.2.10",
                "A read-only variant for GEORADIUSBYMEMBER", GeoCommands::georadiusbymemberRo);
        // streams
        d("xadd", -5, true, 1, 1, 1, List.of("write", "denyoom", "fast"), "stream", "5.0.0",
                "Appends a new entry to a stream", StreamCommands::xadd, (Parse) StreamCommands::checkXadd);
        d("xrange", -4, false, 1, 1, 1, List.of("readonly"), "stream", "5.0.0",
                "Return a range of elements in a stream, with IDs matching the specified IDs interval",
                StreamCommands::xrange);
        d("xrevrange", -4, false, 1, 1, 1, List.of("readonly"), "stream", "5.0.0",
                "Return a range of elements in a stream, with IDs matching the specified IDs interval, in reverse "
                + "order (from greater to smaller IDs) compared to XRANGE", StreamCommands::xrevrange);
        d("xlen", 2, false, 1, 1, 1, List.of("readonly", "fast"), "stream", "5.0.0",
                "Return the number of entries in a stream", StreamCommands::xlen);
        d("xdel", -3, true, 1, 1, 1, List.of("write", "fast"), "stream", "5.0.0",
                "Removes the specified entries from the stream. Returns the number of items actually deleted, that "
                + "may be different from the number of IDs passed in case certain IDs do not exist.",
                StreamCommands::xdel);
        d("xtrim", -4, true, 1, 1, 1, List.of("write"), "stream", "5.0.0",
                "Trims the stream to (approximately if '~' is passed) a certain size", StreamCommands::xtrim,
                (Parse) StreamCommands::checkXtrim);
        // XREAD BLOCK parks as a read (the node's read path), XREADGROUP BLOCK as a write, as BLPOP does
        d("xread", -4, false, 0, 0, 0, List.of("readonly", "blocking", "movablekeys"), "stream", "5.0.0",
                "Return never seen elements in multiple streams, with IDs greater than the ones reported by the "
                + "caller for each stream. Can block.", StreamCommands::xread);
        d("xreadgroup", -7, true, 0, 0, 0, List.of("write", "blocking", "movablekeys"), "stream", "5.0.0",
                "Return new entries from a stream using a consumer group, or access the history of the pending "
                + "entries for a given consumer. Can block.", StreamCommands::xreadgroup,
                (Parse) StreamCommands::checkXreadgroup);
        d("xack", -4, true, 1, 1, 1, List.of("write", "fast"), "stream", "5.0.0",
                "Marks a pending message as correctly processed, effectively removing it from the pending entries "
                + "list of the consumer group. Return value of the command is the number of messages successfully "
                + "acknowledged, that is, the IDs we were actually able to resolve in the PEL.", StreamCommands::xack);
        d("xpending", -3, false, 1, 1, 1, List.of("readonly"), "stream", "5.0.0",
                "Return information and entries from a stream consumer group pending entries list, that are "
                + "messages fetched but never acknowledged.", StreamCommands::xpending);
        d("xclaim", -6, true, 1, 1, 1, List.of("write", "fast"), "stream", "5.0.0",
                "Changes (or acquires) ownership of a message in a consumer group, as if the message was delivered "
                + "to the specified consumer.", StreamCommands::xclaim);
        d("xautoclaim", -6, true, 1, 1, 1, List.of("write", "fast"), "stream", "6.2.0",
                "Changes (or acquires) ownership of messages in a consumer group, as if the messages were delivered "
                + "to the specified consumer.", StreamCommands::xautoclaim);
        d("xsetid", -3, true, 1, 1, 1, List.of("write", "denyoom", "fast"), "stream", "5.0.0",
                "An internal command for replicating stream values", StreamCommands::xsetid,
                (Parse) StreamCommands::checkXsetid);
        // containers: their subcommands all name the key at position 2, so the node touches and hashes it there
        d("xgroup", -2, true, 2, 2, 1, List.of(), "stream", "5.0.0",
                "A container for consumer groups commands", StreamCommands::xgroup, StreamCommands::checkXgroup);
        d("xinfo", -2, false, 2, 2, 1, List.of(), "stream", "5.0.0",
                "A container for stream introspection commands", StreamCommands::xinfo);
        woken("xread", StreamCommands::xreadWoken);
        woken("xreadgroup", StreamCommands::xreadgroupWoken);
        NAMES = new NameTable<>(TABLE);
    }

    private Commands() {
    }

    private static void d(String name, int arity, boolean write, int firstKey, int lastKey, int keyStep,
            List<String> flags, String group, String since, String summary, Handler handler) {
        d(name, arity, write, firstKey, lastKey, keyStep, flags, group, since, summary, handler, (Parse) null);
    }

    private static void d(String name, int arity, boolean write, int firstKey, int lastKey, int keyStep,
            List<String> flags, String group, String since, String summary, Handler handler, Check check) {
        d(name, arity, write, firstKey, lastKey, keyStep, flags, group, since, summary, handler,
                check == null ? (Parse) null : (a, nowMs) -> {
                    check.check(a, nowMs);
                    return null;
                });
    }

    private static void d(String name, int arity, boolean write, int firstKey, int lastKey, int keyStep,
            List<String> flags, String group, String since, String summary, Handler handler, Parse check) {
        CommandDescriptor descriptor = new CommandDescriptor(name, arity, write, firstKey, lastKey, keyStep, flags,
                group, since, summary);
        TABLE.put(name, new Spec(name, descriptor, handler, check));
        DESCRIPTORS.add(descriptor);
    }

    /** A blocking command's form applied again after it blocked ({@link Keyspace#WOKEN_SUFFIX}). */
    private static void woken(String name, Handler handler) {
        Spec base = TABLE.get(name);
        String woken = name + Keyspace.WOKEN_SUFFIX;
        TABLE.put(woken, new Spec(woken, base.descriptor(), handler, base.check()));
    }

    static Collection<CommandDescriptor> descriptors() {
        return Collections.unmodifiableList(DESCRIPTORS);
    }

    /** @return the descriptor of the command a client may name {@code lowerCaseName}, or null */
    static CommandDescriptor describe(String lowerCaseName) {
        Spec spec = find(lowerCaseName);
        return spec == null ? null : spec.descriptor();
    }

    /** A command a client may name: not a woken form, which only the node journals. */
    static Spec find(String lowerCaseName) {
        return lowerCaseName.endsWith(Keyspace.WOKEN_SUFFIX) ? null : TABLE.get(lowerCaseName);
    }

    /**
     * Resolves {@code args} once ({@link tandem.api.store.Keyspace#resolve}): woken forms too.
     *
     * @return the command, or null when no keyspace command has its name
     */
    static Command resolve(byte[][] args) {
        if (args == null || args.length == 0) {
            return null;
        }
        Spec spec = NAMES.get(args[0]);
        if (spec == null) {
            return null;
        }
        CommandDescriptor d = spec.descriptor();
        long keyHash = d.write() && d.firstKey() > 0 && d.firstKey() < args.length
                ? KeyHash.fnv1a64(args[d.firstKey()]) : 0;
        return Command.keyspace(args, spec.name(), d, spec, keyHash);
    }

    /** The command of {@code args}, or IllegalArgumentException: unknown commands are the server's to answer. */
    static Command of(byte[][] args) {
        Command c = resolve(args);
        if (c == null) {
            throw new IllegalArgumentException(args == null || args.length == 0 ? "empty command"
                    : "unknown keyspace command '" + Args.text(args[0]) + "'");
        }
        return c;
    }

    /**
     * @return the table entry of {@code c}: its own when this table resolved it, else (a command resolved by a
     *         keyspace since replaced, whose classes were another bundle generation's) found again by name
     */
    static Spec spec(Command c) {
        return c.implementation() instanceof Spec s ? s : of(c.args()).implementation() instanceof Spec s ? s : null;
    }
}
