package tandem.protocol.checkpoint;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * Test helpers: streams built by hand from the grammar (not with the writer), the checksum computed directly with
 * MessageDigest, and a listener that records what the reader reports.
 */
final class Checkpoints {

    static final String REPLID = "8c1f0e3d5a7b9c2e4f6a8b0c1d2e3f4a5b6c7d8e";

    private Checkpoints() {
    }

    /** Each char one byte (ISO-8859-1), so that tests can write any byte. */
    static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.ISO_8859_1);
    }

    static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] p : parts) {
            out.writeBytes(p);
        }
        return out.toByteArray();
    }

    static byte[] sha256(byte[]... parts) {
        try {
            MessageDigest d = MessageDigest.getInstance("SHA-256");
            for (byte[] p : parts) {
                d.update(p);
            }
            return d.digest();
        } catch (NoSuchAlgorithmException e) {
            throw new AssertionError(e);
        }
    }

    static String hex(byte[] b) {
        return HexFormat.of().formatHex(b);
    }

    /** The hash of hashes, straight from its definition. */
    static String checksum(List<byte[]> names, List<byte[]> contents) {
        List<byte[]> parts = new ArrayList<>();
        for (int i = 0; i < names.size(); i++) {
            parts.add(names.get(i));
            parts.add(sha256(contents.get(i)));
        }
        return hex(sha256(parts.toArray(byte[][]::new)));
    }

    static byte[] random(long seed, int n) {
        byte[] b = new byte[n];
        new Random(seed).nextBytes(b);
        return b;
    }

    /** Builds a stream by hand; every piece can be bent. */
    static final class Builder {
        final List<byte[]> names = new ArrayList<>();
        final List<byte[]> contents = new ArrayList<>();
        String count;
        String replicationId = REPLID;
        String offset = "1234";
        String rdbSize;
        String checksum;

        Builder file(String name, byte[] content) {
            return file(utf8(name), content);
        }

        Builder file(byte[] name, byte[] content) {
            names.add(name);
            contents.add(content);
            return this;
        }

        String metadata() {
            long sum = contents.stream().mapToLong(c -> c.length).sum();
            return (rdbSize != null ? rdbSize : Long.toString(sum)) + ":"
                    + (checksum != null ? checksum : Checkpoints.checksum(names, contents)) + ":" + replicationId
                    + ":" + offset;
        }

        byte[] prelude() {
            return bytes("$FROGDB_CHECKPOINT\r\n" + (count != null ? count : Integer.toString(names.size()))
                    + "\r\n");
        }

        byte[] files() {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            for (int i = 0; i < names.size(); i++) {
                out.writeBytes(bytes("$" + names.get(i).length + "\r\n"));
                out.writeBytes(names.get(i));
                out.writeBytes(bytes("\r\n$" + contents.get(i).length + "\r\n"));
                out.writeBytes(contents.get(i));
            }
            return out.toByteArray();
        }

        byte[] trailer() {
            return trailer(metadata());
        }

        static byte[] trailer(String metadata) {
            byte[] m = utf8(metadata);
            return concat(bytes("$" + m.length + "\r\n"), m, bytes("\r\n"));
        }

        byte[] build() {
            return concat(prelude(), files(), trailer());
        }
    }

    /** Records the listener calls as strings and the files' bytes. */
    static class Recorder implements CheckpointStreamReader.Listener {
        final List<String> events = new ArrayList<>();
        final Map<String, ByteArrayOutputStream> files = new LinkedHashMap<>();
        CheckpointTrailer trailer;
        private ByteArrayOutputStream current;

        @Override
        public void fileStart(String name, long size) {
            events.add("start " + name + " " + size);
            current = new ByteArrayOutputStream();
            files.put(name, current);
        }

        @Override
        public void fileData(ByteBuffer data) throws IOException {
            if (!data.isReadOnly()) {
                throw new AssertionError("fileData gets a read-only slice");
            }
            byte[] b = new byte[data.remaining()];
            data.get(b);
            current.writeBytes(b);
        }

        @Override
        public void fileEnd(String name, byte[] sha256) {
            events.add("end " + name + " " + hex(sha256));
        }

        @Override
        public void end(CheckpointTrailer t) {
            events.add("trailer " + t.format());
            trailer = t;
        }

        byte[] file(String name) {
            return files.get(name).toByteArray();
        }
    }

    /** Feeds {@code stream} whole, in one heap buffer; @return the recorder */
    static Recorder read(byte[] stream) throws IOException {
        Recorder r = new Recorder();
        CheckpointStreamReader reader = new CheckpointStreamReader(r);
        ByteBuffer b = ByteBuffer.wrap(stream);
        if (!reader.feed(b)) {
            throw new AssertionError("incomplete: " + reader.progress());
        }
        return r;
    }

    /** Feeds {@code stream} in fragments of random lengths 1..max, alternating heap and direct buffers. */
    static Recorder readFragmented(byte[] stream, long seed, int max) throws IOException {
        Random rnd = new Random(seed);
        Recorder r = new Recorder();
        CheckpointStreamReader reader = new CheckpointStreamReader(r);
        int at = 0;
        while (at < stream.length) {
            int n = Math.min(stream.length - at, 1 + rnd.nextInt(max));
            ByteBuffer b = rnd.nextBoolean() ? ByteBuffer.allocateDirect(n + 3) : ByteBuffer.allocate(n + 3);
            b.put(0, stream, at, n).limit(n);
            reader.feed(b);
            if (b.hasRemaining()) {
                throw new AssertionError("fragment not consumed before the stream's end");
            }
            at += n;
        }
        if (!reader.isComplete() || reader.bytesConsumed() != stream.length) {
            throw new AssertionError("incomplete: " + reader.progress());
        }
        return r;
    }
}
