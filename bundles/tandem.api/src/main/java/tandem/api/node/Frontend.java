package tandem.api.node;

import java.util.List;

import org.osgi.annotation.versioning.ConsumerType;

/**
 * The front end attached to the node core ({@link Node#attach}), called on the node's logic thread: it sends each
 * round's replies and keeps the command statistics, slow log and stall watchdog of the work that thread does.
 */
@ConsumerType
public interface Frontend {

    /** @return the front end's listener and clients, which the replication protocols report and announce */
    tandem.api.server.ServerStatus status();

    /** Every client told {@link NodeClient#due()} this round may be sent its replies now, in one write each. */
    void roundEnd();

    /**
     * The logic thread starts on {@code what}: a request ({@link tandem.api.store.Command}), a journal entry's
     * payload ({@code byte[]}) or a description ({@code String}).
     */
    void busy(Object what);

    /** The logic thread finished what {@link #busy} named. */
    void idle();

    /** {@code command} of {@code client} ran in {@code durationNs}; {@code failed} when it answered an error. */
    void executed(NodeClient client, tandem.api.store.Command command, long durationNs, boolean failed);

    /** {@code command} of {@code client} was refused before it ran. */
    void rejected(NodeClient client, tandem.api.store.Command command);

    /** A transaction of {@code client} ran ({@code EXEC}), its {@code commands} with it. */
    void executedTransaction(NodeClient client, List<tandem.api.store.Command> commands, long durationNs,
            boolean failed);

    /**
     * @return the front end's subscribers, to which a replica delivers what its primary's clients published, or null
     *         when it has none. Handed over with the front end rather than bound as a service: the front end
     *         references the node, and a reference back would make a service cycle
     * @since 2.1
     */
    default tandem.api.server.PubSub subscribers() {
        return null;
    }
}
