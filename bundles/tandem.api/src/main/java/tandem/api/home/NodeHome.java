package tandem.api.home;

import java.nio.file.Path;

import org.osgi.annotation.versioning.ProviderType;

/**
 * The node's home directory, as the framework property {@value #PROPERTY} names it ({@code bin/tandem} sets it to
 * the node's own directory, so that nodes on one machine share nothing). A component resolves its default and its
 * relative paths against {@link #directory()}: the journal's {@code data/journal}, the store's {@code data/store},
 * the replication key {@code etc/replication_ed25519}, the configuration written back to {@code etc/<pid>.cfg}.
 *
 * <p>A home given directly (a test's {@code () -> dir}) is {@linkplain #isSet() set}.
 */
@ProviderType
@FunctionalInterface
public interface NodeHome {

    /** The framework property that names the home: {@value}. */
    String PROPERTY = "tandem.home";

    /**
     * @return the home, absolute and normalized; the working directory when {@value #PROPERTY} is not set
     */
    Path directory();

    /**
     * Whether {@value #PROPERTY} is set. Where the working directory would be a wrong guess a component refuses to
     * fall back to it: the journal's default directory, the admin channel's socket record, a value written back to
     * {@code etc/}.
     *
     * @return true when the home was named (always, unless a provider says otherwise)
     */
    default boolean isSet() {
        return true;
    }
}
