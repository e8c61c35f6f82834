/**
 * The journal's disk format: entries ({@link tandem.protocol.journal.JournalEntry}) and segment headers
 * ({@link tandem.protocol.journal.SegmentHeader}). Flyweights over buffers, no I/O. An entry minus its magic and CRC
 * is exactly a slot of the journal protocol's InputBatch frame.
 */
@Export
@Version("1.3.0")
package tandem.protocol.journal;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
