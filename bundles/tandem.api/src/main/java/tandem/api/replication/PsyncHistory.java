package tandem.api.replication;

import java.io.IOException;

import org.osgi.annotation.versioning.ProviderType;

/**
 * The psync replication id of this node's history, provided by the psync protocol ({@code tandem.psync}) and kept in
 * step by the journal protocol.
 *
 * <p>A journal replica's journal is its primary's, byte for byte and at the same replication offsets, so the psync id
 * under which the primary's psync replicas hold their offsets names the replica's history too. The journal protocol
 * carries that id to its replicas; a journal replica promoted (by an operator or by the failover group) takes a new id
 * and keeps the former primary's valid up to its EpochBump, and the former primary's psync replicas continue from it
 * ({@code +CONTINUE}) instead of a full sync, as they do after a psync promotion.
 *
 * @since 1.6
 */
@ProviderType
public interface PsyncHistory {

    /** @return the id psync replicas hold this node's history under (40 hex digits), or null when it names none */
    String historyId();

    /**
     * This node follows a primary by the journal protocol, and its journal is now that primary's history (a prefix
     * of it): it takes the primary's psync id, or none when {@code replicationId} is null (a primary that did not
     * say, or a journal about to be replaced by a snapshot). Recorded durably before it returns; PSYNC is never
     * served under the id while the node follows.
     *
     * @param replicationId the primary's psync id, or null
     * @throws IOException when the identity cannot be recorded (the node then claims no id)
     */
    void followedByJournal(String replicationId) throws IOException;

    /**
     * This journal replica is about to lead: its journal holds its former primary's history up to {@code offset} and
     * nothing after it. It takes a new id, and the one it had stays valid up to {@code offset}. Called before the
     * node leads, so that no PSYNC is served under the former id beyond that offset.
     *
     * @param offset the replication offset at the end of the journal, where the EpochBump goes
     * @throws IOException when the identity cannot be recorded (the promotion then fails)
     */
    void leading(long offset) throws IOException;
}
