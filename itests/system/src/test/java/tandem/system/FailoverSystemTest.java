package tandem.system;

/** {@link FailoverRunbook} under {@code two-disks}. */
class FailoverSystemTest extends FailoverRunbook {

    @Override
    String policy() {
        return "two-disks";
    }

    @Override
    String name() {
        return "failover";
    }
}
