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
 *
 * <p>A provider registered with {@value #REQUIRED} (a name, such as the quorum fence's) is one the node must not
 * write without once it has seen it: while it is away (its bundle being updated) writes wait for it, and are refused
 * if it does not come back in time, rather than pass unchecked.
 */
final class Admissions {

    private static final Logger LOG = System.getLogger("tandem.node");
    /** The service property naming a provider the node fails closed without, once it has seen it. */
    static final String REQUIRED = "tandem.admission.required";

    private record Ranked(WriteAdmission admission, int ranking, long order, String required) {
    }

    private final MinReplicasAdmission minReplicas = new MinReplicasAdmission();
    /** Highest ranking first; copy on write, read by the logic thread without a lock. */
    private volatile List<Ranked> ranked = List.of(new Ranked(minReplicas, Integer.MAX_VALUE, 0, null));
    /** The required providers ever seen, by name. Guarded by {@code this}. */
    private final Set<String> requiredSeen = new java.util.HashSet<>();
    /** A required provider seen and not registered now, or null: derived at each add and remove. */
    private volatile String missing;
    /** How many providers were ever added: the order among equal rankings. Guarded by {@code this}. */
    private long added;
    private final Set<WriteAdmission> failuresLogged = ConcurrentHashMap.newKeySet();

    /** See {@link tandem.api.node.Node#minReplicasToWrite}. */
    void minReplicasToWrite(int replicas, long maxLagMillis) {
        minReplicas.configure(replicas, maxLagMillis);
    }

    /** @param required the name of a provider the node must not write without from now on, or null */
    synchronized void add(WriteAdmission admission, int ranking, String required) {
        if (required != null) {
            requiredSeen.add(required);
        }
        List<Ranked> next = new ArrayList<>(ranked);
        next.add(new Ranked(admission, ranking, ++added, required));
        next.sort(Comparator.comparingInt(Ranked::ranking).reversed().thenComparingLong(Ranked::order));
        ranked = List.copyOf(next);
        missing = findMissing();
    }

    /** Requires {@code name} as if its provider had been seen and gone since (recorded before a restart). */
    synchronized void require(String name) {
        requiredSeen.add(name);
        missing = findMissing();
    }

    synchronized void remove(WriteAdmission admission) {
        List<Ranked> next = new ArrayList<>(ranked);
        next.removeIf(r -> r.admission() == admission);
        ranked = List.copyOf(next);
        failuresLogged.remove(admission);
        missing = findMissing();
    }

    /**
     * @return the name of a required provider that was seen and is not registered now, or null
     */
    String missingRequired() {
        return missing;
    }

    /** Holds {@code this}. */
    private String findMissing() {
        for (String name : requiredSeen) {
            if (ranked.stream().noneMatch(r -> name.equals(r.required()))) {
                return name;
            }
        }
        return null;
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
