package tandem.api.auth;

import org.osgi.annotation.versioning.ProviderType;

/** This node's replication key pair; the private key never leaves the provider. */
@ProviderType
public interface NodeIdentity {

    /** @return the 32-byte Ed25519 public key */
    byte[] publicKey();

    /** @return the 64-byte Ed25519 signature of {@code message} */
    byte[] sign(byte[] message);

    /** @return the line that authorizes this node on a primary: {@code replication <base64 key> <comment>} */
    String authorizedKeysLine();
}
