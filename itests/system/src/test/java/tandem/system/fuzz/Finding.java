package tandem.system.fuzz;

import java.util.List;

/**
 * Something the fuzzer found: a reply that differs from Redis' beyond the {@link Rule}s, a hang, a dropped
 * connection, a dead node, an error in a node's log, a stopped apply, or replicas that do not converge.
 *
 * @param signature    what makes two findings "the same" (kind, command, the kinds of both replies)
 * @param seed         the seed whose stream produced it
 * @param index        the number of generated commands of that seed before it
 * @param command      the command (escaped as redis-cli takes it)
 * @param reproduction the commands that reproduce it against fresh keyspaces (shrunk when possible), one a line
 *                     as {@code A: …} or {@code B: …} (the connection)
 * @param known        the {@link KnownFindings} entry it matches, or null
 */
record Finding(Kind kind, String signature, long seed, long index, String command, String redis, String tandem,
        String detail, List<String> reproduction, KnownFindings.Entry known) {

    enum Kind {
        /** a reply differs */
        MISMATCH(false),
        /** the keyspaces differ at the end of an episode although every reply agreed */
        STATE(false),
        /** no reply within the timeout while Redis answered */
        HANG(true),
        /** Tandem closed a connection Redis kept (or kept one Redis closed) */
        DROP(false),
        /** a node process died */
        CRASH(true),
        /** bytes that are not RESP2 */
        PROTOCOL(false),
        /** an error line in a node's log */
        LOG(false),
        /** apply_status or journal_status stopped on a node */
        STOPPED(true),
        /** the replicas' store:digest differs from the primary's after the deadline */
        DIGEST(false),
        /** a SCAN that did not end */
        ENDLESS_SCAN(false);

        /** whether the run cannot go on after it */
        final boolean fatal;

        Kind(boolean fatal) {
            this.fatal = fatal;
        }
    }

    Finding withReproduction(List<String> repro) {
        return new Finding(kind, signature, seed, index, command, redis, tandem, detail, repro, known);
    }

    /** Several lines for a report. */
    String describe() {
        StringBuilder sb = new StringBuilder();
        sb.append(kind).append(" at seed ").append(seed).append(", command #").append(index);
        if (known != null) {
            sb.append(" (known: ").append(known.id()).append(')');
        }
        sb.append("\n  signature: ").append(signature);
        if (command != null) {
            sb.append("\n  command:   ").append(command);
        }
        if (redis != null) {
            sb.append("\n  redis:     ").append(redis);
        }
        if (tandem != null) {
            sb.append("\n  tandem:    ").append(tandem);
        }
        if (detail != null && !detail.isEmpty()) {
            sb.append("\n  detail:    ").append(detail.replace("\n", "\n             "));
        }
        if (reproduction != null && !reproduction.isEmpty()) {
            sb.append("\n  reproduction (fresh keyspace):");
            for (String line : reproduction) {
                sb.append("\n    ").append(line);
            }
        }
        return sb.toString();
    }
}
