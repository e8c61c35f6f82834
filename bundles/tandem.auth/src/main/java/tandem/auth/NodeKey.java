package tandem.auth;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.Set;

import org.bouncycastle.math.ec.rfc8032.Ed25519;

import tandem.protocol.files.DurableFiles;

/**
 * A node's Ed25519 key pair: the private key is a file holding exactly the raw 32-byte seed (RFC 8032), readable by
 * its owner only; next to it, {@code <file>.pub} holds the line that authorizes the node on a primary.
 */
final class NodeKey {

    static final int SEED_BYTES = Ed25519.SECRET_KEY_SIZE;
    static final int PUBLIC_KEY_BYTES = Ed25519.PUBLIC_KEY_SIZE;
    static final int SIGNATURE_BYTES = Ed25519.SIGNATURE_SIZE;
    static final String PERMISSION = "replication";

    private static final SecureRandom RANDOM = new SecureRandom();

    private final Path file;
    private final byte[] seed;
    private final byte[] publicKey;
    private final String line;

    private NodeKey(Path file, byte[] seed, String comment) {
        this.file = file;
        this.seed = seed;
        this.publicKey = new byte[PUBLIC_KEY_BYTES];
        Ed25519.generatePublicKey(seed, 0, publicKey, 0);
        this.line = line(publicKey, comment);
    }

    /** A key pair in memory only (tests). */
    static NodeKey of(byte[] seed, String comment) {
        if (seed.length != SEED_BYTES) {
            throw new IllegalArgumentException("an Ed25519 seed is " + SEED_BYTES + " bytes, not " + seed.length);
        }
        return new NodeKey(null, seed.clone(), comment);
    }

    /**
     * Reads the key in {@code file}, or creates it (and its {@code .pub}) when there is none. An existing key of the
     * wrong size, or readable or writable by group or others, is refused and left as it is. A missing or stale
     * {@code .pub} is rewritten.
     *
     * @throws IllegalStateException naming the file, when it is refused or cannot be read or written
     */
    static NodeKey loadOrCreate(Path file, String comment) {
        try {
            byte[] seed = read(file);
            NodeKey key;
            if (seed == null) {
                key = create(file, comment);
            } else {
                key = new NodeKey(file, seed, comment);
                key.repairPublicFile();
            }
            return key;
        } catch (IOException e) {
            throw new IllegalStateException("replication key " + file + ": " + e, e);
        }
    }

    /**
     * Writes a new key pair to {@code file} and {@code file.pub}, for another node.
     *
     * @throws IllegalStateException when either file exists already (nothing is overwritten) or cannot be written
     */
    static NodeKey generate(Path file, String comment) {
        Path pub = publicFile(file);
        for (Path p : new Path[] {file, pub}) {
            if (Files.exists(p, LinkOption.NOFOLLOW_LINKS)) {
                throw new IllegalStateException(p + " exists already; it is not overwritten");
            }
        }
        try {
            return create(file, comment);
        } catch (IOException e) {
            throw new IllegalStateException("replication key " + file + ": " + e, e);
        }
    }

    static Path publicFile(Path file) {
        return file.resolveSibling(file.getFileName() + ".pub");
    }

    static String line(byte[] publicKey, String comment) {
        String c = comment == null ? "" : comment.strip().replaceAll("\\s+", " ");
        return PERMISSION + " " + Base64.getEncoder().encodeToString(publicKey) + (c.isEmpty() ? "" : " " + c);
    }

    Path file() {
        return file;
    }

    byte[] publicKey() {
        return publicKey.clone();
    }

    String base64PublicKey() {
        return Base64.getEncoder().encodeToString(publicKey);
    }

    /** @return the 64-byte pure Ed25519 signature (RFC 8032) of {@code message} */
    byte[] sign(byte[] message) {
        byte[] signature = new byte[SIGNATURE_BYTES];
        Ed25519.sign(seed, 0, message, 0, message.length, signature, 0);
        return signature;
    }

    /** {@code replication <base64 public key> <comment>} */
    String line() {
        return line;
    }

    /** @return the seed in {@code file}, or null when there is no such file */
    private static byte[] read(Path file) throws IOException {
        if (!Files.exists(file)) {
            if (Files.exists(file, LinkOption.NOFOLLOW_LINKS)) {
                throw new IllegalStateException("replication key " + file + " is a dangling link; it is not "
                        + "replaced, fix or remove it");
            }
            return null;
        }
        if (!Files.isRegularFile(file)) {
            throw new IllegalStateException("replication key " + file + " is not a regular file");
        }
        Set<PosixFilePermission> permissions = DurableFiles.permissions(file);
        if (permissions != null) {
            Set<PosixFilePermission> others = Set.of(PosixFilePermission.GROUP_READ,
                    PosixFilePermission.GROUP_WRITE, PosixFilePermission.GROUP_EXECUTE,
                    PosixFilePermission.OTHERS_READ, PosixFilePermission.OTHERS_WRITE,
                    PosixFilePermission.OTHERS_EXECUTE);
            if (permissions.stream().anyMatch(others::contains)) {
                throw new IllegalStateException("replication key " + file + " has mode "
                        + PosixFilePermissions.toString(permissions) + ": a private key must be readable by its "
                        + "owner only (chmod 600 " + file + "); refused, the file is left as it is");
            }
        }
        long size = Files.size(file);
        if (size != SEED_BYTES) {
            throw wrongSize(file, size);
        }
        byte[] seed;
        try {
            seed = Files.readAllBytes(file);
        } catch (NoSuchFileException e) {
            return null;
        }
        if (seed.length != SEED_BYTES) {
            throw wrongSize(file, seed.length);
        }
        return seed;
    }

    private static IllegalStateException wrongSize(Path file, long size) {
        return new IllegalStateException("replication key " + file + " holds " + size + " bytes; it must hold "
                + "exactly the raw " + SEED_BYTES + "-byte Ed25519 seed; refused, the file is left as it is");
    }

    private static NodeKey create(Path file, String comment) throws IOException {
        byte[] seed = new byte[SEED_BYTES];
        byte[] pk = new byte[PUBLIC_KEY_BYTES];
        do {
            Ed25519.generatePrivateKey(RANDOM, seed);
            Ed25519.generatePublicKey(seed, 0, pk, 0);
            // a key whose base64 starts with "/" is drawn again (1 in 64): the authorizing line is pasted into the
            // Gogo shell (auth:allow), which reads a word starting with "//" as a comment and drops the rest
        } while ((pk[0] & 0xFC) == 0xFC);
        DurableFiles.writeAtomically(file, seed, KeyFilePermissions.OWNER_ONLY);
        NodeKey key = new NodeKey(file, seed, comment);
        key.writePublicFile();
        return key;
    }

    /** Rewrites {@code <file>.pub} when it is missing or does not hold this key. */
    private void repairPublicFile() throws IOException {
        Path pub = publicFile(file);
        String existing;
        try {
            existing = new String(Files.readAllBytes(pub), StandardCharsets.UTF_8);
        } catch (NoSuchFileException e) {
            existing = null;
        }
        String[] tokens = existing == null ? new String[0] : existing.strip().split("\\s+", 3);
        if (tokens.length < 2 || !tokens[0].equals(PERMISSION) || !tokens[1].equals(base64PublicKey())) {
            writePublicFile();
        }
    }

    private void writePublicFile() throws IOException {
        DurableFiles.writeAtomically(publicFile(file), (line + "\n").getBytes(StandardCharsets.UTF_8),
                KeyFilePermissions.PUBLIC);
    }

    @Override
    public String toString() {
        return "NodeKey[" + file + ", " + base64PublicKey() + "]";
    }
}
