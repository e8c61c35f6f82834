package tandem.shell.admin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class AdminFramesTest {

    /** 'C', length 2 big-endian, "lb". */
    private static final byte[] COMMAND_LB = {'C', 0, 0, 0, 2, 'l', 'b'};
    /** 'X', length 1, status 1. */
    private static final byte[] EXIT_FAILED = {'X', 0, 0, 0, 1, 1};

    @Test
    void writesTheGoldenBytes() throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        AdminFrames.write(out, AdminFrames.COMMAND, "lb".getBytes(StandardCharsets.UTF_8), 0, 2);
        AdminFrames.write(out, AdminFrames.EXIT, new byte[] {9, 1, 9}, 1, 1);
        ByteArrayOutputStream expected = new ByteArrayOutputStream();
        expected.write(COMMAND_LB);
        expected.write(EXIT_FAILED);
        assertThat(out.toByteArray()).isEqualTo(expected.toByteArray());
    }

    @Test
    void aProgressLineIsItsOwnFrameGolden() throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        byte[] line = "checking the journal: 1/4 MiB (25%)".getBytes(StandardCharsets.UTF_8);
        AdminFrames.write(out, AdminFrames.PROGRESS, line, 0, line.length);
        byte[] golden = new byte[5 + line.length];
        golden[0] = 'P';
        golden[4] = (byte) line.length; // 35, big-endian u32
        System.arraycopy(line, 0, golden, 5, line.length);
        assertThat(out.toByteArray()).isEqualTo(golden).startsWith('P', 0, 0, 0, 35);
        AdminFrames.Frame read = AdminFrames.read(stream(golden));
        assertThat(read.type()).isEqualTo(AdminFrames.PROGRESS);
        assertThat(read.payload()).isEqualTo(line);
    }

    @Test
    void readsFramesUntilACleanEnd() throws IOException {
        DataInputStream in = stream(COMMAND_LB, EXIT_FAILED);
        AdminFrames.Frame first = AdminFrames.read(in);
        assertThat(first.type()).isEqualTo(AdminFrames.COMMAND);
        assertThat(new String(first.payload(), StandardCharsets.UTF_8)).isEqualTo("lb");
        AdminFrames.Frame second = AdminFrames.read(in);
        assertThat(second.type()).isEqualTo(AdminFrames.EXIT);
        assertThat(second.payload()).containsExactly(1);
        assertThat(AdminFrames.read(in)).isNull();
    }

    @Test
    void refusesALengthAboveTheLimitBeforeAllocating() {
        DataInputStream in = stream(new byte[] {'C', 0x7F, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF});
        assertThatThrownBy(() -> AdminFrames.read(in)).isInstanceOf(IOException.class)
                .hasMessageContaining("2147483647 bytes exceeds the limit of 1048576");
    }

    @Test
    void refusesANegativeLength() {
        DataInputStream in = stream(new byte[] {'C', (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFE});
        assertThatThrownBy(() -> AdminFrames.read(in)).isInstanceOf(IOException.class)
                .hasMessageContaining("4294967294 bytes exceeds the limit");
    }

    @Test
    void reportsATruncatedHeaderOrPayload() {
        assertThatThrownBy(() -> AdminFrames.read(stream(new byte[] {'C', 0, 0})))
                .isInstanceOf(IOException.class).hasMessageContaining("truncated frame header");
        assertThatThrownBy(() -> AdminFrames.read(stream(new byte[] {'C', 0, 0, 0, 5, 'a'})))
                .isInstanceOf(IOException.class);
    }

    private static DataInputStream stream(byte[]... parts) {
        ByteArrayOutputStream all = new ByteArrayOutputStream();
        for (byte[] p : parts) {
            all.writeBytes(p);
        }
        return new DataInputStream(new ByteArrayInputStream(all.toByteArray()));
    }
}
