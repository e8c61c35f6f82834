/**
 * What Tandem's tests share: {@link tandem.testsupport.Await}, waiting for a condition with a deadline, and
 * {@link tandem.testsupport.TestPki}, a certificate authority that issues PEM files for TLS tests.
 */
@Export
@Version("1.1.0")
package tandem.testsupport;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
