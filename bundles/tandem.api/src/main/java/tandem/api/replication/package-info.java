/**
 * Replication as the rest of the node sees it, whichever protocol carries it.
 *
 * <p>{@link tandem.api.replication.ReplicationHub} is provided by the server: replication protocols attach their
 * replicas' progress to it, and its response gate answers a write only once the {@link
 * tandem.api.replication.AckPolicy} holds. {@link tandem.api.replication.ReplicationStatusSource} is provided by each
 * replication protocol; {@code INFO replication} and the {@code repl:*} shell commands read them. {@link
 * tandem.api.replication.PsyncHistory} lets the journal protocol keep the psync id of the node's history in step.
 */
@Export
@Version("1.6.0")
package tandem.api.replication;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
