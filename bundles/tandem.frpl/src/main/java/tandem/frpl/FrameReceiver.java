package tandem.frpl;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.function.BooleanSupplier;
import java.util.function.ToIntFunction;

import tandem.api.frpl.FrplStreams;
import tandem.api.frpl.FrplStreams.DivergenceException;
import tandem.protocol.frpl.FrplFrame;

/** A replica's stream: bytes into frames ({@link FrplFrame.Decoder}), frames into entries ({@link StreamApplier}). */
final class FrameReceiver implements FrplStreams.Inbound {

    private final StreamApplier applier;
    private final FrplFrame.Decoder decoder;
    private final BooleanSupplier stopped;
    private DivergenceException diverged;

    /** @param stopped true once the provider stopped: the stream ends */
    FrameReceiver(long fromOffset, long maxPayload, ToIntFunction<String> firstKey, FrplStreams.Sink sink,
            BooleanSupplier stopped) {
        this.applier = new StreamApplier(fromOffset, firstKey, sink);
        this.stopped = stopped;
        this.decoder = new FrplFrame.Decoder(maxPayload, (shard, sequence, payload) -> {
            if (diverged == null) {
                try {
                    applier.frame(shard, sequence, payload);
                } catch (DivergenceException e) {
                    diverged = e;
                }
            }
        });
    }

    @Override
    public void feed(ByteBuffer bytes) throws DivergenceException, IOException {
        if (stopped.getAsBoolean()) {
            throw new IOException("the FRPL stream (tandem.frpl) stopped; the replica reconnects and continues");
        }
        try {
            decoder.feed(bytes);
        } catch (IllegalArgumentException e) {
            throw new IOException("a broken FRPL frame: " + e.getMessage(), e);
        }
        if (diverged != null) {
            throw diverged;
        }
    }

    @Override
    public long offset() {
        return applier.offset();
    }

    @Override
    public long takeOwedAck() {
        return applier.takeOwedAck();
    }
}
