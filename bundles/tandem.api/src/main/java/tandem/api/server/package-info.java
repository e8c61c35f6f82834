/**
 * Contracts of the RESP front end: what the listener is bound to, who is connected, and publishing to its
 * subscribers ({@link tandem.api.server.PubSub}).
 *
 * <p>Consumers (the shell, health, replication status) read the server through {@link tandem.api.server.ServerStatus};
 * no Netty type appears here so that a consumer never wires to a Netty version.
 */
@Export
@Version("1.10.0")
package tandem.api.server;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
