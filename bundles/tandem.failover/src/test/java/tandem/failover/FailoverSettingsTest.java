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

    @Test
    void aMemberNamedAtRunTimeIsCheckedAsPeersAre() {
        assertThat(FailoverSettings.member("d", "127.0.0.1:7")).isEqualTo("127.0.0.1:7");
        assertThatThrownBy(() -> FailoverSettings.member("", "127.0.0.1:7")).hasMessageContaining("id=");
        assertThatThrownBy(() -> FailoverSettings.member("d e", "127.0.0.1:7")).hasMessageContaining("id=d e");
        assertThatThrownBy(() -> FailoverSettings.member("d", "localhost:7")).hasMessageContaining("address=localhost")
                .hasMessageContaining("IP address literal");
        assertThatThrownBy(() -> FailoverSettings.member("d", "127.0.0.1")).hasMessageContaining("IP:PORT");
        assertThatThrownBy(() -> FailoverSettings.member("d", "127.0.0.1:0")).hasMessageContaining("a port between");
    }

    @Test
    void onceFormedTheGroupsMembersComeFromItsLogNotFromPeers() {
        FailoverSettings formed = of("a", "a@127.0.0.1:1,b@127.0.0.1:2,c@127.0.0.1:3", 1000, 600);
        // an operator who writes the group's new membership into peers restarts nothing
        assertThat(of("a", "a@127.0.0.1:1,b@127.0.0.1:2,d@127.0.0.1:4", 1000, 600).sameGroup(formed)).isTrue();
        assertThat(of("a", "a@127.0.0.1:9,b@127.0.0.1:2", 1000, 600).sameGroup(formed)).as("its own Raft port")
                .isFalse();
        FailoverSettings live = formed.withPeers(java.util.Map.of("a", "127.0.0.1:1", "d", "127.0.0.1:4"));
        assertThat(live.peers()).containsOnlyKeys("a", "d");
        assertThat(live.downAfterMs()).isEqualTo(formed.downAfterMs());
        assertThat(live.sameGroup(formed)).isTrue();
    }
}
