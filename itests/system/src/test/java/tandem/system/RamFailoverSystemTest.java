package tandem.system;

/**
 * {@link FailoverRunbook} under {@code ram}: a write is answered once a replica holds it in memory, before the
 * primary's own {@code fdatasync}, so the primary applies writes its journal may still lose. After {@code kill -9} of
 * the primary, the most advanced replica promoted holds every acknowledged write, the other replica continues from
 * it, and the old primary — whose store never wrote what its journal had not made durable — comes up fenced and
 * rejoins as a replica.
 */
class RamFailoverSystemTest extends FailoverRunbook {

    @Override
    String policy() {
        return "ram";
    }

    @Override
    String name() {
        return "failover-ram";
    }
}
