package tandem.transport.dpdk;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;

/**
 * A raw frame port as the link's I/O thread sees it: a DPDK memif vdev in production, an in-memory pair in tests.
 * One owner thread calls everything but {@link #close}.
 */
interface Port extends AutoCloseable {

    /** Opens ports; the transport's one dependency on DPDK. */
    interface Factory {

        /** @return null when ports can be opened; otherwise why not */
        String unavailableReason();

        /**
         * Opens a port on the shared-memory socket {@code socket}: the server side removes a stale socket file
         * first; a client whose server is not there yet opens anyway and links up after {@link Port#restart}.
         */
        Port open(Path socket, boolean server) throws IOException;

        /** Pins the calling thread to {@code cpu}; false when that cannot be done here. */
        default boolean pinCurrentThread(int cpu) {
            return false;
        }
    }

    boolean linkUp();

    /** Reconnects a client port (memif's client never retries by itself). */
    void restart();

    /**
     * Sends whole records {@code [u16 LE size][frame]} from {@code records}' position as the port takes them,
     * advancing the position past those sent.
     *
     * @return frames sent
     */
    int send(ByteBuffer records);

    /**
     * Receives at most {@code maxFrames} frames into {@code records} from its position as {@code [u16 LE
     * size][frame]}, never past its limit, advancing the position.
     *
     * @return frames received
     */
    int receive(ByteBuffer records, int maxFrames);

    @Override
    void close();
}
