/**
 * The FRPL command stream of spec 001, provided by {@code tandem.frpl}: on a primary, the journal's durable entries
 * as FRPL frames to one psync replica, with lag handling and the map from acknowledged offsets back to sequences; on
 * a replica, the received frames back into journal entries. The psync handshake, replication ids and full sync are
 * {@code tandem.psync}'s, which hands a connection to this stream once it answered {@code +CONTINUE} or sent a
 * checkpoint. No Netty type appears here.
 */
@Export
@Version("2.0.0")
package tandem.api.frpl;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
