package tandem.node;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import tandem.api.replication.AckPolicy;
import tandem.api.replication.ReplicationHub.ReplicaSlot;

/** When replies leave: at the round's end, unless the ack policy holds a client's write back. */
@Timeout(10)
class RepliesTest {

    private final Inbox inbox = new Inbox();
    private final ResponseGate gate = new ResponseGate(inbox::wake);
    private final Replies replies = new Replies(gate, inbox);
    private final FakeJournal journal = new FakeJournal();

    /** Records what the replies module tells a client, for the order of events. */
    private static final class Front extends QuietClient {
        final List<String> told = new CopyOnWriteArrayList<>();

        @Override
        public void due() {
            told.add("due");
        }

        @Override
        public void closeAfterReply() {
            told.add("close");
        }
    }

    @Test
    void aTouchedClientIsDueAtTheRoundsEndUnlessItsWriteWaitsForTheAckPolicy() {
        gate.policy(AckPolicy.DISK_RAM);
        ReplicaSlot slot = gate.attach("r1", "journal", "127.0.0.1:1");
        slot.seed(0);
        Front readerFront = new Front();
        Front writerFront = new Front();
        Client reader = new Client(readerFront, inbox);
        Client writer = new Client(writerFront, inbox);
        journal.append(1, 0, tandem.api.journal.EntryTag.APP, new byte[0]); // durable here at once
        replies.touched(reader);
        replies.markHeld(writer);
        replies.gated(writer, 1);
        replies.touched(writer);
        replies.gate(journal, () -> false);
        replies.endRound(null);
        assertThat(readerFront.told).containsExactly("due");
        assertThat(writerFront.told).as("held until a replica holds entry 1").isEmpty();

        slot.ack(1, 0);
        replies.gate(journal, () -> false);
        replies.endRound(null);
        assertThat(writerFront.told).containsExactly("due");
        assertThat(writer.gatedSequence).isZero();
    }

    @Test
    void aPrimaryThatTurnsReplicaClosesTheClientsWhoseWritesItCanNoLongerAcknowledge() {
        gate.policy(AckPolicy.TWO_DISKS);
        Front front = new Front();
        heldWrite(front);
        replies.disconnectHeld();
        assertThat(front.told).containsExactly("close", "due");
    }

    @Test
    void aHeldWriteIsNeverReleasedOnceTheNodeFollowsThoughTheTurnRelaxedThePolicy() {
        gate.policy(AckPolicy.DISK_RAM);
        Front front = new Front();
        Client c = heldWrite(front);
        // the primary turns replica: its role, then a replica's policy (disk), and a round runs before the
        // disconnection the turn posted: under disk alone entry 1 would be answered, and the resync discards it
        gate.policy(AckPolicy.DISK);
        replies.gate(journal, () -> true);
        replies.endRound(null);
        assertThat(front.told).as("disconnected, never answered").containsExactly("close", "due");
        assertThat(c.gatedSequence).isZero();
    }

    @Test
    void aScriptsReadHeldOnAReplicaIsReleasedNotDisconnected() {
        gate.policy(AckPolicy.DISK);
        Front front = new Front();
        Client c = new Client(front, inbox);
        replies.markHeld(c);
        replies.gatedRead(c, 1); // what it read is not durable yet
        replies.touched(c);
        replies.gate(journal, () -> true);
        replies.endRound(null);
        assertThat(front.told).as("waits for entry 1").isEmpty();
        journal.append(1, 0, tandem.api.journal.EntryTag.APP, new byte[0]);
        replies.gate(journal, () -> true);
        replies.endRound(null);
        assertThat(front.told).as("answered").containsExactly("due");
    }

    /** A client whose write, entry 1 (durable here at once), the policy holds back: no replica holds it. */
    private Client heldWrite(Front front) {
        Client c = new Client(front, inbox);
        journal.append(1, 0, tandem.api.journal.EntryTag.APP, new byte[0]);
        replies.markHeld(c);
        replies.gated(c, 1);
        replies.touched(c);
        replies.gate(journal, () -> false);
        replies.endRound(null);
        assertThat(front.told).as("held").isEmpty();
        return c;
    }
}
