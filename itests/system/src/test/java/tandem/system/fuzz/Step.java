package tandem.system.fuzz;

import java.util.ArrayList;
import java.util.List;

/**
 * What the fuzzer sends at once: one or more pipelined segments, each on one of the two client connections
 * (0 = A, 1 = B), run one after the other. The same step goes to Redis and to Tandem.
 */
record Step(Kind kind, List<Segment> segments, byte[] raw) {

    Step(Kind kind, List<Segment> segments) {
        this(kind, segments, null);
    }

    /** Bytes sent as they are on a connection of their own: inline commands, malformed RESP. */
    static Step raw(byte[] bytes, List<byte[]> parsed) {
        return new Step(Kind.RAW, parsed == null ? List.of() : List.of(new Segment(0, List.of(parsed))), bytes);
    }

    enum Kind {
        /** one command */
        SINGLE,
        /** several commands in one write (the last may be QUIT) */
        BATCH,
        /** MULTI … EXEC or DISCARD */
        TRANSACTION,
        /** WATCH, perhaps a write to a watched key from either connection, then MULTI … EXEC */
        WATCH,
        /** a SCAN, HSCAN, SSCAN or ZSCAN from cursor 0, iterated to its end on each server; the unions are compared */
        SCAN_ITERATION,
        /** raw bytes on a fresh connection: the reply bytes and whether the connection closed are compared */
        RAW,
        /**
         * a blocking command on connection A (its first segment) that blocks on both servers, then a push on
         * connection B (the second) that serves it; both replies are compared
         */
        BLOCKING,
        /** the fuzzer's own commands (FLUSHALL between episodes, the state comparison) */
        HARNESS
    }

    /** Commands pipelined on one connection. */
    record Segment(int conn, List<List<byte[]>> commands) {
    }

    static Step single(Kind kind, int conn, List<byte[]> command) {
        return new Step(kind, List.of(new Segment(conn, List.of(command))));
    }

    int commandCount() {
        if (kind == Kind.RAW) {
            return 1;
        }
        int n = 0;
        for (Segment s : segments) {
            n += s.commands().size();
        }
        return n;
    }

    /** Every command of the step with its connection, in order. */
    List<Sent> flatten() {
        List<Sent> out = new ArrayList<>();
        for (Segment s : segments) {
            for (List<byte[]> c : s.commands()) {
                out.add(new Sent(s.conn(), c, 0));
            }
        }
        return out;
    }

    /**
     * A command, the connection it went to, and the write it went in: a replay pipelines consecutive commands of
     * one write together again.
     */
    record Sent(int conn, List<byte[]> command, long write) {
    }
}
