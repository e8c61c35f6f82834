/** Network address text, parsed without a resolver. */
@Export
@Version("1.2.0")
package tandem.protocol.net;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
