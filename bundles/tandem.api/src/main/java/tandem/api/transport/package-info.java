/**
 * The transport contract of the journal protocol: a framed, ordered, reliable byte stream between a primary and a
 * replica. A transport bundle (TCP on Netty, DPDK) provides {@link tandem.api.transport.FrameTransport}; the
 * replication bundle works only through these types, so a transport can be replaced while the node serves.
 *
 * <p>A frame on the wire is {@code [length u32 LE][payload: length bytes]}; the payload's first byte is its tag. A
 * transport rejects a declared length of 0 or over the limit it was given before it allocates anything, and closes
 * the link with a reason naming the length.
 */
@Export
@Version("1.1.0")
package tandem.api.transport;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
