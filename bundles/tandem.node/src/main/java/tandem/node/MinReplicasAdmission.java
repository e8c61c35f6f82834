package tandem.node;

import java.util.concurrent.TimeUnit;

import tandem.api.server.WriteAdmission;

/**
 * Redis' {@code min-replicas-to-write}: writes are refused with {@code -NOREPLICAS} while fewer than {@code replicas}
 * replicas are good (acknowledged within the lag, or hold everything). The node's own write-admission provider.
 */
final class MinReplicasAdmission implements WriteAdmission {

    static final String NOREPLICAS = "NOREPLICAS Not enough good replicas to write.";

    private volatile int replicas;
    private volatile long maxLagNanos;

    void configure(int replicas, long maxLagMillis) {
        this.maxLagNanos = TimeUnit.MILLISECONDS.toNanos(maxLagMillis);
        this.replicas = replicas;
    }

    @Override
    public String admit(Replicas view) {
        int min = replicas;
        return min > 0 && view.good(maxLagNanos) < min ? NOREPLICAS : null;
    }
}
