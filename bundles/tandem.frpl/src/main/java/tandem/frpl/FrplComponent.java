package tandem.frpl;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.ToIntFunction;

import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;

import tandem.api.frpl.FrplStreams;
import tandem.api.journal.Journal;
import tandem.api.replication.PsyncLink;

/**
 * The FRPL command stream as a service. Stopping it (an update of this bundle) ends every stream it opened: the
 * psync protocol drops those connections, and its replicas reconnect and continue ({@code +CONTINUE}) once a
 * provider is back; client connections are not touched.
 */
@Component(service = FrplStreams.class, immediate = true)
public final class FrplComponent implements FrplStreams {

    private static final Logger LOG = System.getLogger("tandem.frpl");

    private final Journal journal;
    private final Set<JournalStreamer> streams = ConcurrentHashMap.newKeySet();
    private volatile boolean stopped;

    @Activate
    public FrplComponent(@Reference Journal journal) {
        this.journal = journal;
    }

    @Deactivate
    void deactivate() {
        stopped = true;
        for (JournalStreamer s : streams) {
            s.close("the FRPL stream (tandem.frpl) stopped; the replica reconnects and continues");
        }
        LOG.log(Level.INFO, "FRPL stream stopped: {0} primary streams ended", streams.size());
    }

    @Override
    public Outbound stream(PsyncLink link, long fromSequence, long fromOffset, int maxLagFrames,
            int writeTimeoutMs) {
        if (stopped) {
            throw new IllegalStateException("the FRPL stream (tandem.frpl) is stopping");
        }
        JournalStreamer[] self = new JournalStreamer[1];
        JournalStreamer s = new JournalStreamer(journal, link, fromSequence, fromOffset, maxLagFrames, writeTimeoutMs,
                () -> streams.remove(self[0]));
        self[0] = s;
        streams.add(s);
        return s;
    }

    @Override
    public Inbound receive(long fromOffset, long maxPayload, ToIntFunction<String> firstKey, Sink sink) {
        return new FrameReceiver(fromOffset, maxPayload, firstKey, sink, () -> stopped);
    }
}
