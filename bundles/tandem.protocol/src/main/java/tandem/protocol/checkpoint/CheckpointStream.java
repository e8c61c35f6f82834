package tandem.protocol.checkpoint;

import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The checkpoint stream's constants and its file-name rule (FM-REPLICATION-044), shared by the writer, the reader
 * and a receiver that checks a name again before it creates the file.
 */
public final class CheckpointStream {

    /** The prelude's first line, without its CRLF. */
    public static final String MARKER = "$FROGDB_CHECKPOINT";
    /** The longest file name, in UTF-8 bytes. */
    public static final int MAX_NAME_LENGTH = 65536;
    /** The longest trailer metadata, in bytes. */
    public static final int MAX_METADATA_LENGTH = 65536;
    /** The most files one stream declares. */
    public static final int MAX_FILE_COUNT = 1_000_000;
    /** The largest file: 2^62 bytes. */
    public static final long MAX_FILE_SIZE = 1L << 62;
    /** The writer's copy chunk. */
    public static final int CHUNK_SIZE = 64 * 1024;
    /** Length of the checksum in hex. */
    public static final int CHECKSUM_HEX_LENGTH = 64;

    static final byte[] MARKER_LINE = (MARKER + "\r\n").getBytes(StandardCharsets.US_ASCII);

    private CheckpointStream() {
    }

    /**
     * The file-name rule: strict UTF-8 that decodes and re-encodes to the same bytes, exactly one normal path
     * component: not empty, not {@code .} or {@code ..}, without {@code /} (so neither absolute nor nested nor
     * {@code CURRENT/}) and without NUL; at most {@value #MAX_NAME_LENGTH} bytes.
     *
     * @return the decoded name
     * @throws CheckpointStreamException naming what is wrong
     */
    public static String checkFileName(byte[] utf8) {
        return checkFileName(utf8, 0, utf8.length);
    }

    /** {@link #checkFileName(byte[])} over {@code utf8[off, off + len)}. */
    public static String checkFileName(byte[] utf8, int off, int len) {
        String problem = nameProblem(utf8, off, len);
        if (problem != null) {
            throw new CheckpointStreamException(problem);
        }
        return new String(utf8, off, len, StandardCharsets.UTF_8);
    }

    /** @return whether {@code name}'s UTF-8 bytes pass {@link #checkFileName(byte[])} */
    public static boolean isValidFileName(String name) {
        byte[] b = utf8(name);
        return b != null && nameProblem(b, 0, b.length) == null;
    }

    /** @throws IllegalArgumentException when {@code name} is not a valid file name */
    static byte[] requireFileName(String name) {
        byte[] b = utf8(name);
        if (b == null) {
            throw new IllegalArgumentException("file name is not valid Unicode: '" + escape(name) + "'");
        }
        String problem = nameProblem(b, 0, b.length);
        if (problem != null) {
            throw new IllegalArgumentException(problem);
        }
        return b;
    }

    static void requireFileSize(long size) {
        if (size < 0 || size > MAX_FILE_SIZE) {
            throw new IllegalArgumentException("file size " + size + " is outside 0.." + MAX_FILE_SIZE);
        }
    }

    /** Strict UTF-8 encoding: null for a string with an unpaired surrogate. */
    static byte[] utf8(String s) {
        try {
            ByteBuffer b = StandardCharsets.UTF_8.newEncoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).encode(CharBuffer.wrap(s));
            return Arrays.copyOfRange(b.array(), b.arrayOffset() + b.position(), b.arrayOffset() + b.limit());
        } catch (CharacterCodingException e) {
            return null;
        }
    }

    private static String nameProblem(byte[] b, int off, int len) {
        if (len == 0) {
            return "file name is empty";
        }
        if (len > MAX_NAME_LENGTH) {
            return "file name of " + len + " bytes exceeds " + MAX_NAME_LENGTH;
        }
        String quoted = "'" + printable(b, off, len) + "'";
        String name;
        try {
            name = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(b, off, len)).toString();
        } catch (CharacterCodingException e) {
            return "file name " + quoted + " is not valid UTF-8";
        }
        byte[] again = utf8(name);
        if (again == null || !Arrays.equals(again, 0, again.length, b, off, off + len)) {
            return "file name " + quoted + " does not re-encode to itself";
        }
        if (name.equals(".") || name.equals("..")) {
            return "file name " + quoted + " is not a normal path component";
        }
        if (name.indexOf('/') >= 0) {
            return "file name " + quoted + (name.charAt(0) == '/' ? " is absolute" : " contains '/'");
        }
        if (name.indexOf('\0') >= 0) {
            return "file name " + quoted + " contains NUL";
        }
        return null;
    }

    /** @return a, b compared as unsigned bytes, the wire order of names */
    static int compareNames(byte[] a, byte[] b) {
        return Arrays.compareUnsigned(a, b);
    }

    /**
     * @return at most the first 100 bytes of {@code b[off, off + len)} as ASCII, {@code \r \n \0 \\} and other
     *         bytes outside 0x20..0x7e escaped, {@code …} when cut
     */
    static String printable(byte[] b, int off, int len) {
        StringBuilder s = new StringBuilder();
        int n = Math.min(len, 100);
        for (int i = off; i < off + n; i++) {
            int c = b[i] & 0xff;
            switch (c) {
                case '\r' -> s.append("\\r");
                case '\n' -> s.append("\\n");
                case 0 -> s.append("\\0");
                case '\\' -> s.append("\\\\");
                default -> {
                    if (c >= 0x20 && c < 0x7f) {
                        s.append((char) c);
                    } else {
                        s.append(String.format("\\x%02x", c));
                    }
                }
            }
        }
        if (n < len) {
            s.append('…');
        }
        return s.toString();
    }

    static String escape(String s) {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        return printable(b, 0, b.length);
    }
}
