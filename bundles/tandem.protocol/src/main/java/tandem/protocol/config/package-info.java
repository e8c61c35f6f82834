/**
 * A component's configuration as every Tandem component treats it: its properties checked with one wording of the
 * error ({@link tandem.protocol.config.PropertyCheck}), and the values a component changes at an operator's request
 * written back where the node keeps them ({@link tandem.protocol.config.ConfigWriteBack}).
 */
@Export
@Version("2.0.0")
package tandem.protocol.config;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
