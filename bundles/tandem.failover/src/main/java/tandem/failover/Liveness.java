package tandem.failover;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import tandem.failover.GroupCodec.Heard;
import tandem.failover.GroupCodec.Report;

/**
 * What the Raft leader last heard from each member, with when ({@link System#nanoTime()}). Held only in memory: a
 * new leader starts with an empty table and waits the whole detection time before it counts anyone as gone.
 */
final class Liveness {

    /**
     * A report, when the leader received it, and when it last received one from this member saying it is a primary
     * ({@link Long#MIN_VALUE}: never).
     */
    record Seen(Report report, long atNanos, long primaryAtNanos) {

        Seen(Report report, long atNanos) {
            this(report, atNanos, "primary".equals(report.role()) ? atNanos : Long.MIN_VALUE);
        }
    }

    private final Map<String, Seen> seen = new ConcurrentHashMap<>();

    void heard(Report r, long nowNanos) {
        seen.compute(r.id(), (id, before) -> new Seen(r, nowNanos, "primary".equals(r.role()) ? nowNanos
                : before == null ? Long.MIN_VALUE : before.primaryAtNanos()));
    }

    Seen get(String id) {
        return seen.get(id);
    }

    Map<String, Seen> all() {
        return new LinkedHashMap<>(seen);
    }

    void clear() {
        seen.clear();
    }

    /** @return what the leader heard, for the answers it sends; a member silent for {@code downNanos} is down */
    List<Heard> heard(long nowNanos, long downNanos) {
        return seen.values().stream().map(s -> {
            long age = nowNanos - s.atNanos();
            return new Heard(s.report().id(), age >= downNanos ? "down" : s.report().role(), s.report().tip(),
                    age / 1_000_000);
        }).toList();
    }
}
