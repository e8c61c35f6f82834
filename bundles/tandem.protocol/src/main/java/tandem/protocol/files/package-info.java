/**
 * Files a node changes and must find whole after a crash: files replaced whole and durably, atomic renames,
 * directory syncs, tree deletion ({@link tandem.protocol.files.DurableFiles}), and its {@code etc/*.cfg} as
 * components rewrite them ({@link tandem.protocol.files.CfgFile}).
 */
@Export
@Version("1.1.0")
package tandem.protocol.files;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
