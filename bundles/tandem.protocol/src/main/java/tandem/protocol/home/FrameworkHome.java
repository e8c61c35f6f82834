package tandem.protocol.home;

import java.nio.file.InvalidPathException;
import java.nio.file.Path;

import org.osgi.framework.BundleContext;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;

import tandem.api.home.NodeHome;

/**
 * The one reader of the framework property {@value NodeHome#PROPERTY}. It lives in {@code tandem.protocol} because
 * every Tandem bundle already imports that bundle, whose update refreshes them all anyway: no swap takes the home
 * away from a component on its own.
 */
@Component(service = NodeHome.class)
public final class FrameworkHome implements NodeHome {

    private final Path directory;
    private final boolean set;

    @Activate
    public FrameworkHome(BundleContext context) {
        this(context.getProperty(PROPERTY));
    }

    /** @param property the value of {@value NodeHome#PROPERTY}, or null when it is not set */
    FrameworkHome(String property) {
        this.set = property != null && !property.isBlank();
        String home = set ? property.trim() : ".";
        try {
            this.directory = Path.of(home).toAbsolutePath().normalize();
        } catch (InvalidPathException e) {
            throw new IllegalArgumentException("the framework property " + PROPERTY + "=" + home
                    + " is not a valid path", e);
        }
    }

    @Override
    public Path directory() {
        return directory;
    }

    @Override
    public boolean isSet() {
        return set;
    }

    @Override
    public String toString() {
        return set ? directory.toString() : directory + " (the working directory: " + PROPERTY + " is not set)";
    }
}
