package tandem.failover;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Every invalid setting is refused with the property named. */
@Timeout(30)
class FailoverSettingsTest {

    private static final Path HOME = Path.of("/tmp/home");

    private static FailoverSettings of(String id, String peers, int down, int lease) {
        return FailoverSettings.of(GroupPeerTest.config(id, peers, "", false, down, lease), HOME);
    }

    @Test
    void peersKeepTheirOrderAndTheOwnPortIsTheRaftPort() {
        FailoverSettings s = of("b", "c@127.0.0.1:3,b@127.0.0.1:2,a@127.0.0.1:1", 1000, 600);
        assertThat(s.peerIds()).containsExactly("c", "b", "a");
        assertThat(s.raftPort()).isEqualTo(2);
        assertThat(s.storage()).isEqualTo(HOME.resolve("data/failover"));
    }

    @Test
    void invalidSettingsNameTheirProperty() {
        String peers = "a@127.0.0.1:1,b@127.0.0.1:2";
        assertThatThrownBy(() -> of("", peers, 1000, 600)).hasMessageStartingWith("tandem.failover: node.id=");
        assertThatThrownBy(() -> of("z", peers, 1000, 600)).hasMessageContaining("peers=")
                .hasMessageContaining("this node's id 'z'");
        assertThatThrownBy(() -> of("a", "a@localhost:1", 1000, 600)).hasMessageContaining("peers=localhost")
                .hasMessageContaining("IP address literal");
        assertThatThrownBy(() -> of("a", "a@127.0.0.1:1,a@127.0.0.1:2", 1000, 600))
                .hasMessageContaining("'a' repeats");
        assertThatThrownBy(() -> of("a", "a127.0.0.1:1", 1000, 600)).hasMessageContaining("id@IP:PORT");
        assertThatThrownBy(() -> of("a", "a@127.0.0.1:70000", 1000, 600)).hasMessageContaining("between 1 and 65535");
        assertThatThrownBy(() -> of("a", peers, 700, 600)).hasMessageContaining("down.after.ms=700")
                .hasMessageContaining("lease.ms + 2 × report.interval.ms = 800");
        assertThatThrownBy(() -> of("a", peers, 1000, 40)).hasMessageContaining("lease.ms=40");
    }
}
