package tandem.api.replication;

import java.util.List;

/**
 * One protocol's view of replication.
 *
 * @param protocol   {@code journal} or {@code psync}
 * @param role       {@code primary} or {@code replica}
 * @param ackPolicy  the policy in force (on a replica: the one its primary announced, or null before it did)
 * @param epoch      the fencing epoch this node has seen
 * @param listening  where replicas connect ({@code ip:port}), or null
 * @param upstream   on a replica, its link to the primary; null on a primary
 * @param replicas   on a primary, the replicas it serves (connected or registered)
 * @param fence      on a primary that refuses writes, why (the error writes get); null otherwise
 * @param psync      the psync protocol's identity and counters; null for other protocols
 */
public record ReplicationStatus(String protocol, String role, AckPolicy ackPolicy, long epoch, String listening,
        Upstream upstream, List<Replica> replicas, String fence, Psync psync) {

    /** A status without a fence or psync identity. */
    public ReplicationStatus(String protocol, String role, AckPolicy ackPolicy, long epoch, String listening,
            Upstream upstream, List<Replica> replicas) {
        this(protocol, role, ackPolicy, epoch, listening, upstream, replicas, null, null);
    }

    /** A status without a psync identity. */
    public ReplicationStatus(String protocol, String role, AckPolicy ackPolicy, long epoch, String listening,
            Upstream upstream, List<Replica> replicas, String fence) {
        this(protocol, role, ackPolicy, epoch, listening, upstream, replicas, fence, null);
    }

    /**
     * The psync protocol's identity and counters, for {@code INFO replication} and {@code INFO stats}.
     *
     * @param replicationId     this node's replication id, 40 hex digits
     * @param replicationId2    the id it took over from its former primary, or 40 zeros
     * @param secondOffset      the offset up to which {@code replicationId2} is valid (inclusive), -1 when none
     * @param syncFull          full syncs served
     * @param syncPartialOk     {@code +CONTINUE}s served
     * @param syncPartialErr    named partial syncs refused (each became a full sync)
     */
    public record Psync(String replicationId, String replicationId2, long secondOffset, long syncFull,
            long syncPartialOk, long syncPartialErr) {
    }

    /**
     * A replica as its primary sees it.
     *
     * @param id             its identity (a key fingerprint)
     * @param address        {@code ip:port} while connected, else empty
     * @param state          {@code connecting}, {@code snapshot}, {@code catching-up}, {@code streaming} or
     *                       {@code disconnected}
     * @param sent           the last sequence sent to it
     * @param inMemory       the last sequence it accepted into its pipeline
     * @param acked          the last sequence it made durable
     * @param lagEntries     entries between the primary's last sequence and {@code acked}
     * @param lastAckMillis  milliseconds since its last acknowledgement, -1 when none
     * @param transfer       the snapshot or full sync being sent to it, or null
     */
    public record Replica(String id, String address, String state, long sent, long inMemory, long acked,
            long lagEntries, long lastAckMillis, Transfer transfer) {

        /** A replica with no transfer under way. */
        public Replica(String id, String address, String state, long sent, long inMemory, long acked,
                long lagEntries, long lastAckMillis) {
            this(id, address, state, sent, inMemory, acked, lagEntries, lastAckMillis, null);
        }
    }

    /**
     * A replica's link to its primary.
     *
     * @param address         the primary's {@code ip:port}
     * @param state           {@code connecting}, {@code authenticating}, {@code snapshot}, {@code installing},
     *                        {@code streaming}, {@code refused} or {@code disconnected}
     * @param received        the last sequence received into the pipeline
     * @param acked           the last sequence made durable and acknowledged
     * @param lastFrameMillis milliseconds since the primary last sent anything, -1 when never
     * @param lastError       why the last session ended, or null
     * @param transfer        the snapshot or full sync being received, or null
     */
    public record Upstream(String address, String state, long received, long acked, long lastFrameMillis,
            String lastError, Transfer transfer) {

        /** A link with no transfer under way. */
        public Upstream(String address, String state, long received, long acked, long lastFrameMillis,
                String lastError) {
            this(address, state, received, acked, lastFrameMillis, lastError, null);
        }
    }

    /**
     * A snapshot or full sync under way.
     *
     * @param what           what is transferred: {@code snapshot} (a checkpoint stream), {@code segment seed}
     * @param bytes          bytes done
     * @param totalBytes     bytes in all, -1 when unknown
     * @param bytesPerSecond the average rate since it began
     */
    public record Transfer(String what, long bytes, long totalBytes, double bytesPerSecond) {

        /**
         * @return the seconds left at the average rate so far, or -1 when the total or the rate is not known yet
         * @since 1.5
         */
        public double secondsLeft() {
            return totalBytes < 0 || bytesPerSecond <= 0 ? -1 : Math.max(0, totalBytes - bytes) / bytesPerSecond;
        }

        /** @return {@code snapshot 1048576/8388608 bytes (12%, 40.0 MiB/s, 0.2 s left)} */
        @Override
        public String toString() {
            double left = secondsLeft();
            return String.format(java.util.Locale.ROOT, "%s %d/%d bytes (%s%.1f MiB/s, %s)", what, bytes, totalBytes,
                    totalBytes > 0 ? (bytes * 100 / totalBytes) + "%, " : "", bytesPerSecond / (1024 * 1024),
                    left < 0 ? "time left unknown" : String.format(java.util.Locale.ROOT, "%.1f s left", left));
        }
    }
}
