/**
 * The psync protocol's FRPL command stream: the RESP2 frames each journal entry becomes, and their length, the unit
 * of the replication offset.
 */
@Export
@Version("1.0.0")
package tandem.protocol.frpl;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
