package tandem.testsupport;

import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.concurrent.atomic.AtomicLong;

import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.X509CertificateHolder;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.openssl.jcajce.JcaPKCS8Generator;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * A certificate authority for tests: an EC P-256 CA that issues node and client certificates as PEM files, the
 * form {@code tandem.tls}, {@code redis-cli --tls} and OpenSSL read. Certificates name {@code 127.0.0.1} and
 * {@code localhost} so that clients which check host names accept them.
 */
public final class TestPki {

    private static final AtomicLong SERIAL = new AtomicLong(System.currentTimeMillis());

    /** A certificate and its key as files. */
    public record Issued(Path cert, Path key) {
    }

    private final Path dir;
    private final String name;
    private final KeyPair caKeys;
    private final X509CertificateHolder caCert;
    private final Path caFile;

    private TestPki(Path dir, String name) {
        try {
            Files.createDirectories(dir);
            this.dir = dir;
            this.name = name;
            this.caKeys = keys();
            Instant now = Instant.now();
            JcaX509v3CertificateBuilder b = new JcaX509v3CertificateBuilder(new X500Name("CN=" + name),
                    BigInteger.valueOf(SERIAL.incrementAndGet()), Date.from(now.minus(Duration.ofHours(1))),
                    Date.from(now.plus(Duration.ofDays(30))), new X500Name("CN=" + name), caKeys.getPublic());
            b.addExtension(Extension.basicConstraints, true, new BasicConstraints(true));
            b.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign));
            this.caCert = b.build(new JcaContentSignerBuilder("SHA256withECDSA").build(caKeys.getPrivate()));
            this.caFile = dir.resolve(name + ".crt");
            write(caFile, pem(caCert));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (GeneralSecurityException | org.bouncycastle.operator.OperatorCreationException e) {
            throw new IllegalStateException(e);
        }
    }

    /** @return a new CA whose certificate is {@code <dir>/<name>.crt} */
    public static TestPki create(Path dir, String name) {
        return new TestPki(dir, name);
    }

    /** @return the CA's certificate (PEM) */
    public Path caCert() {
        return caFile;
    }

    /** @return a certificate for {@code cn}, valid from an hour ago for a day */
    public Issued issue(String cn) {
        Instant now = Instant.now();
        return issue(cn, now.minus(Duration.ofHours(1)), now.plus(Duration.ofDays(1)));
    }

    /** @return a certificate for {@code cn} that expired an hour ago */
    public Issued expired(String cn) {
        Instant now = Instant.now();
        return issue(cn, now.minus(Duration.ofDays(2)), now.minus(Duration.ofHours(1)));
    }

    /**
     * @return {@code <dir>/<cn>.crt} and {@code <dir>/<cn>.key} (PKCS#8), a certificate valid between the two
     *         instants with {@code 127.0.0.1} and {@code localhost} as subject alternative names, fit for a server
     *         and a client
     */
    public Issued issue(String cn, Instant notBefore, Instant notAfter) {
        try {
            KeyPair keys = keys();
            JcaX509v3CertificateBuilder b = new JcaX509v3CertificateBuilder(new X500Name("CN=" + name),
                    BigInteger.valueOf(SERIAL.incrementAndGet()), Date.from(notBefore), Date.from(notAfter),
                    new X500Name("CN=" + cn), keys.getPublic());
            b.addExtension(Extension.subjectAlternativeName, false, new GeneralNames(new GeneralName[] {
                    new GeneralName(GeneralName.iPAddress, "127.0.0.1"),
                    new GeneralName(GeneralName.dNSName, "localhost")}));
            b.addExtension(Extension.keyUsage, true,
                    new KeyUsage(KeyUsage.digitalSignature | KeyUsage.keyAgreement));
            X509CertificateHolder cert = b.build(new JcaContentSignerBuilder("SHA256withECDSA")
                    .build(caKeys.getPrivate()));
            Path certFile = dir.resolve(cn + ".crt");
            Path keyFile = dir.resolve(cn + ".key");
            write(certFile, pem(cert));
            write(keyFile, pem(new JcaPKCS8Generator(keys.getPrivate(), null).generate()));
            return new Issued(certFile, keyFile);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (GeneralSecurityException | org.bouncycastle.operator.OperatorCreationException e) {
            throw new IllegalStateException(e);
        }
    }

    private static KeyPair keys() throws GeneralSecurityException {
        KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
        g.initialize(new ECGenParameterSpec("secp256r1"));
        return g.generateKeyPair();
    }

    private static String pem(Object o) throws IOException {
        StringWriter out = new StringWriter();
        try (JcaPEMWriter w = new JcaPEMWriter(out)) {
            w.writeObject(o);
        }
        return out.toString();
    }

    /** Written beside, then moved over the old file, so that a reloading node never reads half a file. */
    private static void write(Path file, String text) throws IOException {
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        Files.writeString(tmp, text, StandardCharsets.US_ASCII);
        Files.move(tmp, file, java.nio.file.StandardCopyOption.REPLACE_EXISTING,
                java.nio.file.StandardCopyOption.ATOMIC_MOVE);
    }
}
