package tandem.system.fuzz;

/**
 * The normalisations the fuzzer applies before it compares a reply with Redis', each with the row of
 * {@code docs/departures.md} that allows it (the first cell of the row, as written there). {@code FuzzSystemTest}
 * checks that every row named here exists.
 */
enum Rule {
    EXACT(null, "the reply bytes"),
    SORTED("`KEYS`, `SCAN`, `HKEYS`, `HVALS`, `HGETALL`, `SMEMBERS`, `SINTER`, `SUNION`, `SDIFF`, `SPOP` order",
            "elements sorted (HGETALL: field/value pairs)"),
    SCAN_PAGE("`SCAN` cursors", "a SCAN/HSCAN/SSCAN/ZSCAN page: the same shape (cursor digits, an array of bulk "
            + "strings, pairs for HSCAN and ZSCAN); the elements as sorted sets when both started at cursor 0 and "
            + "ended at cursor 0"),
    SCAN_UNION("`SCAN` cursors", "a SCAN/HSCAN/SSCAN/ZSCAN from cursor 0 iterated to its end on each server: the "
            + "sorted unions"),
    RANDOM("`RANDOMKEY`", "nil or not"),
    RANDOM_FIELD("`HRANDFIELD`, `SRANDMEMBER`, `ZRANDMEMBER`", "nil or not; with a count, the number of elements, "
            + "distinct ones for a positive count and exactly |count| for a negative one, on both servers; a positive "
            + "count that covers the collection, the same elements"),
    SORT_NOSORT("`SORT … BY nosort` of a set", "SORT/SORT_RO of a set (Redis' TYPE, asked when the replies differ) "
            + "with a BY pattern without '*' and without STORE: without LIMIT the elements sorted (in groups of the GET "
            + "patterns), with LIMIT their number; of a list or a sorted set, the reply bytes"),
    SORT_ERRNO("`SORT` by score after a float that overflowed", "SORT/SORT_RO without BY, GET, ALPHA and STORE: "
            + "Redis' `-ERR One or more scores can't be converted into double` against Tandem's array of integers "
            + "(which no strtod fails on: Redis read a stale ERANGE), empty only with LIMIT"),
    TIME("`TIME`, `INFO` values", "two integer bulk strings"),
    INFO("`INFO`", "the reply type: a bulk string (a verbatim string in RESP3)"),
    CLIENT("`CLIENT LIST`, `CLIENT INFO`", "the reply type: a bulk string (a verbatim string in RESP3)"),
    CLIENT_ID("`CLIENT ID`, `HELLO`'s `id`", "an integer"),
    HELLO("`HELLO`", "the values of `id` and `version` masked"),
    HELP("`<container> HELP`", "an array of simple strings"),
    COMMAND("`COMMAND COUNT`, `COMMAND LIST`", "COMMAND and COMMAND INFO, DOCS or LIST of every command: each entry "
            + "Tandem lists is Redis's, byte for byte; by name, the entries are equal; COMMAND COUNT: an integer "
            + "(MEMORY, LATENCY and SENTINEL describe Tandem's own)"),
    CONFIG_SET_RANGE("`CONFIG SET`", "an out-of-range error with the bounds masked (Tandem names its own ranges)"),
    CONFIG_GET("`CONFIG GET`", "the pairs of parameters both servers have, sorted, with the values of port, "
            + "io-threads and databases masked"),
    TTL("remaining time to live", "TTL/EXPIRETIME within 2 s, PTTL/PEXPIRETIME within 2000 ms; negative exact; "
            + "EXPIRETIME/PEXPIRETIME exact for a key both servers were given the same instant (EXPIREAT, PEXPIREAT, "
            + "EXAT, PXAT) and nothing wrote since"),
    WAIT("`WAIT` in the fuzzer", "an integer"),
    ROLE("`ROLE` in the fuzzer", "the first element"),
    OBJECT("`OBJECT IDLETIME`, `OBJECT FREQ`", "the reply type"),
    MEMORY("`MEMORY USAGE`", "the reply type"),
    DUMP("`DUMP`", "the payload's bytes, but for a hash or a hashtable set its object type and length (its fields in "
            + "another order), and for a stream its object type and length (its consumers' seen times and its "
            + "pending entries' delivery times are each server's clock)"),
    STREAM_TIMES("the time of IDs made by `*`, delivery, seen and idle times", "XPENDING's extended form with each "
            + "entry's idle time, XINFO CONSUMERS with each consumer's `idle`, XINFO STREAM FULL with each "
            + "consumer's `seen-time` and each pending entry's delivery time masked (an integer on both servers); "
            + "the rest byte for byte");

    /** The first cell of the row in docs/departures.md; null for EXACT. */
    final String departure;
    /** What is compared. */
    final String compared;

    Rule(String departure, String compared) {
        this.departure = departure;
        this.compared = compared;
    }
}
