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

    static final List<Entry> ENTRIES = List.of();

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
