package tandem.api.transport;

import java.nio.ByteBuffer;

import org.osgi.annotation.versioning.ProviderType;

/** One open link. Thread-safe: any thread may send or close. */
@ProviderType
public interface FrameLink {

    /**
     * Queues bytes for sending, as they are: one or more whole frames, each with its length prefix. The bytes are
     * copied before the call returns, so the caller may reuse {@code frames}.
     */
    void send(ByteBuffer frames);

    /**
     * @return false while the transport's outbound buffer is over its high-water mark; a sender should then wait
     *         for {@link FrameSession#writable} before queueing more
     */
    boolean writable();

    /** Closes the link; the session's {@link FrameSession#closed} follows with {@code reason}. */
    void close(String reason);

    /** @return the peer's address, {@code ip:port} */
    String remoteAddress();
}
