package tandem.api.replication;

import java.util.Locale;

/**
 * When a write is answered: which copies of it must exist. The wire byte is a stable format (StreamStart,
 * Heartbeat); it is never renumbered.
 */
public enum AckPolicy {

    /** one fsynced copy (the primary's) */
    DISK("disk", (byte) 0),
    /** one fsynced copy, and a second node holds it in memory */
    DISK_RAM("disk+ram", (byte) 1),
    /** fsynced on two nodes */
    TWO_DISKS("two-disks", (byte) 2),
    /** held in memory by two nodes */
    RAM("ram", (byte) 3);

    private final String label;
    private final byte wire;

    AckPolicy(String label, byte wire) {
        this.label = label;
        this.wire = wire;
    }

    /** @return the name operators write: {@code disk}, {@code disk+ram}, {@code two-disks}, {@code ram} */
    public String label() {
        return label;
    }

    /** @return the byte on the wire */
    public byte wire() {
        return wire;
    }

    /** @return true when a replica's copy is needed to answer */
    public boolean needsReplica() {
        return this != DISK;
    }

    /** @throws IllegalArgumentException naming the accepted values */
    public static AckPolicy parse(String text) {
        String t = text.trim().toLowerCase(Locale.ROOT);
        for (AckPolicy p : values()) {
            if (p.label.equals(t)) {
                return p;
            }
        }
        throw new IllegalArgumentException("unknown ack policy '" + text + "' (disk, disk+ram, two-disks or ram)");
    }

    /** @return the policy of a wire byte, or null for an unknown byte */
    public static AckPolicy fromWire(byte b) {
        for (AckPolicy p : values()) {
            if (p.wire == b) {
                return p;
            }
        }
        return null;
    }
}
