package tandem.protocol.checkpoint;

/**
 * One file of a checkpoint stream as the writer announces it: its name and size.
 *
 * @param name a valid file name ({@link CheckpointStream#isValidFileName})
 * @param size 0 to {@link CheckpointStream#MAX_FILE_SIZE}
 */
public record CheckpointFile(String name, long size) {

    /** @throws IllegalArgumentException when the name is not a valid file name or the size is out of range */
    public CheckpointFile {
        CheckpointStream.requireFileName(name);
        CheckpointStream.requireFileSize(size);
    }
}
