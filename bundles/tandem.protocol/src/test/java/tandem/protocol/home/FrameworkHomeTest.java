package tandem.protocol.home;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import tandem.api.home.NodeHome;

/** The home as the framework property names it, and the working directory when it does not. */
@Timeout(10)
public class FrameworkHomeTest {

    /** @return the home of a framework whose {@code tandem.home} is not set, for the tests of this bundle */
    public static NodeHome unset() {
        return new FrameworkHome((String) null);
    }

    @Test
    void aSetPropertyIsTheHomeAbsoluteAndNormalized() {
        NodeHome home = new FrameworkHome(" /srv/tandem/../node1 ");
        assertThat(home.directory()).isEqualTo(Path.of("/srv/node1"));
        assertThat(home.isSet()).isTrue();
        assertThat(new FrameworkHome("node2").directory()).isEqualTo(Path.of("node2").toAbsolutePath());
    }

    @Test
    void anUnsetOrBlankPropertyIsTheWorkingDirectoryAndSaysSo() {
        Path workingDirectory = Path.of("").toAbsolutePath();
        for (NodeHome home : new NodeHome[] {unset(), new FrameworkHome(" ")}) {
            assertThat(home.directory()).isEqualTo(workingDirectory);
            assertThat(home.isSet()).isFalse();
            assertThat(home.toString()).contains("tandem.home is not set");
        }
    }

    @Test
    void aHomeThatIsNoPathIsRefusedNamingTheProperty() {
        assertThatThrownBy(() -> new FrameworkHome("a\0b")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("the framework property tandem.home=a\0b is not a valid path");
    }

    @Test
    void aHomeGivenDirectlyIsSet() {
        NodeHome given = () -> Path.of("/srv/node3");
        assertThat(given.isSet()).isTrue();
    }
}
