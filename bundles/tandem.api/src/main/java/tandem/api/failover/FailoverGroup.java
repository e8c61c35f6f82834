package tandem.api.failover;

import org.osgi.annotation.versioning.ProviderType;

/** This node's part in the failover group, for the shell, {@code INFO}, health and the Sentinel subset. */
@ProviderType
public interface FailoverGroup {

    /** @return the group as this node sees it now; never null */
    FailoverStatus status();
}
