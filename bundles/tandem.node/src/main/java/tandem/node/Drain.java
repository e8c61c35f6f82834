package tandem.node;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;

import tandem.api.journal.Journal;
import tandem.api.node.Frontend;
import tandem.api.store.Keyspace;

/**
 * Runs the pending requests in the order they were sequenced: a write once the journal reports it durable (under
 * {@code ram}, once a replica holds it in memory), a read once the writes before it are applied, each node entry,
 * connection command and immediate answer at its turn. Waits for durability only when nothing else is queued: the
 * journal thread posts an event when the batch is durable, and meanwhile the logic thread sequences whatever arrives,
 * so that it joins the next {@code fdatasync}. The logic thread's alone.
 */
record Drain(Services services, Turns turns, Applier applier, Sequencer sequencer, Replies replies,
        Parking parking, Housekeeping housekeeping, Accounting accounting, ResponseGate gate, EntryClock clock) {

    private static final Logger LOG = System.getLogger("tandem.node");
    static final String LOST = "ERR the journal restarted before this write was durable; it was not applied";

    /** Runs pending requests in order, as far as their turn has come. */
    void run() {
        for (Pending p = turns.peek(); p != null; p = turns.peek()) {
            if (turns.wasLost(p)) {
                turns.poll();
                refuse(p, LOST);
                continue;
            }
            Journal journal = services.journal();
            Keyspace keyspace = services.keyspace();
            boolean needsKeyspace = p.needsKeyspace();
            if (needsKeyspace && p.sequence() == 0 && services.loading()) {
                refuse(turns.poll(), services.unavailable()); // a read while a snapshot installs, as Redis answers
                continue;
            }
            if ((p.sequence() > 0 && journal == null)
                    || (needsKeyspace && (keyspace == null || services.replayNeeded()))) {
                // a service is being replaced: wait for it (bounded), its rebinding replays and answers in order
                if (services.stillWaiting()) {
                    return;
                }
                refuse(turns.poll(), "ERR " + (journal == null ? "the journal (tandem.journal)"
                        : "the store (tandem.store)") + " is not active");
                continue;
            }
            services.present();
            if (p.sequence() > 0 && applier.stopped()) {
                // journaled, but nothing after the failed entry applies
                refuse(turns.poll(), applier.failure().error(p.sequence()));
                continue;
            }
            if (p.sequence() > 0 && !durable(journal, p.sequence())) {
                String stopped = services.stoppedReason();
                if (stopped != null) {
                    refuse(turns.poll(), Sequencer.journalStopped(stopped));
                    continue;
                }
                return;
            }
            services.awaiting(Long.MAX_VALUE);
            turns.poll();
            execute(p);
        }
    }

    /**
     * @return true when {@code sequence} may be applied: durable here, or under {@code ram} held by a replica;
     *         otherwise the journal's event (or the replica's acknowledgement) wakes the logic thread when it is
     */
    private boolean durable(Journal journal, long sequence) {
        if (journal.durableSequence() >= sequence || gate.heldInMemory(sequence)) {
            return true;
        }
        services.awaiting(sequence);
        // released meanwhile: its event may have gone by before the wait was set
        return journal.durableSequence() >= sequence || gate.ram() && gate.await(sequence, journal.durableSequence());
    }

    /**
     * Runs one request with a guard: a request that fails unexpectedly (a bug in a read or a connection command) is
     * answered with an error and logged, and the next one runs. Journaled entries have a guard of their own, which
     * stops applying instead ({@link Applier}).
     */
    private void execute(Pending p) {
        Client c = p.client();
        int mark = c == null ? 0 : c.front.replyMark();
        long errors = c == null ? 0 : c.front.errorReplies();
        Frontend f = accounting.busy(p.command() != null ? p.command() : p.kind().toString());
        long started = System.nanoTime();
        try {
            executeUnguarded(p);
            if (c != null) {
                Accounting.ran(f, p, System.nanoTime() - started, c.front.errorReplies() > errors);
            }
        } catch (RuntimeException | Error e) {
            LOG.log(Level.ERROR, "''" + p.describe() + "'' failed unexpectedly; its client is answered with an error",
                    e);
            if (c != null) {
                c.front.resetReply(mark);
                c.front.reply().error("ERR internal error while running '" + p.describe() + "': " + e);
                replies.touched(c);
                if (p.kind() == Pending.Kind.READ) {
                    parking.blockingRefused(c); // a blocking read answered with an error blocks no more
                }
            }
        } finally {
            Accounting.idle(f);
            if (c != null && p.command() != null) {
                c.front.released(p.command());
            }
        }
    }

    private void executeUnguarded(Pending p) {
        Client c = p.client();
        Keyspace keyspace = services.keyspace();
        switch (p.kind()) {
            case TICK -> {
                housekeeping.tickApplied();
                applier.tick(p.sequence(), p.timestampNs());
                return;
            }
            case EPOCH_BUMP -> {
                applier.epochBump(p.sequence(), p.epoch());
                return;
            }
            case PUBLISH -> {
                applier.skipped(p.sequence(), "PUBLISH"); // delivered here when it was answered
                return;
            }
            case WAIT -> {
                parking.startWait(c);
                return;
            }
            case IMMEDIATE -> writeImmediate(c, p.immediate());
            case ERROR -> {
                if (p.immediate() != null) {
                    c.front.reply().error(p.immediate());
                }
                c.front.closeAfterReply();
            }
            case CONNECTION -> {
                long errorsBefore = c.front.errorReplies();
                java.util.function.Supplier<String> later = c.front.run(p.command());
                if (Sequencer.isPublish(p.command()) && c.front.errorReplies() == errorsBefore) {
                    sequencer.publish(p.command()); // delivered here: now the replicas' subscribers' turn
                }
                if (c.parked) {
                    parking.finishLater(c, later);
                } else if (later != null) {
                    replyLine(c, later.get());
                }
            }
            case READ -> {
                if (parking.blocks(c)) {
                    readBlocking(p);
                    return;
                }
                keyspace.read(clock.next(), p.command(), c.front.reply());
            }
            case REFUSED -> keyspace.refuse(clock.next(), p.command(), c.front.reply());
            case WRITE -> {
                replies.markHeld(c);
                if (parking.blocks(c)) {
                    applyBlocking(p);
                    return;
                }
                if (applier.write(p, c.front.reply())) {
                    replies.gated(c, p.sequence());
                }
            }
            case TRANSACTION -> {
                replies.markHeld(c);
                if (applier.write(p, null)) {
                    replies.gated(c, p.sequence());
                }
            }
            case READ_TRANSACTION -> {
                long now = clock.next();
                c.front.reply().array(p.commands().size());
                for (tandem.api.store.Command command : p.commands()) {
                    if (command.isFrontend()) {
                        if (!Waits.answerInTransaction(c, command, c.lastWriteSequence, services.role().following(),
                                gate)) {
                            c.front.run(command); // queueable: it answers at once
                        }
                        continue;
                    }
                    keyspace.read(now, command, c.front.reply());
                }
            }
            default -> throw new IllegalStateException(p.kind().toString());
        }
        replies.touched(c);
    }

    /**
     * Applies a blocking command: when it found nothing, its nil reply is taken back and the client parks (or is
     * journaled again); otherwise it was served, or answered an error, and resumes.
     */
    private void applyBlocking(Pending p) {
        Client c = p.client();
        int mark = c.front.replyMark();
        Blocked.NilProbe probe = new Blocked.NilProbe(c.front.reply());
        boolean applied = applier.write(p, probe);
        replies.touched(c);
        boolean foundNothing = applied && probe.nilOnly();
        if (foundNothing) {
            c.front.resetReply(mark);
        } else if (applied) {
            replies.gated(c, p.sequence());
        }
        parking.blockingApplied(c, foundNothing);
    }

    /**
     * Runs a blocking read (XREAD BLOCK): when it found nothing, its nil reply is taken back and the client parks
     * (or reads again at once when a write named its keys meanwhile); otherwise it was served, or answered an error.
     */
    private void readBlocking(Pending p) {
        Client c = p.client();
        int mark = c.front.replyMark();
        Blocked.NilProbe probe = new Blocked.NilProbe(c.front.reply());
        services.keyspace().read(clock.next(), p.command(), probe);
        boolean foundNothing = probe.nilOnly();
        if (foundNothing) {
            c.front.resetReply(mark);
        }
        replies.touched(c);
        parking.blockingApplied(c, foundNothing);
    }

    /** Answers {@code p} with {@code error} instead of running it. */
    private void refuse(Pending p, String error) {
        if (p.kind() == Pending.Kind.TICK) {
            housekeeping.tickApplied();
            return;
        }
        Client c = p.client();
        if (c == null) {
            return; // an entry of the node's own, no client waits for it
        }
        c.front.reply().error(error);
        replies.touched(c);
        if (p.kind() == Pending.Kind.WRITE || p.kind() == Pending.Kind.READ) {
            parking.blockingRefused(c); // a blocking command answered with an error blocks no more
        }
    }

    /** Answers every pending request with {@code error} and sends the replies now (the node is going down). */
    void failAll(String error) {
        for (Pending p = turns.poll(); p != null; p = turns.poll()) {
            refuse(p, error);
        }
        replies.flushTouched();
    }

    private static void writeImmediate(Client c, String reply) {
        switch (reply.charAt(0)) {
            case '+' -> c.front.reply().simple(reply.substring(1));
            case '-' -> c.front.reply().error(reply.substring(1));
            case '*' -> c.front.reply().nullArray();
            default -> throw new IllegalStateException(reply);
        }
    }

    /** Writes {@code +text} or {@code -error}, a line without its CRLF, as {@code c}'s reply. */
    static void replyLine(Client c, String line) {
        if (line.startsWith("-")) {
            c.front.reply().error(line.substring(1));
        } else {
            c.front.reply().simple(line.startsWith("+") ? line.substring(1) : line);
        }
    }
}
