package io.bloomstore.cli.stress;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

/**
 * The expected state of {@code bloomstore stress}, kept outside the store: one file per writer
 * thread to which the child appends, with one write call each, an intent line before it hands a
 * write to the store and an acknowledgement line once the store returned:
 * <pre>
 *   I op sync key=fillerLength|key=- ...     (a put, a delete, or several: a batch)
 *   A op
 * </pre>
 * A line reaches the operating system before the store is called (intent) or after it returned
 * (acknowledgement), so a SIGKILL at any moment leaves a file that names every write the store
 * may hold and marks every write it acknowledged; a power loss is simulated on the store's files
 * only, never on these.
 *
 * <p>Thread safety: a writer is used by its own thread; reading is for the parent after the child
 * is dead.
 */
final class OpLog implements AutoCloseable {
    /** One write as the log records it; {@code fillerLengths[i]} is -1 for a delete. */
    record Op(long op, boolean sync, int[] keys, int[] fillerLengths, boolean acknowledged) {
    }

    private final FileChannel out;

    private OpLog(FileChannel out) {
        this.out = out;
    }

    static Path file(Path dir, int thread) {
        return dir.resolve("ops-" + thread + ".log");
    }

    static OpLog create(Path dir, int thread) throws IOException {
        return new OpLog(FileChannel.open(file(dir, thread), StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING));
    }

    void intent(long op, boolean sync, int[] keys, int[] fillerLengths) throws IOException {
        StringBuilder line = new StringBuilder(32 + 16 * keys.length).append("I ").append(op).append(' ')
                .append(sync ? 1 : 0);
        for (int i = 0; i < keys.length; i++) {
            line.append(' ').append(keys[i]).append('=');
            if (fillerLengths[i] < 0) {
                line.append('-');
            } else {
                line.append(fillerLengths[i]);
            }
        }
        write(line.append('\n'));
    }

    void acknowledged(long op) throws IOException {
        write(new StringBuilder("A ").append(op).append('\n'));
    }

    private void write(CharSequence line) throws IOException {
        ByteBuffer b = ByteBuffer.wrap(line.toString().getBytes(StandardCharsets.US_ASCII));
        while (b.hasRemaining()) {
            out.write(b);
        }
    }

    @Override
    public void close() throws IOException {
        out.close();
    }

    /**
     * The writes of one thread's log in order. A last line without its newline (it cannot happen
     * with one write call per line, but a reader must not trust that) is ignored.
     */
    static List<Op> read(Path dir, int thread) throws IOException {
        Path f = file(dir, thread);
        List<Op> ops = new ArrayList<>();
        if (!Files.exists(f)) {
            return ops;
        }
        String text = Files.readString(f, StandardCharsets.US_ASCII);
        int end = text.lastIndexOf('\n');
        if (end < 0) {
            return ops;
        }
        for (String line : text.substring(0, end).split("\n")) {
            String[] f2 = line.split(" ");
            if (f2[0].equals("I")) {
                int n = f2.length - 3;
                int[] keys = new int[n];
                int[] lengths = new int[n];
                for (int i = 0; i < n; i++) {
                    String[] kv = f2[3 + i].split("=");
                    keys[i] = Integer.parseInt(kv[0]);
                    lengths[i] = kv[1].equals("-") ? -1 : Integer.parseInt(kv[1]);
                }
                ops.add(new Op(Long.parseLong(f2[1]), f2[2].equals("1"), keys, lengths, false));
            } else if (f2[0].equals("A")) {
                Op last = ops.get(ops.size() - 1);
                if (last.op() != Long.parseLong(f2[1])) {
                    throw new IOException(f + ": acknowledgement of op " + f2[1] + " follows op " + last.op());
                }
                ops.set(ops.size() - 1, new Op(last.op(), last.sync(), last.keys(), last.fillerLengths(), true));
            } else {
                throw new IOException(f + ": unreadable line '" + line + "'");
            }
        }
        return ops;
    }
}
