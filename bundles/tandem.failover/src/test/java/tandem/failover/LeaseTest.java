package tandem.failover;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The lease runs from when the report was sent, and only an answer naming this node the primary renews it. */
@Timeout(10)
class LeaseTest {

    private static final long MS = 1_000_000L;

    @Test
    void theLeaseRunsFromTheReportsSendingAndLapses() {
        Lease lease = new Lease();
        assertThat(lease.valid(0)).isFalse();
        lease.answered(1_000 * MS, true, 600);
        assertThat(lease.valid(1_599 * MS)).isTrue();
        assertThat(lease.leftMillis(1_100 * MS)).isEqualTo(500);
        assertThat(lease.valid(1_600 * MS)).isFalse();
        assertThat(lease.leftMillis(1_700 * MS)).isZero();
    }

    @Test
    void anAnswerNamingAnotherPrimaryOrADropEndsIt() {
        Lease lease = new Lease();
        lease.answered(0, true, 600);
        lease.answered(100 * MS, false, 600);
        assertThat(lease.valid(200 * MS)).isFalse();
        lease.answered(300 * MS, true, 600);
        lease.drop();
        assertThat(lease.valid(400 * MS)).isFalse();
    }
}
