package tandem.auth;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.util.List;

import org.bouncycastle.math.ec.rfc8032.Ed25519;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Modified;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.Designate;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;

import tandem.api.auth.AuthorizedKey;
import tandem.api.auth.NodeIdentity;
import tandem.api.auth.ReplicaAuthorizer;
import tandem.api.home.NodeHome;
import tandem.protocol.config.ConfigChange;

/**
 * Registers the node's replication identity ({@link NodeIdentity}: its Ed25519 key, created at the first start) and
 * the primary's side of the challenge ({@link ReplicaAuthorizer}: the keys of {@code authorized_keys}).
 *
 * <p>{@code authorized.keys} and {@code reload.check.ms} change live through {@link #modified}; {@code key.file}
 * applies when the component next activates. An invalid change is refused with a logged reason and the running
 * configuration stays.
 */
@Component(service = {NodeIdentity.class, ReplicaAuthorizer.class}, immediate = true,
        configurationPid = AuthSettings.PID)
@Designate(ocd = AuthComponent.Config.class)
public final class AuthComponent implements NodeIdentity, ReplicaAuthorizer {

    private static final Logger LOG = System.getLogger("tandem.auth");

    @ObjectClassDefinition(id = AuthSettings.PID, name = "Tandem replication authentication",
            description = "The node's Ed25519 replication key, and the public keys of the replicas a primary "
                    + "accepts.")
    public @interface Config {

        @AttributeDefinition(description = "The node's private replication key: a file holding exactly the raw "
                + "32-byte Ed25519 seed, readable by its owner only (mode 0600). A relative path is resolved "
                + "against the framework property tandem.home (the working directory when unset). Created with "
                + "KEY_FILE.pub (the line that authorizes this node on a primary) when missing; a file of another "
                + "size or readable by group or others is refused. Read when the component activates.")
        String key_file() default "etc/replication_ed25519";

        @AttributeDefinition(description = "The public keys a primary accepts: lines '<permission> <base64 "
                + "32-byte Ed25519 key> [comment]', permission operator, trader, custodian, readonly or "
                + "replication (only replication admits a replica); '#' comments and blank lines are ignored, a "
                + "malformed line is logged and skipped, a missing file admits no replica. Relative to "
                + "tandem.home like key.file. Re-read when it changes; applies live.")
        String authorized_keys() default "etc/authorized_keys";

        @AttributeDefinition(description = "The least time in milliseconds between two checks of whether "
                + "authorized.keys changed (modification time, size, inode), made when a replica is verified or "
                + "the keys are listed (0..3600000, default 1000; 0 checks every time). Applies live.")
        long reload_check_ms() default 1000;
    }

    private final AuthSettings settings;
    private final NodeKey key;
    private final AuthorizedKeysFile authorized;
    private final NodeHome home;

    @Activate
    public AuthComponent(Config config, @Reference NodeHome home) {
        this.home = home;
        this.settings = AuthSettings.of(config, home);
        boolean existed = java.nio.file.Files.exists(settings.keyFile());
        try {
            this.key = NodeKey.loadOrCreate(settings.keyFile(), settings.comment());
        } catch (IllegalStateException e) {
            LOG.log(Level.ERROR, "not started: {0}", e.getMessage());
            throw e;
        }
        LOG.log(Level.INFO, "{0} replication key {1}; this node''s authorizing line (in {2}.pub): {3}",
                existed ? "read" : "created", settings.keyFile(), settings.keyFile(), key.line());
        this.authorized = new AuthorizedKeysFile(settings.authorizedKeys(), settings.reloadCheckMs(),
                System::nanoTime);
    }

    @Modified
    void modified(Config config) {
        AuthSettings next = ConfigChange.validated(LOG, () -> AuthSettings.of(config, home));
        if (next == null) {
            return;
        }
        if (!next.keyFile().equals(settings.keyFile())) {
            LOG.log(Level.WARNING, "{0}: key.file={1} applies when the component next activates; the key stays {2}",
                    AuthSettings.PID, next.keyFile(), settings.keyFile());
        }
        authorized.reconfigure(next.authorizedKeys(), next.reloadCheckMs());
    }

    AuthSettings settings() {
        return settings;
    }

    AuthorizedKeysFile authorizedKeysFile() {
        return authorized;
    }

    // NodeIdentity

    @Override
    public byte[] publicKey() {
        return key.publicKey();
    }

    @Override
    public byte[] sign(byte[] message) {
        return key.sign(message);
    }

    @Override
    public String authorizedKeysLine() {
        return key.line();
    }

    // ReplicaAuthorizer

    @Override
    public Verdict verify(byte[] publicKey, byte[] nonce, byte[] signature) {
        if (publicKey == null || nonce == null || signature == null
                || publicKey.length != Ed25519.PUBLIC_KEY_SIZE || nonce.length != 32
                || signature.length != Ed25519.SIGNATURE_SIZE) {
            return Verdict.MALFORMED;
        }
        if (!authorized.replicationKey(publicKey)) {
            return Verdict.UNKNOWN_KEY;
        }
        return Ed25519.verify(signature, 0, publicKey, 0, nonce, 0, nonce.length)
                ? Verdict.ALLOWED : Verdict.BAD_SIGNATURE;
    }

    @Override
    public List<AuthorizedKey> authorizedKeys() {
        return authorized.keys();
    }

    @Override
    public void allow(String base64Key, String comment) {
        authorized.allow(base64Key, comment);
    }

    @Override
    public boolean revoke(String base64Key) {
        return authorized.revoke(base64Key);
    }
}
