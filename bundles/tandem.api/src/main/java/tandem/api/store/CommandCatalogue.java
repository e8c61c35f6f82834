package tandem.api.store;

import java.util.Collection;

import org.osgi.annotation.versioning.ProviderType;

/**
 * The keyspace commands a store implementation executes, known before any store is open: {@code COMMAND} lists them
 * from a node's first moment, while the store still waits for its journal, replays it or cannot open at all, so that
 * a client library reading the command table at connect time sees {@code GET}.
 */
@ProviderType
public interface CommandCatalogue {

    /** @return the keyspace commands */
    Collection<CommandDescriptor> commands();

    /** @return the command named {@code lowerCaseName}, or null */
    CommandDescriptor describe(String lowerCaseName);
}
