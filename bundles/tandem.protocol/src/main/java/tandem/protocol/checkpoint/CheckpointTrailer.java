package tandem.protocol.checkpoint;

import java.nio.charset.StandardCharsets;

/**
 * The stream's trailer metadata, four colon-separated fields as spec 001 has them (not FrogDB's current five):
 *
 * <pre>
 *  &lt;rdb_size&gt;:&lt;checksum_hex&gt;:&lt;replication_id&gt;:&lt;replication_offset&gt;
 *  21:4f…(64 hex)…:8c1f0e3d5a7b9c2e4f6a8b0c1d2e3f4a5b6c7d8e:1234
 * </pre>
 *
 * @param rdbSize the sum of the file sizes, 0 to 2^63-1
 * @param checksumHex the {@link CheckpointChecksum}, 64 lowercase hex digits
 * @param replicationId psync: the primary's 40-hex replid ({@link #hasPsyncReplicationId}); the journal protocol:
 *        any non-empty token without {@code :}, CR or LF
 * @param replicationOffset psync: the offset {@code +FULLRESYNC} granted; an unsigned 64-bit value (a negative long
 *        stands for one above 2^63-1 and is written unsigned)
 */
public record CheckpointTrailer(long rdbSize, String checksumHex, String replicationId, long replicationOffset) {

    /** @throws IllegalArgumentException when a field is out of its range or format */
    public CheckpointTrailer {
        if (rdbSize < 0) {
            throw new IllegalArgumentException("rdb_size " + rdbSize + " is negative");
        }
        String problem = checksumProblem(checksumHex);
        if (problem == null) {
            problem = replicationIdProblem(replicationId);
        }
        if (problem != null) {
            throw new IllegalArgumentException(problem);
        }
    }

    /**
     * Parses metadata: exactly four fields; canonical decimal numbers (digits only, no sign, no leading zero);
     * {@code rdb_size} at most 2^63-1, {@code replication_offset} at most 2^64-1.
     *
     * @throws CheckpointStreamException naming the field that is wrong
     */
    public static CheckpointTrailer parse(String metadata) {
        String[] f = metadata.split(":", -1);
        if (f.length != 4) {
            throw new CheckpointStreamException("trailer has " + f.length + " fields, expected 4"
                    + " (rdb_size:checksum_hex:replication_id:replication_offset): '"
                    + CheckpointStream.escape(metadata) + "'");
        }
        long rdbSize = number("rdb_size", f[0], false);
        String problem = checksumProblem(f[1]);
        if (problem == null) {
            problem = replicationIdProblem(f[2]);
        }
        if (problem != null) {
            throw new CheckpointStreamException(problem);
        }
        long offset = number("replication_offset", f[3], true);
        return new CheckpointTrailer(rdbSize, f[1], f[2], offset);
    }

    /** @return the metadata, without the {@code $<len>\r\n} framing and the CRLF that {@link #encode} adds */
    public String format() {
        return rdbSize + ":" + checksumHex + ":" + replicationId + ":" + Long.toUnsignedString(replicationOffset);
    }

    /** @return {@link #format} as bytes (UTF-8; ASCII unless the replication id is not) */
    public byte[] encode() {
        return format().getBytes(StandardCharsets.UTF_8);
    }

    /** @return whether the replication id is a psync replid: 40 lowercase hex digits */
    public boolean hasPsyncReplicationId() {
        return replicationId.length() == 40 && isLowerHex(replicationId);
    }

    private static long number(String what, String s, boolean unsigned) {
        boolean ok = !s.isEmpty() && (s.length() == 1 || s.charAt(0) != '0');
        for (int i = 0; ok && i < s.length(); i++) {
            ok = s.charAt(i) >= '0' && s.charAt(i) <= '9';
        }
        if (!ok) {
            throw new CheckpointStreamException(what + " garbage '" + CheckpointStream.escape(s) + "'");
        }
        try {
            return unsigned ? Long.parseUnsignedLong(s) : Long.parseLong(s);
        } catch (NumberFormatException e) {
            throw new CheckpointStreamException(what + " " + s + " exceeds "
                    + (unsigned ? "2^64-1" : "2^63-1"));
        }
    }

    private static String checksumProblem(String hex) {
        if (hex.length() != CheckpointStream.CHECKSUM_HEX_LENGTH || !isLowerHex(hex)) {
            return "checksum_hex '" + CheckpointStream.escape(hex) + "' is not 64 lowercase hex digits";
        }
        return null;
    }

    private static String replicationIdProblem(String id) {
        if (id.isEmpty()) {
            return "replication_id is empty";
        }
        if (id.indexOf(':') >= 0 || id.indexOf('\r') >= 0 || id.indexOf('\n') >= 0) {
            return "replication_id '" + CheckpointStream.escape(id) + "' contains ':', CR or LF";
        }
        return null;
    }

    private static boolean isLowerHex(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (!(c >= '0' && c <= '9' || c >= 'a' && c <= 'f')) {
                return false;
            }
        }
        return true;
    }
}
