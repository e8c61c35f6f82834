package tandem.protocol.checkpoint;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A push decoder of the checkpoint stream (layout in {@link tandem.protocol.checkpoint the package}). The receiver
 * {@link #feed}s it chunks as they arrive, split anywhere (inside {@code $12\r\n} too); it consumes what it can,
 * never blocks, and calls its {@link Listener}:
 *
 * <pre>
 *  fileStart(name, size)  fileData(slice)*  fileEnd(name, sha256)     per file, in stream order
 *  end(trailer)                                                        once, after rdb_size and checksum matched
 * </pre>
 *
 * Every limit is checked when its number has been read, before anything depends on it, and nothing is allocated
 * from a declared length: a name or the metadata is gathered in a buffer that grows with the bytes actually
 * received (at most {@value CheckpointStream#MAX_NAME_LENGTH} + 2), file bytes are handed on as slices of the fed
 * chunk. A number line is decimal digits without sign or leading zero, {@code $}-prefixed except the file count,
 * at most {@value #MAX_LINE} bytes before its LF.
 *
 * <p>Any violation throws {@link CheckpointStreamException}; the reader is then dead (a later feed throws
 * IllegalStateException). A stream that stops early is no error here: {@link #isComplete()} stays false and
 * {@link #progress()} says where it stopped, for the caller's own error. Bytes after the trailer are not consumed.
 *
 * <p>Not thread-safe; one reader per stream.
 */
public final class CheckpointStreamReader {

    /** The longest number line before its LF: {@code $}, 20 digits, CR. */
    public static final int MAX_LINE = 22;

    /** Receives the stream's content. An exception it throws propagates out of {@link #feed} and kills the reader. */
    public interface Listener {

        /** A file begins: {@code size} bytes follow in {@link #fileData} calls (none when 0). */
        void fileStart(String name, long size) throws IOException;

        /**
         * The next bytes of the current file: a read-only slice of the fed chunk, valid only during the call (copy
         * what must outlive it). Already hashed.
         */
        void fileData(ByteBuffer data) throws IOException;

        /** The file is complete; {@code sha256} is its SHA-256 (a fresh array). */
        void fileEnd(String name, byte[] sha256) throws IOException;

        /** The trailer arrived and its rdb_size and checksum match what was received: the stream is complete. */
        void end(CheckpointTrailer trailer) throws IOException;
    }

    private enum State {
        MARKER, COUNT, NAME_LENGTH, NAME, SIZE, DATA, META_LENGTH, META, DONE
    }

    private final Listener listener;
    private final CheckpointChecksum checksum = new CheckpointChecksum();

    private State state = State.MARKER;
    private long consumed;
    private String failure;

    /** Marker bytes matched; number-line bytes gathered; name or metadata bytes gathered. */
    private int have;
    private final byte[] line = new byte[MAX_LINE];
    private byte[] gather = new byte[64];
    /** Name or metadata length plus its CRLF. */
    private int need;

    private long count;
    private long filesDone;
    private byte[] previousName;
    private byte[] nameBytes;
    private String name;
    private long size;
    private long left;
    private long received;

    public CheckpointStreamReader(Listener listener) {
        this.listener = listener;
    }

    /**
     * Consumes from {@code chunk}'s position as much as the stream needs, advancing the position; stops at the end
     * of the stream, leaving what follows it.
     *
     * @return {@link #isComplete()}
     * @throws CheckpointStreamException when the stream breaks the grammar, a limit, or its trailer
     * @throws IOException from the listener
     * @throws IllegalStateException when an earlier feed failed
     */
    public boolean feed(ByteBuffer chunk) throws IOException {
        if (failure != null) {
            throw new IllegalStateException("checkpoint stream reader failed earlier: " + failure);
        }
        try {
            while (state != State.DONE && chunk.hasRemaining()) {
                step(chunk);
            }
        } catch (IOException | RuntimeException | Error e) {
            failure = String.valueOf(e.getMessage());
            throw e;
        }
        return state == State.DONE;
    }

    /** @return whether the trailer has been read and verified ({@link Listener#end} was called) */
    public boolean isComplete() {
        return state == State.DONE;
    }

    /** @return the stream bytes consumed so far, over all feeds: the stream's length once complete */
    public long bytesConsumed() {
        return consumed;
    }

    /** @return where the stream is, for an error when it stops early: e.g. "in file 3 of 7 ('000012.sst'), 10 of 20 bytes" */
    public String progress() {
        return switch (state) {
            case MARKER -> "in the marker, " + have + " of " + CheckpointStream.MARKER_LINE.length + " bytes";
            case COUNT -> "in the file count";
            case NAME_LENGTH -> "before file " + (filesDone + 1) + " of " + count + ", in its name length";
            case NAME -> "before file " + (filesDone + 1) + " of " + count + ", in its name, " + have + " of " + need
                    + " bytes";
            case SIZE -> "in file " + (filesDone + 1) + " of " + count + " ('" + CheckpointStream.escape(name)
                    + "'), in its size";
            case DATA -> "in file " + (filesDone + 1) + " of " + count + " ('" + CheckpointStream.escape(name)
                    + "'), " + (size - left) + " of " + size + " bytes";
            case META_LENGTH -> "after " + count + " files, in the metadata length";
            case META -> "after " + count + " files, in the metadata, " + have + " of " + need + " bytes";
            case DONE -> "complete";
        };
    }

    private void step(ByteBuffer in) throws IOException {
        switch (state) {
            case MARKER -> marker(in);
            case COUNT, NAME_LENGTH, SIZE, META_LENGTH -> {
                if (line(in)) {
                    numberLine();
                }
            }
            case NAME, META -> {
                if (gather(in)) {
                    gathered();
                }
            }
            case DATA -> data(in);
            case DONE -> throw new IllegalStateException();
        }
    }

    private void marker(ByteBuffer in) {
        byte[] m = CheckpointStream.MARKER_LINE;
        while (have < m.length && in.hasRemaining()) {
            byte b = in.get(in.position());
            if (b != m[have]) {
                byte[] got = Arrays.copyOf(m, have + 1);
                got[have] = b;
                throw new CheckpointStreamException("bad marker: expected '"
                        + CheckpointStream.printable(m, 0, m.length) + "', got '"
                        + CheckpointStream.printable(got, 0, got.length) + "'");
            }
            take(in, 1);
            have++;
        }
        if (have == m.length) {
            have = 0;
            state = State.COUNT;
        }
    }

    /** Gathers a line up to its LF (not kept); @return whether it is complete. */
    private boolean line(ByteBuffer in) {
        while (in.hasRemaining()) {
            byte b = in.get(in.position());
            take(in, 1);
            if (b == '\n') {
                return true;
            }
            if (have == MAX_LINE) {
                throw new CheckpointStreamException(what() + " line exceeds " + MAX_LINE + " bytes without LF: '"
                        + CheckpointStream.printable(line, 0, have) + "…'");
            }
            line[have++] = b;
        }
        return false;
    }

    private String what() {
        return switch (state) {
            case COUNT -> "file count";
            case NAME_LENGTH -> "file name length";
            case SIZE -> "file size";
            case META_LENGTH -> "metadata length";
            default -> throw new IllegalStateException(state.name());
        };
    }

    private void numberLine() throws IOException {
        int n = have;
        have = 0;
        String quoted = "'" + CheckpointStream.printable(line, 0, n) + "\\n'";
        boolean dollar = state != State.COUNT;
        if (n == 0 || line[n - 1] != '\r') {
            throw new CheckpointStreamException(what() + " line does not end with CRLF: " + quoted);
        }
        int from = 0;
        if (dollar) {
            if (line[0] != '$') {
                throw new CheckpointStreamException(what() + " does not start with '$': " + quoted);
            }
            from = 1;
        }
        int to = n - 1;
        String digits = new String(line, from, to - from, StandardCharsets.ISO_8859_1);
        boolean ok = to > from && (to - from == 1 || line[from] != '0');
        long v = 0;
        for (int i = from; ok && i < to; i++) {
            int d = line[i] - '0';
            ok = d >= 0 && d <= 9;
            if (ok && v != Long.MAX_VALUE) {
                v = v > (Long.MAX_VALUE - d) / 10 ? Long.MAX_VALUE : v * 10 + d;
            }
        }
        if (!ok) {
            throw new CheckpointStreamException(what() + " garbage '" + CheckpointStream.printable(line, from,
                    to - from) + "'");
        }
        switch (state) {
            case COUNT -> {
                if (v > CheckpointStream.MAX_FILE_COUNT) {
                    throw new CheckpointStreamException("file count " + digits + " exceeds "
                            + CheckpointStream.MAX_FILE_COUNT);
                }
                count = v;
                afterFile();
            }
            case NAME_LENGTH -> {
                if (v > CheckpointStream.MAX_NAME_LENGTH) {
                    throw new CheckpointStreamException("file name of " + digits + " bytes exceeds "
                            + CheckpointStream.MAX_NAME_LENGTH);
                }
                need = (int) v + 2;
                state = State.NAME;
            }
            case SIZE -> {
                if (v > CheckpointStream.MAX_FILE_SIZE) {
                    throw new CheckpointStreamException("file '" + CheckpointStream.escape(name) + "' size " + digits
                            + " exceeds 2^62 (" + CheckpointStream.MAX_FILE_SIZE + ")");
                }
                size = v;
                left = v;
                if (received > Long.MAX_VALUE - v) {
                    throw new CheckpointStreamException("file sizes add up past 2^63-1 at file '"
                            + CheckpointStream.escape(name) + "'");
                }
                received += v;
                checksum.beginFile(nameBytes);
                listener.fileStart(name, size);
                state = State.DATA;
                if (left == 0) {
                    endFile();
                }
            }
            case META_LENGTH -> {
                if (v > CheckpointStream.MAX_METADATA_LENGTH) {
                    throw new CheckpointStreamException("metadata of " + digits + " bytes exceeds "
                            + CheckpointStream.MAX_METADATA_LENGTH);
                }
                need = (int) v + 2;
                state = State.META;
            }
            default -> throw new IllegalStateException(state.name());
        }
    }

    /** Gathers {@link #need} bytes, growing the buffer only as they arrive; @return whether all are there. */
    private boolean gather(ByteBuffer in) {
        int n = Math.min(need - have, in.remaining());
        if (have + n > gather.length) {
            gather = Arrays.copyOf(gather, Math.min(need, Math.max(have + n, gather.length * 2)));
        }
        in.get(gather, have, n);
        consumed += n;
        have += n;
        return have == need;
    }

    private void gathered() throws IOException {
        int n = need - 2;
        have = 0;
        boolean crlf = gather[n] == '\r' && gather[n + 1] == '\n';
        if (state == State.NAME) {
            if (!crlf) {
                throw new CheckpointStreamException("file name '" + CheckpointStream.printable(gather, 0, n)
                        + "' is not followed by CRLF: got '" + CheckpointStream.printable(gather, n, 2) + "'");
            }
            byte[] b = Arrays.copyOf(gather, n);
            name = CheckpointStream.checkFileName(b);
            if (previousName != null) {
                int c = CheckpointStream.compareNames(previousName, b);
                if (c == 0) {
                    throw new CheckpointStreamException("duplicate file name '" + CheckpointStream.escape(name)
                            + "'");
                }
                if (c > 0) {
                    throw new CheckpointStreamException("file name '" + CheckpointStream.escape(name)
                            + "' out of order after '" + CheckpointStream.printable(previousName, 0,
                                    previousName.length) + "'");
                }
            }
            nameBytes = b;
            state = State.SIZE;
        } else {
            if (!crlf) {
                throw new CheckpointStreamException("metadata '" + CheckpointStream.printable(gather, 0, n)
                        + "' is not followed by CRLF: got '" + CheckpointStream.printable(gather, n, 2) + "'");
            }
            String metadata;
            try {
                metadata = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                        .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(gather, 0, n))
                        .toString();
            } catch (CharacterCodingException e) {
                throw new CheckpointStreamException("metadata '" + CheckpointStream.printable(gather, 0, n)
                        + "' is not valid UTF-8");
            }
            CheckpointTrailer t = CheckpointTrailer.parse(metadata);
            if (t.rdbSize() != received) {
                throw new CheckpointStreamException("rdb_size mismatch: stream says " + t.rdbSize() + ", received "
                        + received);
            }
            String computed = checksum.hex();
            if (!computed.equals(t.checksumHex())) {
                throw new CheckpointStreamException("checksum mismatch: stream says " + t.checksumHex()
                        + ", computed " + computed);
            }
            gather = null;
            state = State.DONE;
            listener.end(t);
        }
    }

    private void data(ByteBuffer in) throws IOException {
        int n = (int) Math.min(left, in.remaining());
        ByteBuffer slice = in.slice(in.position(), n).asReadOnlyBuffer();
        checksum.update(slice.duplicate());
        take(in, n);
        left -= n;
        listener.fileData(slice);
        if (left == 0) {
            endFile();
        }
    }

    private void endFile() throws IOException {
        byte[] h = checksum.endFile();
        previousName = nameBytes;
        filesDone++;
        String n = name;
        afterFile();
        listener.fileEnd(n, h);
    }

    private void afterFile() {
        state = filesDone == count ? State.META_LENGTH : State.NAME_LENGTH;
    }

    private void take(ByteBuffer in, int n) {
        in.position(in.position() + n);
        consumed += n;
    }

}
