/**
 * Contracts between the node core and its front end.
 *
 * <p>The node core ({@code tandem.node}) orders every client's requests through one logic thread: it sequences
 * writes into the journal, applies them once durable, runs reads and the front end's own commands at their turn,
 * holds replies until the ack policy holds, and runs transactions, {@code WATCH}, {@code WAIT}, role changes, ticks
 * and purges. The front end ({@code tandem.server}) owns connections, RESP decoding and encoding and its command
 * table; it opens a {@link tandem.api.node.NodeSession} per client with a {@link tandem.api.node.NodeClient} of
 * its own, and attaches one {@link tandem.api.node.Frontend}. No Netty type appears here.
 */
@Export
@Version("3.3.0")
package tandem.api.node;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
