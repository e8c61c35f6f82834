/**
 * Replication authentication: each node's Ed25519 key, and the set of public keys a primary accepts as replicas.
 *
 * <p>The primary sends a fresh 32-byte nonce; the replica answers with its Ed25519 signature of exactly those 32
 * bytes and its public key; the primary accepts it when the key is authorized for {@code replication} and the
 * signature verifies. Keys are raw 32-byte Ed25519 public keys; text forms are standard base64.
 */
@Export
@Version("1.0.0")
package tandem.api.auth;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
