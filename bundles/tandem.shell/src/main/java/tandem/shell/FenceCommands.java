package tandem.shell;

import java.time.Instant;
import java.util.Map;

import org.apache.felix.service.command.Descriptor;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;

import tandem.api.fencing.QuorumFenceStatus;
import tandem.api.fencing.SplitBrainAudit;

/** {@code fence:*}: the quorum fence. */
@Component(service = FenceCommands.class, immediate = true, property = {
    "osgi.command.scope=fence",
    "osgi.command.function=status"
})
public final class FenceCommands {

    static final String NOT_ACTIVE = "fence: not active (is tandem.fencing started? see scr:list)";

    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC)
    volatile QuorumFenceStatus fence;

    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC)
    volatile SplitBrainAudit splitBrain;

    /** The fence in one line, as {@code repl:status} shows it. */
    static String summary(QuorumFenceStatus.Status s) {
        if (!s.selfFence()) {
            return "off (self.fence.on.replica.loss=false)";
        }
        if (s.armedAtMillis() == 0) {
            return "unarmed (no replica has streamed yet), window " + s.windowMillis() + " ms";
        }
        return (s.fenced() ? "FENCED since " + Instant.ofEpochMilli(s.fencedAtMillis()) + ", writes refused"
                : "armed since " + Instant.ofEpochMilli(s.armedAtMillis())) + ", window " + s.windowMillis()
                + " ms, " + s.refusedWrites() + " writes refused";
    }

    @Descriptor("shows the quorum fence: on or off, its window, whether it is armed and fenced and since when, the "
            + "writes it refused, how long ago each streaming replica acknowledged, and the split-brain audit's "
            + "counters")
    public String status() {
        QuorumFenceStatus f = fence;
        if (f == null) {
            return NOT_ACTIVE;
        }
        QuorumFenceStatus.Status s = f.status();
        StringBuilder out = new StringBuilder();
        out.append("self-fence:       ").append(s.selfFence() ? "on" : "off").append('\n');
        out.append("window:           ").append(s.windowMillis()).append(" ms\n");
        out.append("armed:            ").append(s.armedAtMillis() == 0 ? "no (no replica has streamed yet)"
                : "yes, since " + Instant.ofEpochMilli(s.armedAtMillis())).append('\n');
        out.append("fenced:           ").append(s.fenced() ? "yes, since " + Instant.ofEpochMilli(s.fencedAtMillis())
                : "no").append('\n');
        out.append("refused writes:   ").append(s.refusedWrites()).append('\n');
        if (s.ackAgesMillis().isEmpty()) {
            out.append("replicas:         none streaming (the fence learns of them at the first write)");
        } else {
            out.append("replicas (ms since their last ack):");
            for (Map.Entry<String, Long> e : s.ackAgesMillis().entrySet()) {
                out.append("\n  ").append(e.getKey()).append("  ").append(e.getValue());
            }
        }
        SplitBrainAudit audit = splitBrain;
        if (audit != null) {
            SplitBrainAudit.Counters c = audit.counters();
            out.append("\nsplit brain:      ").append(c.events()).append(" discarded histories recorded, ")
                    .append(c.ops()).append(" writes (").append(c.bytes()).append(" bytes of RESP), ")
                    .append(c.evicted()).append(" left out by the ring's bounds");
            out.append("\nlast audit file:  ").append(c.lastFile() == null ? "-" : c.lastFile());
        }
        return out.toString();
    }
}
