package tandem.protocol.net;

import javax.net.ssl.SSLException;

/**
 * Why a TLS handshake failed, in one line for the log: the innermost {@link SSLException}'s message ("Empty client
 * certificate chain", "PKIX path building failed …", "Received fatal alert: certificate_expired"), without the
 * transport's wrappers around it.
 */
public final class TlsFailures {

    private TlsFailures() {
    }

    /** @return whether {@code failure} is a TLS failure, or wraps one */
    public static boolean isTls(Throwable failure) {
        int depth = 0;
        for (Throwable t = failure; t != null && depth < 16; t = t.getCause(), depth++) {
            if (t instanceof SSLException) {
                return true;
            }
        }
        return false;
    }

    /** @return the reason, or the failure's own message when no {@link SSLException} is among its causes */
    public static String reason(Throwable failure) {
        String reason = String.valueOf(failure.getMessage());
        int depth = 0;
        for (Throwable t = failure; t != null && depth < 16; t = t.getCause(), depth++) {
            if (t instanceof SSLException && t.getMessage() != null) {
                reason = t.getMessage();
            }
        }
        return reason.length() > 300 ? reason.substring(0, 300) + "…" : reason;
    }
}
