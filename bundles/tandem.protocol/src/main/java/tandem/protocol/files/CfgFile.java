package tandem.protocol.files;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * A node's {@code etc/<pid>.cfg}, the file FileInstall turns into a configuration. A component that changes its own
 * configuration at an operator's request (a promotion, {@code REPLICAOF}) writes the new value there too: the file
 * is the node's configuration, and FileInstall would otherwise bring the older value back at the next start.
 */
public final class CfgFile {

    private CfgFile() {
    }

    /**
     * Sets {@code key = value} in {@code cfg}: every line that assigns {@code key} is replaced, or the line is added;
     * comments and other lines stay. Replaced whole and durably ({@link DurableFiles#writeAtomically}), with the
     * old file's permissions: after a crash the file is the old one or the new one, and once this returns the
     * new one survives a crash. A missing file is left missing (the node runs without one).
     *
     * @return false when there is no such file
     */
    public static boolean put(Path cfg, String key, String value) throws IOException {
        if (!Files.exists(cfg)) {
            return false;
        }
        List<String> lines = new ArrayList<>(Files.readAllLines(cfg, StandardCharsets.ISO_8859_1));
        boolean replaced = false;
        String pattern = "\\s*" + Pattern.quote(key) + "\\s*[=:].*";
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).matches(pattern)) {
                lines.set(i, key + " = " + value);
                replaced = true;
            }
        }
        if (!replaced) {
            lines.add(key + " = " + value);
        }
        StringBuilder text = new StringBuilder();
        lines.forEach(line -> text.append(line).append('\n'));
        DurableFiles.writeAtomically(cfg, text.toString().getBytes(StandardCharsets.ISO_8859_1),
                DurableFiles.permissions(cfg));
        return true;
    }
}
