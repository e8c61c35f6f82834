package tandem.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/** The open-addressing index against a {@link HashMap}: same answers after any sequence of puts and removes. */
class KeyIndexTest {

    record Op(boolean put, String key, long expiry) {
    }

    @Provide
    Arbitrary<List<Op>> ops() {
        // few distinct keys and many operations: long probe runs, removals inside them, growth past 1024 slots
        Arbitrary<String> key = Arbitraries.integers().between(0, 3000).map(i -> "k" + i);
        return Combinators.combine(Arbitraries.integers().between(0, 9).map(i -> i < 6), key,
                Arbitraries.longs().between(-1, 1000)).as(Op::new).list().ofMinSize(100).ofMaxSize(6000);
    }

    @Property(tries = 60)
    void answersAsAHashMapDoes(@ForAll("ops") List<Op> ops) {
        KeyIndex index = new KeyIndex();
        Map<String, Long> model = new HashMap<>();
        for (Op op : ops) {
            byte[] k = op.key().getBytes(StandardCharsets.UTF_8);
            if (op.put()) {
                KeyIndex.Entry previous = index.put(new KeyIndex.Entry(k, index.hash(k), Tx.STRING, op.expiry(), 0, 0,
                        null));
                Long expected = model.put(op.key(), op.expiry());
                assertThat(previous == null ? null : previous.expiryMs()).isEqualTo(expected);
            } else {
                KeyIndex.Entry removed = index.remove(k);
                Long expected = model.remove(op.key());
                assertThat(removed == null ? null : removed.expiryMs()).isEqualTo(expected);
            }
        }
        assertThat(index.size()).isEqualTo(model.size());
        for (int i = 0; i <= 3000; i++) {
            KeyIndex.Entry e = index.get(("k" + i).getBytes(StandardCharsets.UTF_8));
            assertThat(e == null ? null : e.expiryMs()).as("k%d", i).isEqualTo(model.get("k" + i));
        }
    }

    @Property(tries = 200)
    void theHashDependsOnEveryByte(@ForAll byte[] key, @ForAll int position) {
        KeyIndex index = new KeyIndex();
        if (key.length == 0) {
            return;
        }
        byte[] other = key.clone();
        other[Math.floorMod(position, key.length)] ^= 1;
        // not a guarantee for one pair, but a dropped byte would make every such pair collide
        assertThat(index.hash(key) == index.hash(other) && index.hash(key.clone()) == index.hash(key)
                && index.hash(other) == index.hash(key)).isFalse();
    }
}
