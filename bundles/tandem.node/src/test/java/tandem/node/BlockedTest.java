package tandem.node;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import tandem.api.store.BlockingWait;
import tandem.api.store.Command;
import tandem.api.store.CommandDescriptor;
import tandem.api.store.Reply;

/** The registry of clients parked in blocking commands: who is woken, in which order, and when a try is repeated. */
@Timeout(10)
class BlockedTest {

    private static final CommandDescriptor BLMPOP = new CommandDescriptor("blmpop", -5, true, 0, 0, 0,
            List.of("write", "blocking", "movablekeys"), "list", "7.0.0", "");

    private final Blocked blocked = new Blocked();

    private static final CommandDescriptor BLPOP = new CommandDescriptor("blpop", -3, true, 1, -2, 1,
            List.of("write", "blocking"), "list", "2.0.0", "");

    private static Command args(String... a) {
        byte[][] b = new byte[a.length][];
        for (int i = 0; i < a.length; i++) {
            b[i] = a[i].getBytes(StandardCharsets.UTF_8);
        }
        return Command.keyspace(b, a[0], BLPOP, null, 0);
    }

    private static long ids;

    /** A client whose front end has an id of its own ({@code CLIENT UNBLOCK} finds it by that id). */
    private static Client client() {
        long id = ++ids;
        return new Client(new QuietClient() {
            @Override
            public long id() {
                return id;
            }
        }, null);
    }

    private Client parkedOn(String... keys) {
        Client c = client();
        String[] a = new String[keys.length + 2];
        a[0] = "blpop";
        System.arraycopy(keys, 0, a, 1, keys.length);
        a[a.length - 1] = "0";
        blocked.block(c, args(a), waitOn(keys));
        assertThat(blocked.park(c)).isTrue();
        return c;
    }

    private static BlockingWait waitOn(String... keys) {
        List<byte[]> k = new ArrayList<>();
        for (String key : keys) {
            k.add(key.getBytes(StandardCharsets.UTF_8));
        }
        return new BlockingWait(k, 0);
    }

    private List<Client> touch(String key) {
        List<Blocked.Block> woken = new ArrayList<>();
        blocked.touched(0, key.getBytes(StandardCharsets.UTF_8), woken);
        List<Client> clients = new ArrayList<>();
        woken.forEach(b -> clients.add(b.client));
        return clients;
    }

    @Test
    void aWriteWakesTheClientsOfItsKeyInTheOrderTheyBlocked() {
        Client first = parkedOn("q");
        Client other = parkedOn("elsewhere");
        Client second = parkedOn("x", "q");
        Client third = parkedOn("q");
        assertThat(blocked.parked()).isEqualTo(4);

        assertThat(touch("q")).containsExactly(first, second, third);
        assertThat(blocked.parked()).isEqualTo(1); // the woken are in flight again
        assertThat(touch("q")).isEmpty(); // already woken: not twice
        assertThat(touch("elsewhere")).containsExactly(other);
    }

    @Test
    void aWokenClientThatFindsNothingParksAgainKeepingItsPlace() {
        Client first = parkedOn("q");
        touch("q");
        blocked.attempting(first); // journaled again
        Client later = parkedOn("q");
        assertThat(blocked.park(first)).isTrue(); // someone else took the element

        assertThat(touch("q")).containsExactly(first, later);
    }

    @Test
    void aWriteWhileTheTryIsInFlightMakesItTryAgainInsteadOfParking() {
        Client c = client();
        blocked.block(c, args("blpop", "q", "0"), waitOn("q"));
        assertThat(touch("q")).isEmpty(); // not parked yet: marked
        assertThat(blocked.park(c)).isFalse(); // the write may have served it: try again
        assertThat(blocked.park(c)).isTrue();
        assertThat(blocked.parked()).isEqualTo(1);
    }

    @Test
    void aServedOrDepartedClientIsForgotten() {
        Client served = parkedOn("q");
        Client gone = parkedOn("q");
        blocked.done(served);
        blocked.remove(gone);
        assertThat(blocked.parked()).isZero();
        assertThat(blocked.isEmpty()).isTrue();
        assertThat(touch("q")).isEmpty();
    }

    @Test
    void followingAPrimaryAnswersEveryParkedClientButNotThoseInFlight() {
        Client a = parkedOn("q");
        Client b = parkedOn("r");
        Client inFlight = client();
        blocked.block(inFlight, args("blpop", "s", "0"), waitOn("s"));
        List<Client> answered = new ArrayList<>();
        blocked.expired(true).forEach(x -> answered.add(x.client));
        assertThat(answered).containsExactly(a, b);
        assertThat(blocked.has(inFlight)).isTrue();
        assertThat(blocked.expired(false)).isEmpty(); // timeout 0: for good
    }

    @Test
    void aClientUnblockedIsAnsweredAtTheNextPassAndNoWriteServesItMeanwhile() {
        Client a = parkedOn("q");
        Client b = parkedOn("q");
        Client inFlight = client();
        blocked.block(inFlight, args("blpop", "s", "0"), waitOn("s"));
        assertThat(blocked.parked(inFlight.front.id())).as("in flight: its apply answers it").isNull();
        assertThat(blocked.parked(a.front.id())).isSameAs(a);
        a.unblock = Client.Unblock.ERROR; // what Parking.unblock sets
        assertThat(touch("q")).as("a write wakes the others only").containsExactly(b);
        List<Client> answered = new ArrayList<>();
        blocked.expired(false).forEach(x -> answered.add(x.client));
        assertThat(answered).containsExactly(a);
        assertThat(blocked.has(a)).isFalse();
    }

    @Test
    void aBlockingCommandIsToldByItsDescriptor() {
        assertThat(Blocked.isBlocking(BLMPOP)).isTrue();
        assertThat(Blocked.isBlocking(new CommandDescriptor("lpop", -2, true, 1, 1, 1, List.of("write", "fast"),
                "list", "1.0.0", ""))).isFalse();
    }

    @Test
    void theProbeTellsANilOnlyReplyFromAServedOne() {
        Reply sink = new Reply() {
            public Reply simple(String text) { return this; }
            public Reply error(String text) { return this; }
            public Reply integer(long value) { return this; }
            public Reply bulk(byte[] value) { return this; }
            public Reply nullBulk() { return this; }
            public Reply nullArray() { return this; }
            public Reply array(int count) { return this; }
        };
        Blocked.NilProbe nil = new Blocked.NilProbe(sink);
        nil.nullArray();
        assertThat(nil.nilOnly()).isTrue();
        Blocked.NilProbe bulkNil = new Blocked.NilProbe(sink);
        bulkNil.nullBulk();
        assertThat(bulkNil.nilOnly()).isTrue();
        Blocked.NilProbe served = new Blocked.NilProbe(sink);
        served.array(2).bulk(new byte[] {'q'}).bulk(new byte[] {'v'});
        assertThat(served.nilOnly()).isFalse();
        Blocked.NilProbe error = new Blocked.NilProbe(sink);
        error.error("WRONGTYPE Operation against a key holding the wrong kind of value");
        assertThat(error.nilOnly()).isFalse();
    }

    @Test
    void theProbePassesRespThreeTypesThroughAsSuch() {
        StringBuilder seen = new StringBuilder();
        Reply resp3 = new Reply() {
            public Reply simple(String text) { seen.append('+'); return this; }
            public Reply error(String text) { seen.append('-'); return this; }
            public Reply integer(long value) { seen.append(':'); return this; }
            public Reply bulk(byte[] value) { seen.append('$'); return this; }
            public Reply nullBulk() { seen.append('_'); return this; }
            public Reply nullArray() { seen.append('_'); return this; }
            public Reply array(int count) { seen.append('*'); return this; }
            public Reply map(int pairs) { seen.append('%'); return this; }
            public Reply set(int count) { seen.append('~'); return this; }
            public Reply doubleValue(byte[] text) { seen.append(','); return this; }
            public Reply verbatim(byte[] text) { seen.append('='); return this; }
            public int protocol() { return 3; }
        };
        Blocked.NilProbe served = new Blocked.NilProbe(resp3);
        assertThat(served.protocol()).isEqualTo(3);
        // a served BZPOPMIN: key, member, score (a double in RESP3, as Redis sends it)
        served.array(3).bulk(new byte[] {'z'}).bulk(new byte[] {'m'}).doubleValue(new byte[] {'1'});
        served.map(1).set(0).verbatim(new byte[0]);
        assertThat(seen).hasToString("*$$,%~=");
        assertThat(served.nilOnly()).isFalse();
    }

    @Test
    void aClientBlockedInADatabaseIsWokenByItsKeyThereOnlyAndBySwapdb() {
        Client c = client();
        blocked.block(c, args("blpop", "k", "0").db(3), waitOn("k"));
        assertThat(blocked.park(c)).isTrue();
        assertThat(touch("k")).as("the same key in database 0").isEmpty();
        List<Blocked.Block> woken = new ArrayList<>();
        blocked.touched(3, "k".getBytes(StandardCharsets.UTF_8), woken);
        assertThat(woken).extracting(b -> b.client).containsExactly(c);
        Client d = parkedOn("other");
        assertThat(blocked.park(c)).isTrue(); // its try found nothing
        woken.clear();
        blocked.touchedAll(woken);
        assertThat(woken).extracting(b -> b.client).containsExactly(c, d);
    }

    private static final CommandDescriptor XREAD = new CommandDescriptor("xread", -4, false, 0, 0, 0,
            List.of("readonly", "blocking", "movablekeys"), "stream", "5.0.0", "");

    private static Command xread(String key) {
        return Command.keyspace(new byte[][] {"xread".getBytes(StandardCharsets.UTF_8),
            "BLOCK".getBytes(StandardCharsets.UTF_8), "0".getBytes(StandardCharsets.UTF_8),
            "STREAMS".getBytes(StandardCharsets.UTF_8), key.getBytes(StandardCharsets.UTF_8),
            "$".getBytes(StandardCharsets.UTF_8)}, "xread", XREAD, null, 0);
    }

    @Test
    void replicationWakesTheParkedReadsAloneAndADemotionAnswersOnlyThoseBlockedOnThePrimary() {
        Client write = parkedOn("q");
        Client read = client();
        blocked.block(read, xread("s"), waitOn("s"));
        assertThat(blocked.park(read)).isTrue();
        Client replicaRead = client();
        blocked.block(replicaRead, xread("s"), waitOn("s"), true);
        assertThat(blocked.park(replicaRead)).isTrue();

        List<Blocked.Block> woken = new ArrayList<>();
        blocked.replicated(woken);
        assertThat(woken).extracting(b -> b.client).containsExactly(read, replicaRead);
        assertThat(woken).allMatch(Blocked.Block::isRead);
        assertThat(blocked.park(read)).isTrue();
        assertThat(blocked.park(replicaRead)).isTrue();

        // the node now follows a primary: Redis answers -UNBLOCKED to the clients blocked before, not to a read
        // that blocked on the replica
        assertThat(blocked.expired(true)).extracting(b -> b.client).containsExactly(write, read);
        assertThat(blocked.has(replicaRead)).isTrue();
        assertThat(touch("s")).containsExactly(replicaRead);
    }
}
