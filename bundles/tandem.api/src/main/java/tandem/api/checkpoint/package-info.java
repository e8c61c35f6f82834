/**
 * Full-sync checkpoints of the node's store, for both replication protocols: a primary cuts one per transfer and
 * streams it in the checkpoint stream format of spec 001 ({@code tandem.protocol.checkpoint}); a replica receives
 * the stream, verifies it while it arrives (the hash of hashes) and stages it with one atomic rename, then hands it
 * to the store's {@link tandem.api.store.Keyspace#install}. Provided by {@code tandem.checkpoint}.
 */
@Export
@Version("1.2.0")
package tandem.api.checkpoint;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
