package tandem.system.fuzz;

import java.util.List;
import java.util.regex.Pattern;

/**
 * Findings already reported, recognised by their signature so that a run reports them as known (and does not spend
 * its time shrinking them again). A known finding still fails {@code FuzzSystemTest} unless the run tolerates it
 * ({@code -Dfuzz.tolerate=all} or a comma-separated list of ids): each entry must be removed once fixed.
 */
final class KnownFindings {

    /** @param id the finding's name in docs/fuzzing.md */
    record Entry(String id, Pattern signature, String summary) {
    }

    /** In the order they are matched; each is described, with its reproduction, in docs/fuzzing.md. */
    static final List<Entry> ENTRIES = List.of(
            entry("F1", "^mismatch exec \\| redis \\*(nil)? \\| tandem -EXECABORT",
                    "WATCH inside MULTI makes Tandem abort the EXEC; Redis 7.0 answers the error and runs it"),
            entry("F2", "^mismatch client getname ",
                    "HELLO applies nothing when an option fails; Redis 7.0 has already applied SETNAME"),
            entry("F3", "^mismatch config set \\| redis -ERR (Unknown option or number of arguments|CONFIG SET "
                    + "failed \\(possibly related to argument '…'\\) - duplicate p)",
                    "CONFIG SET accepts a repeated parameter and checks values before names"),
            entry("F4", "^mismatch config set \\| redis (\\+|-ERR CONFIG SET failed \\(possibly related to "
                    + "argument '…'\\) - argument (mu|co)[^|]*) \\| tandem -ERR CONFIG SET failed \\(possibly "
                    + "related to argument '…'\\) - argument co",
                    "CONFIG SET proto-max-bulk-len takes no memory units (512mb) and names the wrong error"),
            entry("F5", "^mismatch config get ",
                    "CONFIG GET: min-replicas-max-lag defaults to 5 (Redis 10); a name is not echoed as asked"),
            entry("F6", "^mismatch client list ", "CLIENT LIST TYPE and CLIENT LIST ID answer a syntax error"),
            entry("F7", "^mismatch wait \\| redis -ERR timeout is not an integer",
                    "WAIT with a non-integer timeout names the wrong error"),
            entry("F8", "^mismatch (exec \\[expiretime\\]|expiretime) ",
                    "EXPIRETIME of a deadline within 500 ms of 2^63 ms overflows to a negative number"),
            entry("F9", "^mismatch (exec \\[h?scan\\]|h?scan) .*tandem -ERR invalid cursor",
                    "SCAN/HSCAN refuse a cursor that starts with a NUL byte; Redis reads it as 0"),
            entry("F10", "^stopped |fail-stop.*OutOfMemoryError|the replay stopped .*OutOfMemoryError|^mismatch "
                    + "\\S+.* \\| tandem -MISCONF writes are stopped: applying journal entry N \\(FLUSHALL\\)",
                    "FLUSHALL over ~130 MB of values runs a 160 MB node out of heap: apply fail-stops (a replica "
                            + "may stop while its primary goes on: the digests then differ)"),
            entry("F11", "^log Exception in thread \"tandem-psync-.*OutOfMemoryError",
                    "the primary's psync sender thread dies of OutOfMemoryError streaming a burst of large writes"),
            entry("F12", "^drop set|^log .*closing client .*OutOfMemoryError|^log .*OutOfMemoryError.* @ "
                    + "tandem\\.server\\.resp\\.RespRequestDecoder|^log .*failed unexpectedly.*OutOfMemoryError",
                    "a pipelined burst of ~180 MB of SETs runs the node out of heap (request decoder, sequencer): the "
                            + "connection is closed after a few replies"));

    private static Entry entry(String id, String signature, String summary) {
        return new Entry(id, Pattern.compile(signature), summary);
    }

    private KnownFindings() {
    }

    static Entry match(String signature) {
        for (Entry e : ENTRIES) {
            if (e.signature().matcher(signature).find()) {
                return e;
            }
        }
        return null;
    }
}
