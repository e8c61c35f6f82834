/** The node's {@code etc/*.cfg} files as components rewrite them. */
@Export
@Version("1.0.0")
package tandem.protocol.config;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
