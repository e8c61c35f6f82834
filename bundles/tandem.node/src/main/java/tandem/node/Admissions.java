package tandem.node;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import tandem.api.server.WriteAdmission;

/**
 * The write-admission providers, asked in order before a write is sequenced: the node's own
 * {@code min-replicas-to-write} first, then every registered provider by service ranking (among equal rankings, the
 * one added first). A provider that throws refuses the write, and its failure is logged once.
 */
final class Admissions {

    private static final Logger LOG = System.getLogger("tandem.node");

    private record Ranked(WriteAdmission admission, int ranking, long order) {
    }

    private final MinReplicasAdmission minReplicas = new MinReplicasAdmission();
    /** Highest ranking first; copy on write, read by the logic thread without a lock. */
    private volatile List<Ranked> ranked = List.of(new Ranked(minReplicas, Integer.MAX_VALUE, 0));
    /** How many providers were ever added: the order among equal rankings. Guarded by {@code this}. */
    private long added;
    private final Set<WriteAdmission> failuresLogged = ConcurrentHashMap.newKeySet();

    /** See {@link tandem.api.node.Node#minReplicasToWrite}. */
    void minReplicasToWrite(int replicas, long maxLagMillis) {
        minReplicas.configure(replicas, maxLagMillis);
    }

    synchronized void add(WriteAdmission admission, int ranking) {
        List<Ranked> next = new ArrayList<>(ranked);
        next.add(new Ranked(admission, ranking, ++added));
        next.sort(Comparator.comparingInt(Ranked::ranking).reversed().thenComparingLong(Ranked::order));
        ranked = List.copyOf(next);
    }

    synchronized void remove(WriteAdmission admission) {
        List<Ranked> next = new ArrayList<>(ranked);
        next.removeIf(r -> r.admission() == admission);
        ranked = List.copyOf(next);
        failuresLogged.remove(admission);
    }

    /** @return the first provider's refusal of a write, or null when every one admits it */
    String refusal(WriteAdmission.Replicas replicas) {
        for (Ranked r : ranked) {
            String refused;
            try {
                refused = r.admission().admit(replicas);
            } catch (RuntimeException | Error e) {
                if (failuresLogged.add(r.admission())) {
                    LOG.log(Level.ERROR, "write admission provider " + r.admission().getClass().getName()
                            + " failed; writes are refused while it fails (logged once)", e);
                }
                return "ERR write admission failed (" + e + "): the write was not journaled";
            }
            if (refused != null) {
                return refused;
            }
        }
        return null;
    }
}
