package tandem.shell;

import java.time.Instant;
import java.util.Locale;
import java.util.function.Consumer;

import org.apache.felix.service.command.CommandSession;
import org.apache.felix.service.command.Descriptor;
import org.apache.felix.service.command.Parameter;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;

import tandem.api.journal.ArchiveStatus;
import tandem.api.journal.Journal;
import tandem.api.journal.JournalReader;
import tandem.api.journal.JournalStatus;
import tandem.api.store.Keyspace;

/** {@code journal:*}: the node's journal. */
@Component(service = JournalCommands.class, immediate = true, property = {
    "osgi.command.scope=journal",
    "osgi.command.function=info",
    "osgi.command.function=verify",
    "osgi.command.function=rotate",
    "osgi.command.function=purge",
    "osgi.command.function=find"
})
public final class JournalCommands {

    private static final String NOT_ACTIVE = "journal: not active (is tandem.journal started? see scr:list)";

    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC)
    private volatile Journal journal;

    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC)
    private volatile Keyspace keyspace;

    @Descriptor("shows the journal: directory, sequences, replication offset, segments, chain, state, archive")
    public String info() {
        Journal j = journal;
        if (j == null) {
            return NOT_ACTIVE;
        }
        JournalStatus s = j.status();
        return String.format(Locale.ROOT, "directory:          %s%n"
                + "state:              %s%n"
                + "first sequence:     %d%n"
                + "last sequence:      %d%n"
                + "durable sequence:   %d%n"
                + "replication offset: %d%n"
                + "segments:           %d (%d bytes)%n"
                + "chain:              %s",
                s.directory(), s.stoppedReason() == null ? "running" : "STOPPED: " + s.stoppedReason(),
                s.firstSequence(), s.lastSequence(), s.durableSequence(), s.replicationOffset(), s.segments(),
                s.bytes(), s.chainHex()) + archive(j.archiveStatus());
    }

    /** The journal archive's lines of {@link #info}. */
    static String archive(ArchiveStatus a) {
        if (a == null) {
            return String.format(Locale.ROOT, "%narchive:            off (archive.directory is not set)");
        }
        StringBuilder sb = new StringBuilder(String.format(Locale.ROOT, "%narchive:            %s (%s)%n"
                + "archived up to:     %d%n"
                + "archive lag:        %d entries, %d sealed segments (%d bytes) waiting%n"
                + "archived segments:  %d, last %s",
                a.directory(), a.failing() ? "FAILING" : "ok", a.archivedSequence(), a.pendingEntries(),
                a.pendingSegments(), a.pendingBytes(), a.archivedSegments(),
                a.lastArchived() == null ? "none yet" : a.lastArchived() + " at "
                        + Instant.ofEpochMilli(a.lastArchivedAtMillis())));
        if (a.lastError() != null) {
            sb.append(String.format(Locale.ROOT, "%narchive failures:   %d, last at %s on %s: %s", a.failures(),
                    Instant.ofEpochMilli(a.lastErrorAtMillis()), a.lastFailed(), a.lastError()));
        }
        return sb.toString();
    }

    @Descriptor("re-reads every segment: headers, entry CRCs, sequence continuity and the chain across rotations")
    public String verify(CommandSession session) {
        Journal j = journal;
        if (j == null) {
            return NOT_ACTIVE;
        }
        @SuppressWarnings("unchecked")
        Consumer<String> report = session == null ? null
                : (Consumer<String>) session.get(tandem.shell.admin.AdminFrames.PROGRESS_ATTRIBUTE);
        String broken = report == null ? j.verify()
                : j.verify((bytes, total) -> report.accept(JournalReader.Progress.describe(bytes, total)));
        if (broken != null) {
            throw new IllegalStateException("journal is broken: " + broken);
        }
        return "journal OK up to sequence " + j.status().durableSequence();
    }

    @Descriptor("closes the live segment and starts a new one")
    public String rotate() {
        Journal j = journal;
        if (j == null) {
            return NOT_ACTIVE;
        }
        j.rotate();
        return "rotated; segments: " + j.status().segments();
    }

    @Descriptor("lists the journal's entries around a moment, or those holding a command, with their sequences and "
            + "timestamps: to choose the target of a restore")
    public String find(
            @Parameter(names = {"-a", "--around"}, absentValue = "")
            @Descriptor("an ISO-8601 instant, e.g. 2026-12-05T10:03:00Z: the entries before and after it") String around,
            @Parameter(names = {"-m", "--matching"}, absentValue = "")
            @Descriptor("a command's name, e.g. FLUSHALL: the entries holding it (alone or in a transaction)")
            String matching,
            @Parameter(names = {"-c", "--count"}, absentValue = "10")
            @Descriptor("how many entries on each side of the moment, or at most") int count) {
        Journal j = journal;
        if (j == null) {
            return NOT_ACTIVE;
        }
        if (around.isEmpty() == matching.isEmpty()) {
            throw new IllegalArgumentException("give one of --around INSTANT and --matching COMMAND");
        }
        if (count < 1) {
            throw new IllegalArgumentException("--count must be 1 or more, not " + count);
        }
        tandem.protocol.journal.EntryFinder finder;
        if (around.isEmpty()) {
            finder = tandem.protocol.journal.EntryFinder.matching(matching, count);
        } else {
            try {
                finder = tandem.protocol.journal.EntryFinder.around(java.time.Instant.parse(around), count);
            } catch (java.time.format.DateTimeParseException e) {
                throw new IllegalArgumentException("--around: not an ISO-8601 instant (e.g. 2026-12-05T10:03:00Z): "
                        + around);
            }
        }
        j.read(0, finder);
        return String.join(System.lineSeparator(), finder.lines());
    }

    @Descriptor("deletes archived segments that the store has flushed, within the retention configuration")
    public String purge() {
        Journal j = journal;
        Keyspace k = keyspace;
        if (j == null) {
            return NOT_ACTIVE;
        }
        if (k == null) {
            return "journal: not purged: the store is not active, so nothing is known to be flushed";
        }
        long flushed = k.status().flushedSequence();
        int removed = j.purge(flushed);
        return "purged " + removed + " segment(s) at or below sequence " + flushed;
    }
}
