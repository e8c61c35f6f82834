package tandem.api.server;

import org.osgi.annotation.versioning.ConsumerType;
import org.osgi.annotation.versioning.ProviderType;

/**
 * A say in whether the node takes a client's write. The node consults every {@code WriteAdmission} service on its
 * logic thread before it gives a write a sequence, in the order of {@code service.ranking} (highest first), and
 * answers the first refusal; a refused write is never journaled, so nothing is ever refused after sequencing.
 * {@code min-replicas-to-write} is the node's own provider; the quorum fence is another.
 *
 * <p>It is called for every write, and every client waits while it runs: answer from state already held, without
 * I/O and without a lock that may wait. A provider that throws refuses the write (the node fails closed) and the
 * exception is logged.
 */
@ConsumerType
public interface WriteAdmission {

    /**
     * @param replicas the node's replicas as its response gate sees them now
     * @return null to admit the write; otherwise the error the client is answered: a RESP error without its leading
     *         {@code -}, starting with its code ({@code NOREPLICAS Not enough good replicas to write.})
     */
    String admit(Replicas replicas);

    /** The node's replicas, of both protocols, as its response gate sees them. */
    @ProviderType
    interface Replicas {

        /**
         * @param maxLagNanos how recent an acknowledgement must be; 0: any connected replica that acknowledged once
         * @return how many replicas acknowledged within {@code maxLagNanos}, or acknowledged everything durable here
         */
        int good(long maxLagNanos);

        /** @return how many replicas are streaming: attached and holding a position in this node's history */
        int streaming();

        /**
         * @return nanoseconds since the last acknowledgement of any replica, streaming now or gone since (liveness,
         *         whatever they hold: a replica reconnecting within the window still counts); {@link Long#MAX_VALUE}
         *         when none ever acknowledged
         */
        long sinceLastAckNanos();

        /**
         * @return each streaming replica ({@code protocol id@address}) with the milliseconds since its last
         *         acknowledgement, for status
         */
        java.util.Map<String, Long> ackAgesMillis();
    }
}
