package tandem.node;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import tandem.api.fencing.SplitBrainAudit;
import tandem.api.journal.EntryTag;
import tandem.api.journal.EntryVisitor;
import tandem.api.journal.Journal;
import tandem.api.store.Keyspace;
import tandem.protocol.command.CommandPayload;

/**
 * What a demoted primary gives up: the journal's App entries after the highest sequence a replica held, newest kept
 * within the ring's bounds, handed to the audit after the install; nothing when the history was continued.
 */
@Timeout(10)
class SplitBrainTailTest {

    /** Sequences 1..6: SET a..c, a Tick at 4, SET e, then a transaction at 6. */
    private static final List<Object[]> ENTRIES = List.of(
            entry(1, EntryTag.APP, CommandPayload.encode(args("SET", "a", "1"))),
            entry(2, EntryTag.APP, CommandPayload.encode(args("SET", "b", "2"))),
            entry(3, EntryTag.APP, CommandPayload.encode(args("SET", "c", "3"))),
            entry(4, EntryTag.TICK, new byte[0]),
            entry(5, EntryTag.APP, CommandPayload.encode(args("SET", "e", "5"))),
            entry(6, EntryTag.APP, CommandPayload.encodeTransaction(List.<byte[][]>of(args("INCR", "n")))));

    private static Object[] entry(long sequence, byte tag, byte[] payload) {
        return new Object[] {sequence, tag, payload};
    }

    private static byte[][] args(String... a) {
        byte[][] out = new byte[a.length][];
        for (int i = 0; i < a.length; i++) {
            out[i] = a[i].getBytes(StandardCharsets.UTF_8);
        }
        return out;
    }

    private static Journal journal() {
        return (Journal) Proxy.newProxyInstance(Journal.class.getClassLoader(), new Class<?>[] {Journal.class},
                (proxy, method, a) -> switch (method.getName()) {
                    case "lastSequence" -> 6L;
                    case "read" -> {
                        long after = (Long) a[0];
                        EntryVisitor v = (EntryVisitor) a[1];
                        for (Object[] e : ENTRIES) {
                            if ((Long) e[0] > after && !v.entry((Long) e[0], 1000L * (Long) e[0], 0, (Byte) e[1],
                                    (byte[]) e[2])) {
                                break;
                            }
                        }
                        yield null;
                    }
                    default -> throw new UnsupportedOperationException(method.getName());
                });
    }

    private static Keyspace keyspace(long epoch) {
        return (Keyspace) Proxy.newProxyInstance(Keyspace.class.getClassLoader(), new Class<?>[] {Keyspace.class},
                (proxy, method, a) -> {
                    if (method.getName().equals("epoch")) {
                        return epoch;
                    }
                    throw new UnsupportedOperationException(method.getName());
                });
    }

    /** An audit with a ring of two writes that records what it is handed. */
    private static final class Recorder implements SplitBrainAudit {
        final List<Discard> discards = new ArrayList<>();

        @Override
        public int maxEntries() {
            return 2;
        }

        @Override
        public long maxBytes() {
            return 1 << 20;
        }

        @Override
        public void discarded(Discard discard) {
            discards.add(discard);
        }

        @Override
        public Counters counters() {
            throw new UnsupportedOperationException();
        }
    }

    private final SplitBrainTail tail = new SplitBrainTail();
    private final Recorder audit = new Recorder();

    {
        tail.audit(audit);
    }

    @Test
    void aNodeThatWasNotDemotedHasNothingToDiscard() {
        assertThat(tail.capture(journal(), keyspace(0))).isNull();
    }

    @Test
    void theWritesAfterWhatAReplicaHeldAreRecordedNewestFirstWithinTheRingWithTheEpochs() {
        tail.demoted(1, 6, "127.0.0.1:7001");
        SplitBrainTail.Captured c = tail.capture(journal(), keyspace(0));
        tail.record(c, keyspace(1), "127.0.0.1:7102", "journal");

        assertThat(audit.discards).hasSize(1);
        SplitBrainAudit.Discard d = audit.discards.get(0);
        assertThat(d.oldPrimary()).isEqualTo("127.0.0.1:7001");
        assertThat(d.newPrimary()).isEqualTo("127.0.0.1:7102");
        assertThat(d.protocol()).isEqualTo("journal");
        assertThat(d.epochOld()).isZero();
        assertThat(d.epochNew()).isEqualTo(1);
        assertThat(d.heldSequence()).isEqualTo(1);
        assertThat(d.lastSequence()).isEqualTo(6);
        // 2, 3, 5, 6 are writes after what was held (4 is a Tick); the ring keeps the newest two
        assertThat(d.writes()).extracting(SplitBrainAudit.Write::sequence).containsExactly(5L, 6L);
        assertThat(d.writes().get(0).transaction()).isFalse();
        assertThat(new String(d.writes().get(0).commands().get(0)[1], StandardCharsets.UTF_8)).isEqualTo("e");
        assertThat(d.writes().get(1).transaction()).as("a transaction of one command").isTrue();
        assertThat(d.writes().get(1).timestampNs()).isEqualTo(6000);
        assertThat(d.evictedWrites()).isEqualTo(2);
        assertThat(d.evictedBytes()).isEqualTo(((byte[]) ENTRIES.get(1)[2]).length
                + ((byte[]) ENTRIES.get(2)[2]).length);

        assertThat(tail.capture(journal(), keyspace(1))).as("recorded once").isNull();
    }

    @Test
    void withoutAnAuditTheJournalIsNotReadAndALateAuditIsHandedNothing() {
        tail.audit(null);
        tail.demoted(1, 6, "127.0.0.1:7001");
        SplitBrainTail.Captured c = tail.capture(journal(), keyspace(0));
        assertThat(c).isNotNull();
        assertThat(c.writes()).as("not read: nobody to hand them to").isNull();
        tail.audit(audit); // bound between the capture and the record
        tail.record(c, keyspace(1), "127.0.0.1:7102", "journal");
        assertThat(audit.discards).as("logged with its range, not handed over as empty").isEmpty();
        assertThat(tail.capture(journal(), keyspace(1))).isNull();
    }

    @Test
    void aHistoryTheNewPrimaryContinuedDiscardsNothing() {
        tail.demoted(1, 6, "127.0.0.1:7001");
        tail.continued(6);
        assertThat(tail.capture(journal(), keyspace(0))).as("not beyond the old end yet").isNotNull();
        tail.continued(7);
        assertThat(tail.capture(journal(), keyspace(0))).isNull();
    }

    @Test
    void nothingAfterWhatAReplicaHeldIsNothingToRecord() {
        tail.demoted(6, 6, "127.0.0.1:7001");
        assertThat(tail.capture(journal(), keyspace(0))).isNull();
        tail.promoted();
        tail.demoted(1, 6, "a");
        tail.promoted(); // a primary again before any resync
        assertThat(tail.capture(journal(), keyspace(0))).isNull();
    }
}
