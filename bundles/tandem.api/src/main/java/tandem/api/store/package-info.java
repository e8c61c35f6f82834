/**
 * The keyspace: command execution over RocksDB, applied deterministically from journal entries.
 *
 * <p>Replies are written through {@link tandem.api.store.Reply} so that neither side depends on Netty.
 */
@Export
@Version("4.3.0")
package tandem.api.store;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
