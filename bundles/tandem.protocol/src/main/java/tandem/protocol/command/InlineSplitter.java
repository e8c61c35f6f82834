package tandem.protocol.command;

import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.List;

/**
 * Splits an inline request line into arguments with the rules of Redis' {@code sdssplitargs}: blanks separate
 * arguments; "double quotes" understand {@code \n \r \t \b \a \\ \"} and {@code \xHH}; 'single quotes' understand
 * {@code \'}; a closing quote must be followed by a blank or the end of the line.
 */
public final class InlineSplitter {

    private InlineSplitter() {
    }

    /** @return the arguments (none for a blank line), or null when the quotes do not balance */
    public static byte[][] split(byte[] line) {
        List<byte[]> args = new ArrayList<>();
        int p = 0;
        int n = 0;
        while (n < line.length && line[n] != 0) {
            n++; // Redis reads the line as a C string: a NUL ends it
        }
        while (true) {
            while (p < n && isSpace(line[p])) {
                p++;
            }
            if (p == n) {
                return args.toArray(new byte[0][]);
            }
            ByteArrayOutputStream current = new ByteArrayOutputStream();
            boolean inDouble = false;
            boolean inSingle = false;
            boolean done = false;
            while (!done) {
                if (inDouble) {
                    if (p == n) {
                        return null;
                    }
                    byte c = line[p];
                    if (c == '\\' && p + 3 < n && line[p + 1] == 'x' && isHex(line[p + 2]) && isHex(line[p + 3])) {
                        current.write(hex(line[p + 2]) * 16 + hex(line[p + 3]));
                        p += 3;
                    } else if (c == '\\' && p + 1 < n) {
                        p++;
                        current.write(switch (line[p]) {
                            case 'n' -> '\n';
                            case 'r' -> '\r';
                            case 't' -> '\t';
                            case 'b' -> '\b';
                            case 'a' -> 7;
                            default -> line[p];
                        });
                    } else if (c == '"') {
                        if (p + 1 < n && !isSpace(line[p + 1])) {
                            return null; // closing quote must be followed by a space or nothing
                        }
                        done = true;
                    } else {
                        current.write(c);
                    }
                } else if (inSingle) {
                    if (p == n) {
                        return null;
                    }
                    byte c = line[p];
                    if (c == '\\' && p + 1 < n && line[p + 1] == '\'') {
                        p++;
                        current.write('\'');
                    } else if (c == '\'') {
                        if (p + 1 < n && !isSpace(line[p + 1])) {
                            return null;
                        }
                        done = true;
                    } else {
                        current.write(c);
                    }
                } else {
                    if (p == n) {
                        break;
                    }
                    byte c = line[p];
                    switch (c) {
                        case ' ', '\n', '\r', '\t' -> done = true;
                        case '"' -> inDouble = true;
                        case '\'' -> inSingle = true;
                        default -> current.write(c);
                    }
                }
                if (p < n) {
                    p++;
                }
            }
            args.add(current.toByteArray());
        }
    }

    private static boolean isSpace(byte c) {
        return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == 0x0B || c == '\f';
    }

    private static boolean isHex(byte c) {
        return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
    }

    private static int hex(byte c) {
        if (c >= '0' && c <= '9') {
            return c - '0';
        }
        return (c | 0x20) - 'a' + 10;
    }
}
