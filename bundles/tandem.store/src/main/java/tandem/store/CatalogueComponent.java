package tandem.store;

import java.util.Collection;

import org.osgi.service.component.annotations.Component;

import tandem.api.store.CommandCatalogue;
import tandem.api.store.CommandDescriptor;

/**
 * The store's command table as a service of its own, with no reference to wait for: registered as soon as the bundle
 * starts, long before the store component has a journal to open its keyspace against.
 */
@Component(service = CommandCatalogue.class, immediate = true)
public final class CatalogueComponent implements CommandCatalogue {

    @Override
    public Collection<CommandDescriptor> commands() {
        return Commands.descriptors();
    }

    @Override
    public CommandDescriptor describe(String lowerCaseName) {
        return Commands.describe(lowerCaseName);
    }
}
