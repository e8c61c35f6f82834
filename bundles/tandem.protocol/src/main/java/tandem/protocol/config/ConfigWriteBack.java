package tandem.protocol.config;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.Dictionary;
import java.util.Hashtable;

import org.osgi.service.cm.Configuration;
import org.osgi.service.cm.ConfigurationAdmin;

import tandem.api.home.NodeHome;
import tandem.protocol.files.CfgFile;

/**
 * Writes back a value a component changed in its own configuration at an operator's request (a promotion,
 * {@code REPLICAOF}, {@code repl:policy}): into ConfigurationAdmin, and into the node's {@code etc/<pid>.cfg} when
 * there is one. That file is the node's configuration, and FileInstall would otherwise bring its older value back.
 *
 * <p>The component sets its running settings before it writes the value back, so that the {@code @Modified}
 * callback that follows finds nothing to change.
 */
public final class ConfigWriteBack {

    private final ConfigurationAdmin admin;
    private final String pid;
    private final Path cfg;

    /**
     * @param home the node's home, whose {@code etc/<pid>.cfg} follows the value; when it is not
     *             {@linkplain NodeHome#isSet() set}, only ConfigurationAdmin keeps the value
     */
    public ConfigWriteBack(ConfigurationAdmin admin, String pid, NodeHome home) {
        this.admin = admin;
        this.pid = pid;
        this.cfg = home.isSet() ? home.directory().resolve("etc").resolve(pid + ".cfg") : null;
    }

    /**
     * Keeps {@code key = value}: in {@code etc/<pid>.cfg} first ({@link CfgFile#put}, durably; a missing file stays
     * missing), then in the configuration of the PID.
     *
     * @throws UncheckedIOException when either cannot be written
     */
    public void put(String key, String value) {
        if (cfg != null) {
            try {
                CfgFile.put(cfg, key, value);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot write " + key + " to " + cfg + ": " + e.getMessage(), e);
            }
        }
        try {
            Configuration c = admin.getConfiguration(pid, "?");
            Dictionary<String, Object> props = c.getProperties();
            if (props == null) {
                props = new Hashtable<>();
            }
            props.put(key, value);
            c.update(props);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot store " + key + "=" + value + ": " + e.getMessage(), e);
        }
    }
}
