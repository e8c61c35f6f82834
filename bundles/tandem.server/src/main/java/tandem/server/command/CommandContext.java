package tandem.server.command;

import tandem.server.resp.RespWriter;

/** What a command may touch while it runs: its connection, its reply, the server. */
public interface CommandContext {

    /** @return the connection's state */
    ClientSession session();

    /** @return where the reply goes; write exactly one reply per command */
    RespWriter reply();

    /** @return the server the connection belongs to */
    ServerContext server();

    /** @return the command table, for {@code COMMAND} */
    CommandTable table();

    /** Closes the connection once the replies written so far have been flushed. */
    void closeAfterReply();
}
