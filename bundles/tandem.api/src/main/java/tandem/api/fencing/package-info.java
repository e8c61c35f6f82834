/**
 * The quorum fence of spec 001 ({@code tandem.fencing}): what it reports, and the split-brain audit. The fence itself is a
 * {@link tandem.api.server.WriteAdmission} provider.
 */
@Export
@Version("1.1.0")
package tandem.api.fencing;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
