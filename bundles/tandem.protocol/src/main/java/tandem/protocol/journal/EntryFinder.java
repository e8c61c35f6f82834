package tandem.protocol.journal;

import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import tandem.api.journal.EntryTag;
import tandem.api.journal.EntryVisitor;
import tandem.protocol.command.CommandPayload;

/**
 * Finds the journal entries an operator chooses a restore target from: those around a moment (the {@code count}
 * entries at or before it and the {@code count} after it), or those holding a command of a name (a transaction
 * matches when one of its commands does), each listed with its sequence, its timestamp and what it holds. Fed by
 * {@code Journal.read} on a running node ({@code journal:find}) and by the offline inspector
 * ({@code bin/tandem inspect-journal DIR --around|--matching}), so both print the same lines.
 */
public final class EntryFinder implements EntryVisitor {

    /** The longest an argument is printed; longer ones end in {@code …(N bytes)}. */
    private static final int ARGUMENT_CHARS = 60;
    /** The most arguments of one command printed. */
    private static final int ARGUMENTS = 8;

    /** One entry found: its sequence, its timestamp and a line describing it. */
    public record Found(long sequence, long timestampNs, String description) {

        /** {@code <sequence>  <ISO-8601 instant, ns>  <description>}. */
        @Override
        public String toString() {
            return String.format(Locale.ROOT, "%d  %s  %s", sequence, instant(timestampNs), description);
        }
    }

    private final long aroundNs;
    private final String command;
    private final int count;
    private final ArrayDeque<Found> before = new ArrayDeque<>();
    private final List<Found> after = new ArrayList<>();
    private long scanned;

    private EntryFinder(long aroundNs, String command, int count) {
        if (count < 1) {
            throw new IllegalArgumentException("count must be 1 or more, not " + count);
        }
        this.aroundNs = aroundNs;
        this.command = command;
        this.count = count;
    }

    /** The {@code count} entries at or before {@code moment} and the {@code count} after it. */
    public static EntryFinder around(Instant moment, int count) {
        return new EntryFinder(moment.getEpochSecond() * 1_000_000_000L + moment.getNano(), null, count);
    }

    /** The first {@code count} entries holding a command named {@code name} (any case). */
    public static EntryFinder matching(String name, int count) {
        return new EntryFinder(0, name.toLowerCase(Locale.ROOT), count);
    }

    @Override
    public boolean entry(long sequence, long timestampNs, long keyHash, byte tag, byte[] payload) {
        scanned++;
        if (command != null) {
            if (tag == EntryTag.APP && holds(payload, command)) {
                after.add(new Found(sequence, timestampNs, describe(tag, payload)));
            }
            return after.size() < count;
        }
        Found f = new Found(sequence, timestampNs, describe(tag, payload));
        if (timestampNs <= aroundNs) {
            before.addLast(f);
            if (before.size() > count) {
                before.removeFirst();
            }
            return true;
        }
        after.add(f);
        return after.size() < count;
    }

    /** @return what was found, in sequence order */
    public List<Found> found() {
        List<Found> all = new ArrayList<>(before);
        all.addAll(after);
        return all;
    }

    /** @return how many entries were read */
    public long scanned() {
        return scanned;
    }

    /** @return the line {@link #lines} prints for an entry: {@code <sequence>  <ISO-8601 instant>  <what it holds>} */
    public static String describe(long sequence, long timestampNs, byte tag, byte[] payload) {
        return new Found(sequence, timestampNs, describe(tag, payload)).toString();
    }

    /** @return the lines to print: one per entry found, or one saying nothing was */
    public List<String> lines() {
        List<String> lines = new ArrayList<>();
        for (Found f : found()) {
            lines.add(f.toString());
        }
        if (lines.isEmpty()) {
            lines.add(command != null ? "no entry holds " + command.toUpperCase(Locale.ROOT) + " (" + scanned
                    + " entries read)" : "the journal holds no entry (" + scanned + " entries read)");
        }
        return lines;
    }

    /**
     * @return whether the App payload holds a command named {@code name} (any case), alone or in a transaction:
     *         what {@link #matching} and a restore's {@code --before} look for
     */
    public static boolean holds(byte[] payload, String name) {
        try {
            for (CommandPayload.Decoded d : CommandPayload.decodeInDatabases(payload)) {
                if (new String(d.args()[0], java.nio.charset.StandardCharsets.ISO_8859_1).equalsIgnoreCase(name)) {
                    return true;
                }
            }
            return false;
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    /** What an entry holds, for a person: its commands (with their database when not 0), or its kind. */
    static String describe(byte tag, byte[] payload) {
        switch (tag) {
            case EntryTag.TICK -> {
                return "tick (active expiry)";
            }
            case EntryTag.EPOCH_BUMP -> {
                return "epoch bump (a new primary's tenure)";
            }
            case EntryTag.PUBLISH -> {
                return "publish: " + commands(payload);
            }
            case EntryTag.APP -> {
                return commands(payload);
            }
            default -> {
                return String.format(Locale.ROOT, "tag 0x%02x, %d bytes", tag & 0xff, payload.length);
            }
        }
    }

    private static String commands(byte[] payload) {
        List<CommandPayload.Decoded> decoded;
        try {
            decoded = CommandPayload.decodeInDatabases(payload);
        } catch (IllegalArgumentException e) {
            return "undecodable payload, " + payload.length + " bytes: " + e.getMessage();
        }
        StringBuilder line = new StringBuilder();
        if (decoded.size() > 1) {
            line.append("MULTI ");
        }
        for (int i = 0; i < decoded.size(); i++) {
            CommandPayload.Decoded d = decoded.get(i);
            if (i > 0) {
                line.append(" ; ");
            }
            if (d.db() != 0) {
                line.append("[db ").append(d.db()).append("] ");
            }
            byte[][] args = d.args();
            for (int a = 0; a < args.length && a < ARGUMENTS; a++) {
                if (a > 0) {
                    line.append(' ');
                }
                line.append(a == 0 ? new String(args[0], java.nio.charset.StandardCharsets.ISO_8859_1)
                        .toUpperCase(Locale.ROOT) : printable(args[a]));
            }
            if (args.length > ARGUMENTS) {
                line.append(" …(").append(args.length - ARGUMENTS).append(" more)");
            }
        }
        if (decoded.size() > 1) {
            line.append(" EXEC");
        }
        return line.toString();
    }

    /** An argument as {@code redis-cli} quotes one: printable ASCII as is, anything else escaped, in quotes. */
    static String printable(byte[] arg) {
        StringBuilder s = new StringBuilder();
        boolean quote = arg.length == 0;
        for (int i = 0; i < arg.length && s.length() < ARGUMENT_CHARS; i++) {
            int c = arg[i] & 0xff;
            if (c == '"' || c == '\\') {
                s.append('\\').append((char) c);
                quote = true;
            } else if (c > 0x20 && c < 0x7f) {
                s.append((char) c);
            } else {
                s.append(c == ' ' ? " " : String.format(Locale.ROOT, "\\x%02x", c));
                quote = true;
            }
        }
        if (s.length() >= ARGUMENT_CHARS && arg.length > ARGUMENT_CHARS) {
            s.append("…(").append(arg.length).append(" bytes)");
        }
        return quote ? "\"" + s + "\"" : s.toString();
    }

    private static String instant(long timestampNs) {
        return Instant.ofEpochSecond(Math.floorDiv(timestampNs, 1_000_000_000L),
                Math.floorMod(timestampNs, 1_000_000_000L)).toString();
    }
}
