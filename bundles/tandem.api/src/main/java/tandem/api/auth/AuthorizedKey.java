package tandem.api.auth;

/**
 * One line of {@code authorized_keys}.
 *
 * @param permission {@code replication} (other permissions are kept in the file but grant nothing here)
 * @param base64Key  the 32-byte Ed25519 public key, standard base64
 * @param comment    the rest of the line, may be empty
 */
public record AuthorizedKey(String permission, String base64Key, String comment) {
}
