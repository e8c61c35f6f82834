package tandem.node;

import java.util.function.Supplier;

import tandem.api.node.NodeClient;
import tandem.api.store.Command;
import tandem.api.store.Reply;

/** A front end's client for tests of single parts: writes its replies nowhere; a test overrides what it watches. */
class QuietClient implements NodeClient {

    @Override
    public long id() {
        return 1;
    }

    @Override
    public Reply reply() {
        return null;
    }

    @Override
    public int replyMark() {
        return 0;
    }

    @Override
    public void resetReply(int mark) {
    }

    @Override
    public long errorReplies() {
        return 0;
    }

    @Override
    public Supplier<String> run(Command command) {
        return null;
    }

    @Override
    public void closeAfterReply() {
    }

    @Override
    public void due() {
    }

    @Override
    public void flush() {
    }

    @Override
    public void released(Command command) {
    }
}
