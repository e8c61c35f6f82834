package tandem.transport.dpdk;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/** What the reliability layer did and dropped, summed over every link of a transport, for status and tests. */
final class Counters {

    final LongAdder framesSent = new LongAdder();
    final LongAdder framesReceived = new LongAdder();
    final LongAdder retransmitted = new LongAdder();
    final LongAdder timeouts = new LongAdder();
    final LongAdder droppedMalformed = new LongAdder();
    final LongAdder droppedCorrupt = new LongAdder();
    final LongAdder droppedStale = new LongAdder();
    final LongAdder droppedDuplicate = new LongAdder();
    final LongAdder droppedOutOfWindow = new LongAdder();
    final LongAdder droppedBadAck = new LongAdder();

    /** @return every counter by its status name, in a stable order */
    Map<String, Long> snapshot() {
        Map<String, Long> m = new LinkedHashMap<>();
        m.put("frames_sent", framesSent.sum());
        m.put("frames_received", framesReceived.sum());
        m.put("retransmitted", retransmitted.sum());
        m.put("retransmit_timeouts", timeouts.sum());
        m.put("dropped_malformed", droppedMalformed.sum());
        m.put("dropped_corrupt", droppedCorrupt.sum());
        m.put("dropped_stale", droppedStale.sum());
        m.put("dropped_duplicate", droppedDuplicate.sum());
        m.put("dropped_out_of_window", droppedOutOfWindow.sum());
        m.put("dropped_bad_ack", droppedBadAck.sum());
        return m;
    }
}
