package tandem.protocol.journal;

import java.util.HexFormat;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The name of a sealed segment in a journal archive (the {@code archive.directory} of {@code tandem.journal}):
 *
 * <pre>
 *  segment-&lt;first sequence, 20 digits&gt;-&lt;last sequence, 20 digits&gt;-&lt;tail chain, first 8 bytes in hex&gt;
 *  segment-00000000000000000001-00000000000000004711-3fa94c0e12ab77d0
 * </pre>
 *
 * The file holds the segment byte for byte as the journal sealed it (its header, then its entries). Names sort by
 * first sequence. Segments of different histories (a lineage a replica set aside, the writes a demoted primary lost)
 * may cover the same sequences; their tail chains differ, so their names do, and a restore links a segment to its
 * successor by the successor's header anchor, which is the predecessor's whole tail chain. Two nodes of one history
 * (a primary and its journal replicas, byte-identical) seal identical files under one name, so they may share an
 * archive.
 *
 * @param firstSequence the sequence of the segment's first entry
 * @param lastSequence  the sequence of its last entry ({@code firstSequence - 1} for an empty segment)
 * @param tailPrefix    the first {@value #TAIL_PREFIX_BYTES} bytes of the chain value after its last entry, in hex
 */
public record ArchivedSegmentName(long firstSequence, long lastSequence, String tailPrefix) {

    /** How many bytes of the tail chain the name carries. */
    public static final int TAIL_PREFIX_BYTES = 8;
    /** What every archived segment's name starts with. */
    public static final String PREFIX = "segment-";

    private static final Pattern NAME = Pattern.compile("segment-([0-9]{20})-([0-9]{20})-([0-9a-f]{16})");

    public ArchivedSegmentName {
        if (firstSequence < 1 || lastSequence < firstSequence - 1) {
            throw new IllegalArgumentException("an archived segment cannot cover sequences " + firstSequence + ".."
                    + lastSequence);
        }
        if (tailPrefix.length() != 2 * TAIL_PREFIX_BYTES || !tailPrefix.matches("[0-9a-f]+")) {
            throw new IllegalArgumentException("tail prefix '" + tailPrefix + "' is not " + 2 * TAIL_PREFIX_BYTES
                    + " lowercase hex digits");
        }
    }

    /** @return the name of a segment whose chain value after its last entry is {@code tailChain} */
    public static ArchivedSegmentName of(long firstSequence, long lastSequence, byte[] tailChain) {
        return new ArchivedSegmentName(firstSequence, lastSequence,
                HexFormat.of().formatHex(tailChain, 0, TAIL_PREFIX_BYTES));
    }

    /** @return the name parsed, or null when {@code fileName} is not an archived segment's (a temporary file, say) */
    public static ArchivedSegmentName parse(String fileName) {
        Matcher m = NAME.matcher(fileName);
        if (!m.matches()) {
            return null;
        }
        try {
            return new ArchivedSegmentName(Long.parseLong(m.group(1)), Long.parseLong(m.group(2)), m.group(3));
        } catch (IllegalArgumentException e) { // a number beyond a long, or a range no segment has
            return null;
        }
    }

    /** @return whether {@code tailChain} starts with this name's prefix */
    public boolean tailMatches(byte[] tailChain) {
        return HexFormat.of().formatHex(tailChain, 0, TAIL_PREFIX_BYTES).equals(tailPrefix);
    }

    /** @return the file name */
    @Override
    public String toString() {
        return String.format(Locale.ROOT, "%s%020d-%020d-%s", PREFIX, firstSequence, lastSequence, tailPrefix);
    }
}
