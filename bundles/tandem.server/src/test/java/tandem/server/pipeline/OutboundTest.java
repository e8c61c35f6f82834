package tandem.server.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.netty.buffer.ByteBuf;
import io.netty.channel.DefaultEventLoop;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.util.concurrent.Future;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import tandem.server.command.ClientSession;
import tandem.server.command.Commands;

/**
 * A round's replies reach the channel in a task of its event loop, which may run after the logic thread has gone on
 * to the next round. Found by the fuzzer: a QUIT in the next round closed the channel right after the previous
 * round's replies, before its own +OK, because the task read the close flag when it ran.
 */
class OutboundTest {

    @Test
    @Timeout(10)
    void aQuitInTheNextRoundDoesNotCloseTheChannelBeforeItsOwnReply() throws Exception {
        DefaultEventLoop loop = new DefaultEventLoop();
        try {
            EmbeddedChannel channel = new LoopChannel(loop);
            Connection c = new Connection(channel, new ClientSession(1, "local:1"), Commands.table(), null);
            CountDownLatch release = new CountDownLatch(1);
            loop.execute(() -> {
                try {
                    release.await(); // the event loop is busy: the round's task waits behind this one
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            Outbound outbound = new Outbound();
            c.reply().simple("first");
            outbound.add(c);
            outbound.send();
            c.reply().simple("OK"); // the next round: QUIT answers, then the channel closes
            c.closeAfterReply();
            outbound.add(c);
            outbound.send();
            release.countDown();
            Future<?> drained = loop.submit(() -> { });
            drained.get(5, TimeUnit.SECONDS);
            channel.runPendingTasks();
            assertThat(read(channel)).isEqualTo("+first\r\n");
            assertThat(read(channel)).isEqualTo("+OK\r\n");
            assertThat(channel.isOpen()).isFalse();
        } finally {
            loop.shutdownGracefully(0, 1, TimeUnit.SECONDS).await(5, TimeUnit.SECONDS);
        }
    }

    /** An embedded channel (writes recorded in order) whose event loop is a real one, on its own thread. */
    static final class LoopChannel extends EmbeddedChannel {
        private final io.netty.channel.EventLoop loop;

        LoopChannel(io.netty.channel.EventLoop loop) {
            this.loop = loop;
        }

        @Override
        public io.netty.channel.EventLoop eventLoop() {
            return loop == null ? super.eventLoop() : loop;
        }
    }

    private static String read(EmbeddedChannel channel) {
        ByteBuf b = channel.readOutbound();
        assertThat(b).as("a write").isNotNull();
        try {
            return b.toString(StandardCharsets.US_ASCII);
        } finally {
            b.release();
        }
    }
}
