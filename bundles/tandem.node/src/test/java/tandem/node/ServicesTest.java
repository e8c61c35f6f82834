package tandem.node;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import tandem.api.store.Command;

/** The bound journal and keyspace, and the pause window while either is away. */
@Timeout(10)
class ServicesTest {

    private final RoleState role = new RoleState();
    private final Services services = new Services(300, role, new Inbox());

    @Test
    void aRequestWaitsForAMissingStoreOncePerRoundBoundedByThePauseWindow() throws Exception {
        services.journal(new FakeJournal());
        services.lockInterruptibly();
        try {
            services.newRound();
            long started = System.nanoTime();
            services.await();
            assertThat(System.nanoTime() - started).as("waited the pause window").isGreaterThanOrEqualTo(300_000_000L);
            assertThat(services.prepare()).isFalse();
            assertThat(services.unavailable()).isEqualTo("ERR the store (tandem.store) is not active");
            started = System.nanoTime();
            services.await();
            assertThat(System.nanoTime() - started).as("not twice in a round").isLessThan(300_000_000L);
        } finally {
            services.unlock();
        }
    }

    @Test
    void aStoreBoundWhileARequestWaitsEndsTheWait() throws Exception {
        services.journal(new FakeJournal());
        Thread binder = new Thread(() -> services.keyspace(new MapKeyspace(), () -> { }));
        services.lockInterruptibly();
        try {
            services.newRound();
            binder.start(); // blocks on the lock until the wait below releases it
            services.await();
            assertThat(services.keyspace()).isNotNull();
            assertThat(services.prepare()).as("the new store is brought up to date before it serves").isTrue();
        } finally {
            services.unlock();
        }
        binder.join();
    }

    @Test
    void aNameNoTableKnewIsResolvedAgainOnceTheStoreIsBound() {
        MapKeyspace keyspace = new MapKeyspace();
        Command unknown = Command.unknown(new byte[][] {b("SET"), b("k"), b("v")});
        assertThat(Services.resolveAgain(null, unknown)).isSameAs(unknown);
        assertThat(Services.resolveAgain(keyspace, unknown).isWrite()).isTrue();
        Command woken = Command.unknown(new byte[][] {b("set|woken"), b("k"), b("v")});
        assertThat(Services.resolveAgain(keyspace, woken)).as("a client never names a woken form").isSameAs(woken);
        Command frontend = Command.frontend(new byte[][] {b("PING")}, "ping", null);
        assertThat(Services.resolveAgain(keyspace, frontend)).isSameAs(frontend);
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.ISO_8859_1);
    }
}
