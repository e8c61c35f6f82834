package tandem.api.replication;

import java.nio.ByteBuffer;
import java.nio.file.Path;

import org.osgi.annotation.versioning.ProviderType;

/**
 * A client connection the server handed to the psync protocol after {@code PSYNC}: raw bytes from then on, no RESP
 * framing added. Thread-safe: any thread may send or close.
 */
@ProviderType
public interface PsyncLink {

    /** Queues bytes for sending as they are; they are copied before the call returns. */
    void send(ByteBuffer bytes);

    /**
     * Queues {@code count} bytes of {@code file} from {@code position}, after what was queued before, sent without
     * passing through the heap where the transport allows ({@code sendfile}). The file is opened before the call
     * returns: it may be deleted then.
     *
     * @return completes once the file's bytes are written to the socket, exceptionally when the connection fails
     * @throws java.io.UncheckedIOException when the file cannot be opened
     */
    java.util.concurrent.CompletionStage<Void> sendFile(Path file, long position, long count);

    /**
     * @return false while the connection's outbound buffer is over its high-water mark; a sender should then wait
     *         for {@link PsyncSession#writable} before queueing more
     */
    boolean writable();

    /** @return false once the connection closed */
    boolean open();

    /** Closes the connection, with the reason logged; {@link PsyncSession#closed} follows. */
    void close(String reason);

    /** @return the peer's address, {@code ip:port} */
    String remoteAddress();
}
