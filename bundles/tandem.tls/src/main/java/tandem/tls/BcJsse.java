package tandem.tls;

import java.security.Provider;

/**
 * BouncyCastle's JSSE provider, in a class of its own so that a node without the {@code bctls} bundle fails here
 * (a {@link NoClassDefFoundError} the component reports) and nowhere else. The provider instance is passed to the
 * JSSE factories explicitly, never registered with {@link java.security.Security}: registration is process-wide and
 * would outlive this bundle.
 */
final class BcJsse {

    private BcJsse() {
    }

    static Provider provider() {
        // its cryptography on BouncyCastle's provider too: the JDK's has no "DEFAULT" SecureRandom, which BCJSSE asks for
        return new org.bouncycastle.jsse.provider.BouncyCastleJsseProvider(
                new org.bouncycastle.jce.provider.BouncyCastleProvider());
    }
}
