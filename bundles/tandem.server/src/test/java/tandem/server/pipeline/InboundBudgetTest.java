package tandem.server.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.netty.channel.embedded.EmbeddedChannel;
import tandem.server.command.ClientSession;
import tandem.server.command.Commands;

/** Reading pauses while too many received requests wait to run, and resumes once half of them ran. */
@Timeout(10)
class InboundBudgetTest {

    private static Connection connection(EmbeddedChannel ch, long id) {
        return new Connection(ch, new ClientSession(id, "local:" + id), Commands.table(), null);
    }

    @Test
    void theConnectionThatPassesTheBoundIsNotReadUntilHalfOfItRan() {
        InboundBudget budget = new InboundBudget(1000);
        EmbeddedChannel ch1 = new EmbeddedChannel();
        EmbeddedChannel ch2 = new EmbeddedChannel();
        Connection c1 = connection(ch1, 1);
        Connection c2 = connection(ch2, 2);
        budget.received(c1, 600);
        assertThat(ch1.config().isAutoRead()).isTrue();
        budget.received(c2, 600);
        assertThat(ch2.config().isAutoRead()).as("past the bound: not read").isFalse();
        assertThat(c2.budgetPaused()).isTrue();
        assertThat(ch1.config().isAutoRead()).as("the others are read on").isTrue();

        budget.released(c1, 600);
        ch2.runPendingTasks();
        assertThat(ch2.config().isAutoRead()).as("600 of 1000 still wait: more than half").isFalse();
        budget.released(c2, 100);
        ch2.runPendingTasks();
        assertThat(ch2.config().isAutoRead()).as("500 wait: read again").isTrue();
        assertThat(budget.queued()).isEqualTo(500);

        budget.received(c2, 600);
        assertThat(ch2.config().isAutoRead()).isFalse();
        budget.closed(c2);
        assertThat(budget.queued()).as("a closed connection's requests are released").isZero();
    }

    @Test
    void aRequestCostsItsBytesAndItsArrays() {
        assertThat(InboundBudget.cost(new byte[][] {new byte[3], new byte[1000]})).isEqualTo(64 + 19 + 1016);
    }
}
