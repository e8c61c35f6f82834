/**
 * What Tandem's integration tests share: {@link tandem.testsupport.Await}, waiting for a condition with a deadline.
 */
@Export
@Version("1.0.0")
package tandem.testsupport;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
