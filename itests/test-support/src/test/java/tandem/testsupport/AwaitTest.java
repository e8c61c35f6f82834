package tandem.testsupport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class AwaitTest {

    @Test
    void aConditionThatHoldsAlreadyReturnsAtOnceOnTheCallersThread() {
        AtomicReference<Thread> polledOn = new AtomicReference<>();
        Await.until("it holds", Duration.ofSeconds(5), Duration.ofHours(1), () -> {
            polledOn.set(Thread.currentThread());
            return true;
        });
        assertThat(polledOn.get()).isSameAs(Thread.currentThread());
    }

    @Test
    void aConditionIsPolledUntilItHolds() {
        AtomicInteger polls = new AtomicInteger();
        Await.until("the third poll", Duration.ofSeconds(10), Duration.ofMillis(1), () -> polls.incrementAndGet() == 3);
        assertThat(polls.get()).isEqualTo(3);
    }

    @Test
    void anotherThreadMakingItHoldEndsTheWait() {
        AtomicBoolean done = new AtomicBoolean();
        CompletableFuture.runAsync(() -> done.set(true));
        Await.until("the other thread ran", Duration.ofSeconds(10), done::get);
        assertThat(done.get()).isTrue();
    }

    @Test
    void theDeadlineFailsTheWaitWithWhatWasAwaited() {
        long start = System.nanoTime();
        assertThatThrownBy(() -> Await.until("the moon is cheese", Duration.ofMillis(200), () -> false))
                .isInstanceOf(AssertionError.class)
                .hasMessage("timed out after PT0.2S waiting until the moon is cheese");
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(200));
    }

    @Test
    void anExceptionOfTheConditionEndsTheWaitAtOnce() {
        assertThatThrownBy(() -> Await.until("never", Duration.ofSeconds(30), () -> {
            throw new IllegalStateException("the node died");
        })).isInstanceOf(IllegalStateException.class).hasMessage("the node died");
    }
}
