/**
 * The checkpoint stream: how a primary sends a RocksDB checkpoint to a replica. Spec 001's full sync sends it after
 * {@code +FULLRESYNC}; the journal protocol's snapshot body (SnapshotBegin, SnapshotChunk..., SnapshotEnd) is the
 * same stream, and SnapshotBegin's {@code snapshot_len} is its length ({@link
 * tandem.protocol.checkpoint.CheckpointStreamWriter#streamLength}).
 *
 * <pre>
 *  $FROGDB_CHECKPOINT\r\n                        prelude: marker,
 *  &lt;count&gt;\r\n                                  then the file count (no '$')
 *  $&lt;name_len&gt;\r\n&lt;name&gt;\r\n$&lt;size&gt;\r\n&lt;size raw bytes&gt;   count times, names in strictly increasing byte order;
 *                                                no CRLF after the raw bytes
 *  $&lt;meta_len&gt;\r\n&lt;metadata&gt;\r\n                 trailer, metadata =
 *      &lt;rdb_size&gt;:&lt;checksum_hex&gt;:&lt;replication_id&gt;:&lt;replication_offset&gt;
 * </pre>
 *
 * Numbers are canonical unsigned decimal ASCII. {@code checksum_hex} is the hash of hashes ({@link
 * tandem.protocol.checkpoint.CheckpointChecksum}); {@code rdb_size} the sum of the file sizes. The trailer has four
 * fields, as spec 001 says (FrogDB's current code sends a fifth, a coverage vector: Tandem refuses it). Limits in
 * {@link tandem.protocol.checkpoint.CheckpointStream}.
 *
 * <p>The writer ({@link tandem.protocol.checkpoint.CheckpointStreamWriter}) makes the framing pieces as byte arrays
 * and, for convenience, streams a list of files into a blocking channel. The reader ({@link
 * tandem.protocol.checkpoint.CheckpointStreamReader}) is a push decoder: fed chunks split anywhere, it never blocks
 * and never allocates from a declared length.
 */
@Export
@Version("1.0.0")
package tandem.protocol.checkpoint;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
