/**
 * The journal's App payload: a command re-serialized as one canonical RESP2 array of bulk strings, or a committed
 * transaction as the arrays {@code MULTI}, its commands, {@code EXEC}, back to back; and the key hash.
 */
@Export
@Version("1.2.0")
package tandem.protocol.command;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
