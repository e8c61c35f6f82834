package tandem.store;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

/**
 * The sixteen databases, by {@code SELECT} index. Each owns its column families for good; {@code SWAPDB} swaps which
 * index names which, and the {@code meta} record {@link #MAPPING} (written in the batch of the apply that swapped)
 * keeps that across a restart and in a checkpoint:
 * <pre>
 * meta  "databases"  -&gt; [slot of index 0 u8][slot of index 1 u8] ... [slot of index 15 u8]   (absent: index i is slot i)
 * </pre>
 * The logic thread's alone, but for {@link #get} from {@code INFO}.
 */
final class Databases {

    /** Redis's {@code databases}: fixed, so that every node of a history has the same. */
    static final int COUNT = tandem.api.store.Keyspace.DATABASES;
    static final byte[] MAPPING = "databases".getBytes(StandardCharsets.US_ASCII);

    private final List<Database> slots;
    private final Database[] byIndex = new Database[COUNT];

    /** @param mapping the {@link #MAPPING} record, or null */
    Databases(List<Database> slots, byte[] mapping) {
        if (slots.size() != COUNT) {
            throw new IllegalArgumentException(slots.size() + " databases, not " + COUNT);
        }
        this.slots = List.copyOf(slots);
        boolean[] seen = new boolean[COUNT];
        for (int i = 0; i < COUNT; i++) {
            int slot = mapping == null ? i : mapping[i];
            if (mapping != null && (mapping.length != COUNT || slot < 0 || slot >= COUNT || seen[slot])) {
                throw new IllegalStateException("the store's database mapping is corrupt: "
                        + Arrays.toString(mapping));
            }
            seen[slot] = true;
            byIndex[i] = slots.get(slot);
        }
    }

    /** @return the database {@code SELECT index} names */
    Database get(int index) {
        return byIndex[index];
    }

    /** @return every database, by slot */
    List<Database> all() {
        return slots;
    }

    /** Swaps the databases two indexes name ({@code SWAPDB}). */
    void swap(int a, int b) {
        Database d = byIndex[a];
        byIndex[a] = byIndex[b];
        byIndex[b] = d;
    }

    /** @return the {@link #MAPPING} record as it stands */
    byte[] mapping() {
        byte[] m = new byte[COUNT];
        for (int i = 0; i < COUNT; i++) {
            m[i] = (byte) byIndex[i].slot;
        }
        return m;
    }
}
