package tandem.system;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/** Raw RESP connections for the tests that compare bytes with Redis: connect, send, read whole replies. */
final class RespSockets {

    private RespSockets() {
    }

    /** A connection to 127.0.0.1:{@code port} that waits up to 10 s for a reply. */
    static Socket connect(int port) throws IOException {
        Socket s = new Socket();
        s.connect(new InetSocketAddress("127.0.0.1", port), 2000);
        s.setSoTimeout(10_000);
        return s;
    }

    /** Sends {@code request} (nothing when empty) and reads {@code replies} values, their bytes as they came. */
    static String exchange(Socket s, String request, int replies) throws IOException {
        if (!request.isEmpty()) {
            s.getOutputStream().write(request.getBytes(StandardCharsets.ISO_8859_1));
        }
        StringBuilder read = new StringBuilder();
        for (int i = 0; i < replies; i++) {
            read.append(PubSubSystemTest.readValue(s.getInputStream()));
        }
        return read.toString();
    }
}
