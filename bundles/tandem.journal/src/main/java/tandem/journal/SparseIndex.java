package tandem.journal;

import java.util.Arrays;

/**
 * Sequence → file offset at points where no fragment group is open, about every {@value #SPACING} bytes, so that a
 * read from the middle of a large segment starts near its target instead of at the segment's first entry.
 */
final class SparseIndex {

    static final long SPACING = 256 * 1024;

    private long[] sequences = new long[16];
    private long[] offsets = new long[16];
    private int size;

    synchronized void add(long sequence, long offset) {
        if (size > 0 && offset - offsets[size - 1] < SPACING) {
            return;
        }
        if (size == sequences.length) {
            sequences = Arrays.copyOf(sequences, size * 2);
            offsets = Arrays.copyOf(offsets, size * 2);
        }
        sequences[size] = sequence;
        offsets[size] = offset;
        size++;
    }

    /** @return {sequence, offset} of the last point at or before {@code sequence}, or null */
    synchronized long[] floor(long sequence) {
        int i = Arrays.binarySearch(sequences, 0, size, sequence);
        if (i < 0) {
            i = -i - 2;
        }
        return i < 0 ? null : new long[] {sequences[i], offsets[i]};
    }
}
