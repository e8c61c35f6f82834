/**
 * RocksDB checkpoints for a full sync, private to the bundle: {@link tandem.checkpoint.CheckpointSender} streams a
 * cut checkpoint in the checkpoint stream format, {@link tandem.checkpoint.CheckpointReceiver} receives one into a
 * scratch directory and commits it to {@code staged} with one atomic rename, and
 * {@link tandem.checkpoint.CheckpointInstaller} renames it into place as the store directory and recovers from a
 * crash at any point. The codec is {@code tandem.protocol.checkpoint}.
 */
package tandem.checkpoint;
