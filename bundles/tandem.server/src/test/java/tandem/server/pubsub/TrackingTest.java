package tandem.server.pubsub;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.netty.buffer.ByteBuf;

/**
 * Client-side caching's bookkeeping and its messages, byte for byte (recorded from Redis 7.0.15): who is told of a
 * modified key, once, in which form (a RESP3 push, a message on {@code __redis__:invalidate} for a RESP2 redirection,
 * nothing for a RESP2 connection of its own), and how the modes and their errors combine.
 */
@Timeout(10)
class TrackingTest {

    /** A connection that records what it is pushed. */
    static final class Client implements Tracking.Target {
        final int protocol;
        boolean subscribed;
        final StringBuilder got = new StringBuilder();

        Client(int protocol) {
            this.protocol = protocol;
        }

        @Override
        public boolean push(ByteBuf frame) {
            got.append(frame.toString(StandardCharsets.ISO_8859_1));
            return true;
        }

        @Override
        public int protocol() {
            return protocol;
        }

        @Override
        public boolean subscribed() {
            return subscribed;
        }

        String take() {
            String s = got.toString();
            got.setLength(0);
            return s;
        }
    }

    private final Map<Long, Client> clients = new HashMap<>();
    private final Tracking tracking = new Tracking(clients::get);

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static List<byte[]> keys(String... k) {
        List<byte[]> out = new ArrayList<>();
        for (String s : k) {
            out.add(b(s));
        }
        return out;
    }

    private static final String INVALIDATE_K = ">2\r\n$10\r\ninvalidate\r\n*1\r\n$1\r\nk\r\n";

    @Test
    void aKeyReadIsInvalidatedOnceWhenItIsModifiedAndNotForTheWriterWithNoloop() {
        Client a = new Client(3);
        Client b = new Client(3);
        clients.put(1L, a);
        clients.put(2L, b);
        assertThat(tracking.active()).isFalse();
        assertThat(tracking.on(1, 0, false, false, false, false, List.of())).isNull();
        assertThat(tracking.on(2, 0, false, false, false, true, List.of())).isNull();
        assertThat(tracking.active()).isTrue();
        tracking.ran(1, keys("k"), false);
        tracking.ran(2, keys("k"), false);
        tracking.modified(b("k"), 2);
        assertThat(a.take()).isEqualTo(INVALIDATE_K);
        assertThat(b.take()).as("NOLOOP: its own write").isEmpty();
        tracking.modified(b("k"), 0);
        assertThat(a.take()).as("told once, until it reads the key again").isEmpty();
        tracking.ran(1, null, false); // a write of its own remembers nothing
        tracking.modified(b("other"), 0);
        assertThat(a.take()).isEmpty();
        tracking.off(1);
        tracking.ran(1, keys("k"), false);
        tracking.modified(b("k"), 0);
        assertThat(a.take()).isEmpty();
    }

    @Test
    void bcastTellsEveryKeyUnderItsPrefixesWithoutReading() {
        Client a = new Client(3);
        clients.put(1L, a);
        assertThat(tracking.on(1, 0, true, false, false, false, keys("user:", "job:"))).isNull();
        tracking.modified(b("user:7"), 0);
        tracking.modified(b("other"), 0);
        tracking.modified(b("user:7"), 0);
        assertThat(a.take()).isEqualTo((">2\r\n$10\r\ninvalidate\r\n*1\r\n$6\r\nuser:7\r\n").repeat(2));
        assertThat(tracking.on(1, 0, true, false, false, false, keys("user:x")))
                .isEqualTo("ERR Prefix 'user:x' overlaps with an existing prefix 'user:'. Prefixes for a single "
                        + "client must not overlap.");
        assertThat(tracking.info(1).prefixes()).extracting(p -> new String(p, StandardCharsets.UTF_8))
                .containsExactly("job:", "user:"); // in byte order, as Redis lists them
        assertThat(tracking.on(2, 0, true, false, false, false, keys("a", "ab")))
                .isEqualTo("ERR Prefix 'a' overlaps with another provided prefix 'ab'. Prefixes for a single client "
                        + "must not overlap.");
    }

    @Test
    void optinTracksTheReadAfterCachingYesAndOptoutAllButTheOneAfterCachingNo() {
        Client a = new Client(3);
        Client b = new Client(3);
        clients.put(1L, a);
        clients.put(2L, b);
        tracking.on(1, 0, false, true, false, false, List.of());
        tracking.on(2, 0, false, false, true, false, List.of());
        tracking.ran(1, keys("k"), false);
        assertThat(tracking.caching(2, false)).isNull();
        tracking.ran(2, null, true); // CLIENT CACHING itself
        tracking.ran(2, keys("k"), false);
        tracking.modified(b("k"), 0);
        assertThat(a.take() + b.take()).as("neither tracked its read").isEmpty();
        assertThat(tracking.caching(1, true)).isNull();
        assertThat(tracking.info(1).flags()).containsExactly("on", "optin", "caching-yes");
        tracking.ran(1, null, true);
        tracking.ran(1, keys("k"), false);
        assertThat(tracking.info(1).flags()).containsExactly("on", "optin");
        tracking.ran(2, keys("k"), false);
        tracking.modified(b("k"), 0);
        assertThat(a.take()).isEqualTo(INVALIDATE_K);
        assertThat(b.take()).isEqualTo(INVALIDATE_K);
        assertThat(tracking.caching(1, false))
                .isEqualTo("ERR CLIENT CACHING NO is only valid when tracking is enabled in OPTOUT mode.");
        assertThat(tracking.caching(9, true)).isEqualTo("ERR CLIENT CACHING can be called only when the client is in "
                + "tracking mode with OPTIN or OPTOUT mode enabled");
    }

    @Test
    void aRedirectionToAResp2SubscriberIsAMessageAndABrokenOneIsToldToTheClient() {
        Client tracker = new Client(2);
        Client listener = new Client(2);
        clients.put(1L, tracker);
        clients.put(2L, listener);
        tracking.on(1, 2, false, false, false, false, List.of());
        tracking.ran(1, keys("k"), false);
        tracking.modified(b("k"), 0);
        assertThat(listener.take()).as("not subscribed: RESP2 has nowhere to put it").isEmpty();
        listener.subscribed = true;
        tracking.ran(1, keys("k"), false);
        tracking.modified(b("k"), 0);
        assertThat(listener.take())
                .isEqualTo("*3\r\n$7\r\nmessage\r\n$20\r\n__redis__:invalidate\r\n*1\r\n$1\r\nk\r\n");
        tracking.flushed();
        assertThat(listener.take()).isEqualTo("*3\r\n$7\r\nmessage\r\n$20\r\n__redis__:invalidate\r\n$-1\r\n");
        Client resp3 = new Client(3);
        clients.put(3L, resp3);
        tracking.on(3, 4, false, false, false, false, List.of());
        tracking.ran(3, keys("k"), false);
        tracking.modified(b("k"), 0);
        assertThat(resp3.take()).isEqualTo(">2\r\n$21\r\ntracking-redir-broken\r\n:4\r\n");
        assertThat(tracking.info(3).flags()).containsExactly("on", "broken_redirect");
        assertThat(tracking.redirect(3)).isEqualTo(4);
        assertThat(tracking.redirect(5)).isEqualTo(-1);
    }

    @Test
    void aFlushTellsEveryTrackingClientWithANull() {
        Client a = new Client(3);
        clients.put(1L, a);
        tracking.on(1, 0, true, false, false, false, List.of());
        tracking.flushed();
        assertThat(a.take()).isEqualTo(">2\r\n$10\r\ninvalidate\r\n_\r\n");
    }

    @Test
    void theModesAreCheckedAsRedisChecksThem() {
        assertThat(tracking.on(1, 0, false, false, false, false, keys("p")))
                .isEqualTo("ERR PREFIX option requires BCAST mode to be enabled");
        assertThat(tracking.on(1, 0, true, true, false, false, List.of()))
                .isEqualTo("ERR OPTIN and OPTOUT are not compatible with BCAST");
        assertThat(tracking.on(1, 0, false, true, true, false, List.of()))
                .isEqualTo("ERR You can't specify both OPTIN mode and OPTOUT mode");
        assertThat(tracking.on(1, 0, false, true, false, false, List.of())).isNull();
        assertThat(tracking.on(1, 0, false, false, true, false, List.of())).isEqualTo("ERR You can't switch "
                + "OPTIN/OPTOUT mode before disabling tracking for this client, and then re-enabling it with a "
                + "different mode.");
        assertThat(tracking.on(1, 0, true, false, false, false, List.of())).isEqualTo("ERR You can't switch BCAST "
                + "mode on/off before disabling tracking for this client, and then re-enabling it with a different "
                + "mode.");
        tracking.closed(1);
        assertThat(tracking.info(1)).isEqualTo(new Tracking.Info(List.of("off"), -1, List.of()));
    }
}
