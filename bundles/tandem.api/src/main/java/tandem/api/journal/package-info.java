/**
 * The journal: the durable, sequenced, chain-hashed log of every write of a node.
 *
 * <p>An entry is {@code [magic u16][length u16][sequence u64][timestamp_ns u64][key_hash u64][request_seq u64]
 * [tag u8][payload][crc32c u32]}, little-endian; minus its magic and CRC it is exactly a slot of the journal
 * protocol's InputBatch frame. The byte layouts are drawn in {@code tandem.protocol}.
 */
@Export
@Version("2.2.0")
package tandem.api.journal;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
