package tandem.api.transport;

import org.osgi.annotation.versioning.ProviderType;

/** A bound listener of a {@link FrameTransport}. */
@ProviderType
public interface FrameListener extends AutoCloseable {

    /** @return the port bound (useful when 0 was asked) */
    int port();

    /** Releases the port and closes every link accepted through it. Never blocks for long. */
    @Override
    void close();
}
