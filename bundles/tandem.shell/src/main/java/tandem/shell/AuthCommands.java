package tandem.shell;

import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.function.BiFunction;

import org.apache.felix.service.command.Descriptor;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;

import tandem.api.auth.AuthorizedKey;
import tandem.api.auth.NodeIdentity;
import tandem.api.auth.ReplicaAuthorizer;

/** {@code auth:*}: this node's replication key and the replica keys it accepts ({@code authorized_keys}). */
@Component(service = AuthCommands.class, immediate = true, property = {
    "osgi.command.scope=auth",
    "osgi.command.function=keygen",
    "osgi.command.function=list",
    "osgi.command.function=allow",
    "osgi.command.function=revoke"
})
public final class AuthCommands {

    private static final String NOT_ACTIVE = "auth: not active (is tandem.auth started? see scr:list)";
    private static final Set<String> PERMISSIONS = Set.of("operator", "trader", "custodian", "readonly",
            "replication");

    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC)
    volatile NodeIdentity identity;

    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC)
    volatile ReplicaAuthorizer authorizer;

    /** tandem.auth's key generator for other nodes (no contract for it in tandem.api.auth yet). */
    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC,
            service = BiFunction.class, target = "(tandem.auth=keygen)")
    volatile BiFunction<String, String, String> keyGenerator;

    @Descriptor("prints this node's authorizing line (replication <key> <comment>), to paste into auth:allow on "
            + "the primary; the key is created when the node first starts")
    public String keygen() {
        NodeIdentity i = identity;
        return i == null ? NOT_ACTIVE : i.authorizedKeysLine();
    }

    @Descriptor("writes a NEW key pair for another node to FILE and FILE.pub (never overwrites) and prints its "
            + "authorizing line; copy FILE to that node's key.file (etc/replication_ed25519), mode 0600")
    public String keygen(
            @Descriptor("the new private key file, relative to the node's home or absolute") String file,
            @Descriptor("the comment of the line (default tandem@<file name>)") String... comment) {
        BiFunction<String, String, String> g = keyGenerator;
        return g == null ? NOT_ACTIVE : g.apply(file, String.join(" ", comment));
    }

    @Descriptor("lists the authorized keys, one per line: permission, key, comment (only replication admits a "
            + "replica)")
    public String list() {
        ReplicaAuthorizer a = authorizer;
        if (a == null) {
            return NOT_ACTIVE;
        }
        List<AuthorizedKey> keys = a.authorizedKeys();
        if (keys.isEmpty()) {
            return "no authorized keys";
        }
        StringBuilder out = new StringBuilder();
        for (AuthorizedKey k : keys) {
            if (out.length() > 0) {
                out.append(System.lineSeparator());
            }
            out.append(k.permission()).append(' ').append(k.base64Key());
            if (!k.comment().isEmpty()) {
                out.append(' ').append(k.comment());
            }
        }
        return out.toString();
    }

    @Descriptor("authorizes a replica's key for replication: auth:allow KEY [COMMENT...], or paste the line "
            + "auth:keygen printed on the replica: auth:allow replication KEY COMMENT")
    public String allow(
            @Descriptor("the base64 Ed25519 public key, or the word replication followed by the key")
            String keyOrPermission,
            @Descriptor("free text kept after the key (with a pasted line: the key, then the comment)")
            String... rest) {
        ReplicaAuthorizer a = authorizer;
        if (a == null) {
            return NOT_ACTIVE;
        }
        String key = keyOrPermission;
        List<String> comment = Arrays.asList(rest);
        if (PERMISSIONS.contains(keyOrPermission) && rest.length > 0) {
            if (!keyOrPermission.equals("replication")) {
                throw new IllegalArgumentException("only replication keys are allowed here; a " + keyOrPermission
                        + " key is added by editing authorized_keys");
            }
            key = rest[0];
            comment = comment.subList(1, comment.size());
        }
        a.allow(key, String.join(" ", comment));
        return "allowed for replication: " + key;
    }

    @Descriptor("removes a key from authorized_keys; a replica already connected stays connected until it "
            + "reconnects")
    public String revoke(@Descriptor("the base64 Ed25519 public key") String key) {
        ReplicaAuthorizer a = authorizer;
        if (a == null) {
            return NOT_ACTIVE;
        }
        return a.revoke(key) ? "revoked: " + key : "not authorized, nothing revoked: " + key;
    }
}
