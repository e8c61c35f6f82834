/**
 * The psync protocol's FRPL command stream: the RESP2 frames each journal entry becomes and their length, the unit
 * of the replication offset ({@link tandem.protocol.frpl.FrplPayload}), written straight into an outgoing buffer
 * ({@link tandem.protocol.frpl.FrplWriter}); the 20-byte frame that carries each one
 * ({@link tandem.protocol.frpl.FrplFrame}); a RESP2 array read in place ({@link tandem.protocol.frpl.RespArray});
 * and the {@code REPLCONF ACK}/{@code GETACK} commands of the stream ({@link tandem.protocol.frpl.Replconf}).
 */
@Export
@Version("1.2.0")
package tandem.protocol.frpl;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
