/**
 * The node's TLS identity and trust ({@code tandem.tls}), which every listener and outgoing link of the node takes
 * its handshakes from: the RESP port's TLS listener, the psync link, the journal protocol's TCP transport, the
 * failover group's Raft traffic and the health endpoint.
 */
@Export
@Version("1.0.0")
package tandem.api.tls;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
