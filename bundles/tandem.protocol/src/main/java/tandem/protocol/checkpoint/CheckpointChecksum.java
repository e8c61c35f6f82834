package tandem.protocol.checkpoint;

import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * The stream's checksum, a hash of hashes (research/frogdb.md §2.2): {@code h_i = SHA-256(file_i)}, then
 *
 * <pre>
 *  checksum = SHA-256( name_0 ‖ h_0 ‖ name_1 ‖ h_1 ‖ ... )
 * </pre>
 *
 * in wire order, {@code name_i} the UTF-8 bytes as sent and {@code h_i} the raw 32-byte digests, no delimiters or
 * lengths; zero files give SHA-256 of the empty input. Incremental: per file {@link #beginFile}, {@link #update}
 * as the bytes go by, {@link #endFile}; at the end {@link #digest} or {@link #hex}.
 *
 * <p>The trailer carries this checksum, but its length does not depend on it (always
 * {@value CheckpointStream#CHECKSUM_HEX_LENGTH} hex digits), so a sender knows the stream's length from the file
 * sizes before it hashes anything and computes the checksum while it streams: one pass
 * ({@link CheckpointStreamWriter#write} does that). A sender that wants the trailer before it sends the first byte
 * hashes the files first with this class, then streams them: two passes over immutable checkpoint files.
 *
 * <p>Not thread-safe.
 */
public final class CheckpointChecksum {

    /** The length of a SHA-256 digest. */
    public static final int DIGEST_LENGTH = 32;

    private final MessageDigest outer = sha256();
    private final MessageDigest file = sha256();
    private boolean inFile;
    private byte[] result;

    /** Feeds a file's name: the next {@link #update}s are its bytes. */
    public void beginFile(String name) {
        beginFile(CheckpointStream.requireFileName(name));
    }

    /** {@link #beginFile(String)} with the name's UTF-8 bytes as sent; they are not checked here. */
    public void beginFile(byte[] utf8Name) {
        beginFile(utf8Name, 0, utf8Name.length);
    }

    public void beginFile(byte[] utf8Name, int off, int len) {
        if (inFile) {
            throw new IllegalStateException("beginFile inside a file: endFile first");
        }
        if (result != null) {
            throw new IllegalStateException("checksum already finished");
        }
        outer.update(utf8Name, off, len);
        file.reset();
        inFile = true;
    }

    /** Hashes {@code data}'s remaining bytes into the current file and advances its position to its limit. */
    public void update(ByteBuffer data) {
        requireFile();
        file.update(data);
    }

    public void update(byte[] b, int off, int len) {
        requireFile();
        file.update(b, off, len);
    }

    /** @return the file's SHA-256, a fresh array, after folding it into the checksum */
    public byte[] endFile() {
        requireFile();
        byte[] h = file.digest();
        outer.update(h);
        inFile = false;
        return h;
    }

    /** @return the checksum's 32 bytes (a copy); no file may be open, and no file may follow */
    public byte[] digest() {
        if (inFile) {
            throw new IllegalStateException("checksum asked inside a file: endFile first");
        }
        if (result == null) {
            result = outer.digest();
        }
        return result.clone();
    }

    /** @return {@link #digest} as 64 lowercase hex digits, as the trailer carries it */
    public String hex() {
        return HexFormat.of().formatHex(digest());
    }

    private void requireFile() {
        if (!inFile) {
            throw new IllegalStateException("no file open: beginFile first");
        }
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform has SHA-256", e);
        }
    }
}
