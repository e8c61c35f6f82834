/**
 * The psync protocol (spec 001), private to the bundle: {@link tandem.psync.PsyncComponent} answers the
 * {@code PSYNC}s the server hands over ({@link tandem.psync.PrimaryStream} per replica) and follows a primary on a
 * replica ({@link tandem.psync.ReplicaClient}, {@link tandem.psync.StreamApplier}); {@link tandem.psync.Identity}
 * keeps the replication ids. The codecs are {@code tandem.protocol.frpl} and {@code tandem.protocol.checkpoint}.
 */
package tandem.psync;
