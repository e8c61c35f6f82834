package tandem.journal;

import java.util.Arrays;

/**
 * Points where no fragment group is open, about every {@value #SPACING} bytes: sequence → file offset, and the
 * replication offset before that entry, so that a read or an offset lookup in the middle of a large segment starts
 * near its target instead of at the segment's first entry.
 */
final class SparseIndex {

    static final long SPACING = 256 * 1024;

    private long[] sequences = new long[16];
    private long[] offsets = new long[16];
    private long[] replicationOffsets = new long[16];
    private int size;

    synchronized void add(long sequence, long offset, long replicationOffset) {
        if (size > 0 && offset - offsets[size - 1] < SPACING) {
            return;
        }
        if (size == sequences.length) {
            sequences = Arrays.copyOf(sequences, size * 2);
            offsets = Arrays.copyOf(offsets, size * 2);
            replicationOffsets = Arrays.copyOf(replicationOffsets, size * 2);
        }
        sequences[size] = sequence;
        offsets[size] = offset;
        replicationOffsets[size] = replicationOffset;
        size++;
    }

    /** @return {sequence, file offset, replication offset} of the last point at or before {@code sequence}, or null */
    synchronized long[] floor(long sequence) {
        int i = Arrays.binarySearch(sequences, 0, size, sequence);
        if (i < 0) {
            i = -i - 2;
        }
        return i < 0 ? null : new long[] {sequences[i], offsets[i], replicationOffsets[i]};
    }

    /**
     * @return {sequence, file offset, replication offset} of the first point whose replication offset is at or
     *         before {@code replicationOffset} and whose successor's is beyond it, or null (several points may share
     *         an offset: entries without frames, such as an EpochBump, do not move it; the earliest is returned)
     */
    synchronized long[] floorByOffset(long replicationOffset) {
        int i = -1;
        for (int lo = 0, hi = size - 1; lo <= hi; ) {
            int mid = (lo + hi) >>> 1;
            if (replicationOffsets[mid] < replicationOffset) {
                i = mid;
                lo = mid + 1;
            } else {
                hi = mid - 1;
            }
        }
        // i: the last point strictly before the offset; the next one may sit exactly on it
        if (i + 1 < size && replicationOffsets[i + 1] == replicationOffset) {
            i++;
        }
        return i < 0 ? null : new long[] {sequences[i], offsets[i], replicationOffsets[i]};
    }
}
