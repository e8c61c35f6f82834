package tandem.api.tls;

/**
 * What the TLS component has loaded.
 *
 * @param provider    the JSSE provider the handshakes run on ({@code SunJSSE} or {@code BCJSSE})
 * @param subject     the server certificate's subject, or empty when nothing is loaded
 * @param notAfter    the server certificate's expiry in epoch milliseconds, or 0
 * @param fingerprint the server certificate's SHA-256 fingerprint in hex, or empty
 * @param cas         how many CA certificates are trusted
 * @param loadedAt    when the current material was loaded, epoch milliseconds, or 0
 * @param reloads     how many times material was loaded since the component started
 * @param lastError   why the last load failed, or empty when it did not
 */
public record TlsStatus(String provider, String subject, long notAfter, String fingerprint, int cas, long loadedAt,
        long reloads, String lastError) {
}
