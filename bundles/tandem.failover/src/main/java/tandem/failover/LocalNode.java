package tandem.failover;

/**
 * The node this failover component runs on, as the group needs it: what it reports and the two role changes the
 * group makes. Kept narrow so that the component's references to the node's services can come and go (a swap of the
 * journal or replication bundle) without the group seeing more than a short silence.
 */
interface LocalNode {

    /**
     * What a node that follows its primary by psync reports as its role: the group never promotes it (its journal
     * is numbered in its own lineage and its acknowledgements count for no ack policy, so its history cannot be
     * weighed against the journal replicas'), and re-points it by psync to each new primary's RESP address, where it
     * continues without a full sync when that primary was a journal replica of its own.
     */
    String PSYNC_REPLICA = "psync-replica";

    /**
     * @return {@code primary}, {@code replica} (following by the journal protocol) or {@link #PSYNC_REPLICA}, or null
     *         while the node core or replication is not bound
     */
    String role();

    /** @return the primary this node follows, or null */
    String upstream();

    /** @return the RESP address, {@code ip:port}, or empty while the front end is not bound */
    String resp();

    /** @return where journal replication listens (a primary) or would listen (a replica), or empty */
    String replication();

    /** @return the journal epoch this node has seen, -1 when not known */
    long journalEpoch();

    /** @return the last journal sequence this node holds, -1 when not known */
    long tip();

    /** @return the ack policy in force (a replica: the one its primary announced), or empty when not known */
    String policy();

    /** Promotes this replica; @return what was done */
    String promote() throws Exception;

    /** Makes this node a replica of the primary whose replication listens at {@code address}; @return what was done */
    String replicaOf(String address);

    /** Makes this psync replica follow the primary whose RESP port is {@code resp}; @return what was done */
    String replicaOfByPsync(String resp);

    /**
     * Closes the connections of the clients that wrote or read here (not those only subscribed, such as a Sentinel
     * client's listener), as Sentinel's {@code CLIENT KILL TYPE normal} does after a switch: Lettuce and redis-py look
     * the primary up again only when their connection drops.
     *
     * @return how many were closed
     */
    int closeClients();
}
