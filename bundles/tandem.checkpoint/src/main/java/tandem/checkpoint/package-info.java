/**
 * RocksDB checkpoints for a full sync, private to the bundle: {@link tandem.checkpoint.CheckpointComponent} provides
 * {@link tandem.api.checkpoint.Checkpoints}; {@link tandem.checkpoint.CheckpointSender} streams a cut checkpoint in
 * the checkpoint stream format, {@link tandem.checkpoint.CheckpointReceiver} receives one into a scratch directory
 * and commits it to {@code staged} with one atomic rename. The store installs a staged checkpoint itself
 * ({@link tandem.api.store.Keyspace#install}): only it can close and reopen its RocksDB. The codec is
 * {@code tandem.protocol.checkpoint}.
 */
package tandem.checkpoint;
