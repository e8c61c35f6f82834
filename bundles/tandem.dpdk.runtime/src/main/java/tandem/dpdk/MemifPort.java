package tandem.dpdk;

import java.nio.ByteBuffer;

/**
 * One {@code net_memif} port: a shared-memory Ethernet link to one peer, carrying raw frames of at most
 * {@link #MAX_FRAME} bytes. memif gives backpressure (a full ring refuses frames), loses frames in flight when the
 * peer dies, and has no receive interrupt: the owner polls.
 *
 * <p><b>Not thread-safe</b>, because a DPDK queue is not: one owner thread calls {@link #send}, {@link #receive},
 * {@link #linkUp}, {@link #restart} and {@link #stats}. {@link #close()} may be called from any thread, but only once
 * the owner has stopped using the port; a call after close throws {@link IllegalStateException}.
 *
 * <p>A memif server can transmit only into ring slots its client handed back by polling {@link #receive}: the
 * client side must keep polling receive (even when it expects nothing) for the server's sends to make progress.
 *
 * <p>Opening, closing and {@link #restart()} run on EAL's interrupt thread (the caller waits, typically well under a
 * millisecond), because memif handles its peer's connects and disconnects there without locking. The data path does
 * not: when the peer disconnects, memif unmaps the link's shared memory on that thread while the owner may be in
 * {@link #send}/{@link #receive}; DPDK 22.11 does not fence that window.
 *
 * <p>Frames cross the boundary packed in a direct {@link ByteBuffer} as records {@code [u16 little-endian
 * length][frame bytes]}, so that one native call moves a batch without copying through the Java heap.
 */
public interface MemifPort extends AutoCloseable {

    /** Largest frame the port carries, bytes: memif buffers are 2048 bytes and its max_rx_pktlen is 1518. */
    int MAX_FRAME = 1500;

    /** @return the vdev name, e.g. {@code net_memif3}; unique in the process */
    String name();

    /** @return true while the link to the peer is up (both sides connected over the socket) */
    boolean linkUp();

    /**
     * Stops and starts the port: how a memif client reconnects after its server appeared or restarted (call it every
     * few hundred milliseconds while {@link #linkUp()} is false). A failed start is not an error: the link stays down.
     */
    void restart();

    /**
     * Sends the records packed in {@code src} between its position and limit. Every record is checked first: a length
     * outside 1..{@link #MAX_FRAME} or a truncated record throws {@link IllegalArgumentException} before anything is
     * sent. Then as many whole records are sent as the port accepts now (memif backpressure; none while the link is
     * down), and the position advances past them.
     *
     * @param src a direct buffer
     * @return the number of frames sent
     */
    int send(ByteBuffer src);

    /**
     * Receives at most {@code maxFrames} frames into {@code dst} from its position as records {@code [u16
     * little-endian length][frame bytes]}, never writing beyond its limit, and advances the position. A frame that
     * does not fit stays for the next call (so {@code 2 + MAX_FRAME} bytes of room always make progress).
     *
     * @param dst a direct buffer
     * @param maxFrames the most frames to take, &gt;= 0
     * @return the number of frames received
     */
    int receive(ByteBuffer dst, int maxFrames);

    /**
     * @return ipackets, opackets, ibytes, obytes, imissed, ierrors, oerrors, rx_nombuf, in that order; memif resets
     *         them when it reconnects
     */
    long[] stats();

    /** Stops and closes the port, removes its vdev and frees its buffers. Idempotent. */
    @Override
    void close();
}
