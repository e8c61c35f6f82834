package tandem.auth;

import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.function.BiFunction;

import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;

import tandem.api.home.NodeHome;

/**
 * Makes key pairs for other nodes, for {@code auth:keygen FILE}: {@code apply(file, comment)} writes a new key to
 * {@code file} (relative to {@code tandem.home}) and {@code file.pub}, refusing to overwrite either, and returns the
 * authorizing line.
 *
 * <p>Registered as a {@link BiFunction} with the property {@value #PROPERTY}={@value #VALUE} because
 * {@code tandem.api.auth} has no contract for it; a shell command finds it by that filter.
 */
@Component(service = BiFunction.class, property = KeyGeneratorComponent.PROPERTY + "=" + KeyGeneratorComponent.VALUE)
public final class KeyGeneratorComponent implements BiFunction<String, String, String> {

    /** The service property that marks this service. */
    public static final String PROPERTY = "tandem.auth";
    /** Its value. */
    public static final String VALUE = "keygen";

    private final Path home;

    @Activate
    public KeyGeneratorComponent(@Reference NodeHome home) {
        this.home = home.directory();
    }

    /**
     * @param file    the new private key file, relative to tandem.home or absolute
     * @param comment the comment of the line; empty: {@code tandem@<file name>}
     * @return {@code replication <base64 key> <comment>}
     * @throws IllegalArgumentException when {@code file} is not a path
     * @throws IllegalStateException    when the file or its .pub exists, or cannot be written
     */
    @Override
    public String apply(String file, String comment) {
        if (file == null || file.isBlank()) {
            throw new IllegalArgumentException("no file given for the new key");
        }
        Path path;
        try {
            path = AuthSettings.resolve(home, file.strip());
        } catch (InvalidPathException e) {
            throw new IllegalArgumentException(file + " is not a valid path");
        }
        String c = comment == null || comment.isBlank() ? AuthSettings.comment(path) : comment.strip();
        NodeKey key = NodeKey.generate(path, c);
        System.getLogger("tandem.auth").log(System.Logger.Level.INFO,
                "generated a replication key for another node in {0} and {0}.pub", path);
        return key.line();
    }
}
