package tandem.system.fuzz;

import java.util.List;

/** What the fuzzer checks about the Tandem nodes besides their replies. */
interface Nodes {

    /** @return the RESP port of the primary the fuzzer talks to */
    int primaryPort();

    /** @return a description of each node whose process is no longer alive */
    List<String> dead();

    /** @return error lines that appeared in any node's log since the last call, each prefixed with the node */
    List<String> newLogProblems();

    /** @return a description of each node whose INFO shows apply_status or journal_status stopped */
    List<String> stopped();

    /**
     * Waits (with a deadline) until every replica holds the primary's {@code store:digest}.
     *
     * @return null when they converged, else what differs
     */
    String awaitConvergence();
}
