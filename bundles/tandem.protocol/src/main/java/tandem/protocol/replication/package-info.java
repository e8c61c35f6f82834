/**
 * The journal replication protocol's wire codecs: one class per frame kind ({@link
 * tandem.protocol.replication.Handshake}, {@link tandem.protocol.replication.InputBatch}, ...), framing constants and
 * tags in {@link tandem.protocol.replication.Frames}. Every frame is {@code [len u32 LE][payload]}, the payload's
 * first byte its tag, every integer little-endian. Writers and readers are static and work on buffers in place, no
 * I/O; a decoder accepts a payload longer than its frame and ignores the tail, a shorter one is a
 * {@link tandem.protocol.replication.FrameException}. Field accessors read at the payload's position plus the field's
 * offset without checking: a receiver calls the frame's {@code check} first (InputBatch's cursor checks as it goes).
 */
@Export
@Version("2.0.0")
package tandem.protocol.replication;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
