/**
 * The failover group ({@code tandem.failover}): what it reports and what an operator asks of it. The group runs a Raft
 * log of metadata only (members, the current primary, its epoch, the last failover) on Apache Ratis; the data path
 * stays the replication protocols.
 */
@Export
@Version("1.1.0")
package tandem.api.failover;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
