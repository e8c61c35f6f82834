/**
 * The quorum fence of spec 001 ({@code tandem.fencing}): what it reports. The fence itself is a
 * {@link tandem.api.server.WriteAdmission} provider.
 */
@Export
@Version("1.0.0")
package tandem.api.fencing;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
