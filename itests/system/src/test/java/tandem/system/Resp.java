package tandem.system;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/** Reads a run of RESP arrays of bulk strings (commands as a client sends them), strictly: for audit files. */
final class Resp {

    private Resp() {
    }

    /** @return each array from {@code from} to the end, its bulk strings as ISO-8859-1 text */
    static List<List<String>> commands(byte[] b, int from) {
        List<List<String>> out = new ArrayList<>();
        int[] p = {from};
        while (p[0] < b.length) {
            expect(b, p, '*');
            int n = (int) number(b, p);
            List<String> command = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                expect(b, p, '$');
                int len = (int) number(b, p);
                command.add(new String(b, p[0], len, StandardCharsets.ISO_8859_1));
                p[0] += len;
                expect(b, p, '\r');
                expect(b, p, '\n');
            }
            out.add(command);
        }
        return out;
    }

    private static void expect(byte[] b, int[] p, char c) {
        if (p[0] >= b.length || b[p[0]] != c) {
            throw new AssertionError("RESP: expected '" + c + "' at byte " + p[0]);
        }
        p[0]++;
    }

    private static long number(byte[] b, int[] p) {
        long v = 0;
        while (b[p[0]] != '\r') {
            v = v * 10 + (b[p[0]++] - '0');
        }
        expect(b, p, '\r');
        expect(b, p, '\n');
        return v;
    }
}
