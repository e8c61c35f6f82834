package tandem.api.auth;

import java.util.List;

import org.osgi.annotation.versioning.ProviderType;

/** Decides which replicas a primary accepts: the keys of its {@code authorized_keys} file. */
@ProviderType
public interface ReplicaAuthorizer {

    /** The outcome of a challenge. */
    enum Verdict {
        /** the key is authorized for replication and the signature verifies */
        ALLOWED,
        /** the key is not in {@code authorized_keys} with the {@code replication} permission */
        UNKNOWN_KEY,
        /** the key is authorized but the signature does not verify */
        BAD_SIGNATURE,
        /** the key or signature has the wrong length */
        MALFORMED
    }

    /**
     * @param publicKey 32 bytes
     * @param nonce     the 32-byte challenge that was sent
     * @param signature 64 bytes
     */
    Verdict verify(byte[] publicKey, byte[] nonce, byte[] signature);

    /** @return the authorized keys, as currently read from the file */
    List<AuthorizedKey> authorizedKeys();

    /**
     * Adds a key with the {@code replication} permission (a no-op when it is there already) and rewrites the file
     * atomically.
     *
     * @param base64Key the key, standard base64 of 32 bytes
     * @param comment   free text, may be empty
     * @throws IllegalArgumentException when the key is not base64 of 32 bytes
     */
    void allow(String base64Key, String comment);

    /** Removes a key; @return false when it was not there */
    boolean revoke(String base64Key);
}
