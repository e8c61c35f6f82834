package tandem.failover;

/**
 * A coordinated switchover under way on the primary ({@code FAILOVER}): writes are refused while it lasts.
 *
 * @param to             the target's id
 * @param fromEpoch      the group epoch when it began: done once a later one is applied
 * @param deadlineNanos  when the target must have caught up ({@link System#nanoTime()})
 * @param force          promote the target at the deadline even if it has not caught up
 * @param mark           the journal's last sequence once writes stopped (-1: not taken yet, at the next tick)
 * @param promoting      whether the promotion entry was sent
 */
record Switchover(String to, long fromEpoch, long deadlineNanos, boolean force, long mark, boolean promoting) {

    Switchover marked(long sequence) {
        return new Switchover(to, fromEpoch, deadlineNanos, force, sequence, promoting);
    }

    Switchover withPromotion() {
        return new Switchover(to, fromEpoch, deadlineNanos, force, mark, true);
    }

    /** @return Redis's {@code master_failover_state} */
    String state() {
        return promoting ? "failover-in-progress" : "waiting-for-sync";
    }
}
