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
    static final List<Entry> ENTRIES = List.of(); // F1-F12 of docs/fuzzing.md are fixed

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
