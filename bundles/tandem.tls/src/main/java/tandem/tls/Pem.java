package tandem.tls;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.cert.X509CertificateHolder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.openssl.PEMDecryptorProvider;
import org.bouncycastle.openssl.PEMEncryptedKeyPair;
import org.bouncycastle.openssl.PEMKeyPair;
import org.bouncycastle.openssl.PEMParser;
import org.bouncycastle.openssl.jcajce.JcaPEMKeyConverter;
import org.bouncycastle.openssl.jcajce.JceOpenSSLPKCS8DecryptorProviderBuilder;
import org.bouncycastle.openssl.jcajce.JcePEMDecryptorProviderBuilder;
import org.bouncycastle.operator.InputDecryptorProvider;
import org.bouncycastle.pkcs.PKCS8EncryptedPrivateKeyInfo;
import org.bouncycastle.pkcs.PKCSException;

/**
 * PEM files as OpenSSL writes them, read with BouncyCastle: certificates, and a private key in any of OpenSSL's
 * forms (PKCS#8, PKCS#1 RSA, SEC1 EC, encrypted PKCS#8 or legacy encrypted PEM with a password). The JDK reads
 * none of the key forms from PEM.
 */
final class Pem {

    /** The most a PEM file may be: a chain of a few certificates is a few kB; this bounds a mistaken path. */
    static final long MAX_FILE = 1 << 20;

    private Pem() {
    }

    /** @return the certificates in {@code file}, in file order; at least one */
    static List<X509Certificate> certificates(Path file) throws IOException, GeneralSecurityException {
        List<X509Certificate> certs = new ArrayList<>();
        JcaX509CertificateConverter converter = new JcaX509CertificateConverter();
        try (PEMParser parser = new PEMParser(reader(file))) {
            for (Object o = parser.readObject(); o != null; o = parser.readObject()) {
                if (o instanceof X509CertificateHolder holder) {
                    certs.add(converter.getCertificate(holder));
                }
            }
        }
        if (certs.isEmpty()) {
            throw new IOException(file + " holds no PEM certificate");
        }
        return certs;
    }

    /** @return the certificates of every {@code *.pem}, {@code *.crt} and {@code *.cer} file in {@code dir} */
    static List<X509Certificate> directory(Path dir) throws IOException, GeneralSecurityException {
        List<Path> files;
        try (Stream<Path> s = Files.list(dir)) {
            files = s.filter(f -> f.getFileName().toString().matches("(?i).*\\.(pem|crt|cer)$")).sorted().toList();
        }
        List<X509Certificate> certs = new ArrayList<>();
        for (Path f : files) {
            certs.addAll(certificates(f));
        }
        if (certs.isEmpty()) {
            throw new IOException(dir + " holds no .pem, .crt or .cer certificate");
        }
        return certs;
    }

    /**
     * @param password the key's password, or empty when it is not encrypted
     * @return the one private key in {@code file}
     */
    static PrivateKey privateKey(Path file, String password) throws IOException {
        JcaPEMKeyConverter converter = new JcaPEMKeyConverter();
        try (PEMParser parser = new PEMParser(reader(file))) {
            for (Object o = parser.readObject(); o != null; o = parser.readObject()) {
                if (o instanceof PEMKeyPair pair) {
                    return converter.getKeyPair(pair).getPrivate();
                } else if (o instanceof PrivateKeyInfo info) {
                    return converter.getPrivateKey(info);
                } else if (o instanceof PEMEncryptedKeyPair encrypted) {
                    PEMDecryptorProvider decryptor = new JcePEMDecryptorProviderBuilder()
                            .build(password(file, password));
                    return converter.getKeyPair(encrypted.decryptKeyPair(decryptor)).getPrivate();
                } else if (o instanceof PKCS8EncryptedPrivateKeyInfo encrypted) {
                    try {
                        InputDecryptorProvider decryptor = new JceOpenSSLPKCS8DecryptorProviderBuilder()
                                .build(password(file, password));
                        return converter.getPrivateKey(encrypted.decryptPrivateKeyInfo(decryptor));
                    } catch (PKCSException | org.bouncycastle.operator.OperatorCreationException e) {
                        throw new IOException(file + ": the key does not decrypt with the configured password", e);
                    }
                }
            }
        }
        throw new IOException(file + " holds no PEM private key");
    }

    private static char[] password(Path file, String password) throws IOException {
        if (password == null || password.isEmpty()) {
            throw new IOException(file + " is encrypted: set its password (key.file.pass)");
        }
        return password.toCharArray();
    }

    private static Reader reader(Path file) throws IOException {
        long size = Files.size(file);
        if (size > MAX_FILE) {
            throw new IOException(file + " is " + size + " bytes, more than a PEM file may be (" + MAX_FILE + ")");
        }
        return Files.newBufferedReader(file, StandardCharsets.US_ASCII);
    }
}
