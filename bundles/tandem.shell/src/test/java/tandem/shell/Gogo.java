package tandem.shell;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;

import org.apache.felix.gogo.runtime.CommandProcessorImpl;
import org.apache.felix.gogo.runtime.threadio.ThreadIOImpl;
import org.apache.felix.service.command.CommandSession;

/** Gogo's own command processor and one session over it: command lines parsed and called as the shell does. */
final class Gogo implements AutoCloseable {

    private final ThreadIOImpl io = new ThreadIOImpl();
    private final CommandProcessorImpl processor;
    private final CommandSession session;

    /** @param functions the functions of {@code commands} registered under {@code scope} */
    Gogo(String scope, Object commands, String... functions) {
        io.start();
        processor = new CommandProcessorImpl(io);
        for (String f : functions) {
            add(scope, commands, f);
        }
        session = processor.createSession(new ByteArrayInputStream(new byte[0]), new ByteArrayOutputStream(),
                new ByteArrayOutputStream());
    }

    /** Registers one more function, {@code scope:function}. */
    void add(String scope, Object commands, String function) {
        processor.addCommand(scope, commands, function);
    }

    /** @return what the command line returned */
    Object run(String line) throws Exception {
        return session.execute(line);
    }

    @Override
    public void close() {
        session.close();
        processor.stop();
        io.stop();
    }
}
