package io.bloomstore.cli.stress;

import io.bloomstore.core.fs.ForwardingFileSystem;
import io.bloomstore.core.fs.ForwardingWritableFile;
import io.bloomstore.core.fs.LocalFileSystem;
import io.bloomstore.core.fs.WritableFile;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The real file system, recording in a journal what a power loss would keep, so that after the
 * process is killed {@link PowerLoss} can make its files what they would be had the machine lost
 * power at that moment. Journal lines, each appended with one write call:
 * <pre>
 *   C path new|old            before a file is created (new: the name did not exist)
 *   S path length             after a sync returned: the first length bytes are durable
 *   D path hidden             before a delete, done as a rename to the hidden name
 *   R source target hidden|-  before a rename; a replaced target is first renamed to the hidden name
 *   Y dir                     after a directory sync returned: every change before it is durable
 * </pre>
 * Deleted and replaced files wait under a hidden name (never listed) until the next directory
 * sync, so that a power loss can bring them back. Creations, renames, deletions and directory syncs
 * are serialised, so the journal's order is the order they happened in; a file sync records the
 * bytes written before it started, an underestimate when writes run alongside it.
 *
 * <p>Thread safety: safe for concurrent use.
 */
final class SyncJournalFileSystem extends ForwardingFileSystem {
    /** Prefix of the names deleted and replaced files wait under. */
    static final String HIDDEN_PREFIX = ".stress-unsynced-";

    /** The exit status of a child that died inside a MANIFEST sync ({@code --tear-manifest}). */
    static final int TORN_MANIFEST_EXIT = 86;
    /** System property: the seed of the MANIFEST syncs a child dies in; unset, it dies in none. */
    static final String TEAR_PROPERTY = "bloomstore.stress.tearManifest";
    private static final java.util.SplittableRandom TEAR = System.getProperty(TEAR_PROPERTY) == null ? null
            : new java.util.SplittableRandom(Long.parseLong(System.getProperty(TEAR_PROPERTY)));

    /** One MANIFEST sync in four (after the store's open, whose own syncs are not edits). */
    private static synchronized boolean tearNow() {
        return TEAR.nextInt(4) == 0;
    }

    private final FileChannel journal;
    private final Object directoryLock = new Object();
    private final List<Path> hidden = new ArrayList<>();
    private long hiddenNames;

    SyncJournalFileSystem(Path journalFile) throws IOException {
        super(LocalFileSystem.INSTANCE);
        this.journal = FileChannel.open(journalFile, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.APPEND);
    }

    private void log(String line) throws IOException {
        ByteBuffer b = ByteBuffer.wrap((line + "\n").getBytes(StandardCharsets.UTF_8));
        synchronized (journal) {
            while (b.hasRemaining()) {
                journal.write(b);
            }
        }
    }

    private static String name(Path p) {
        return p.toAbsolutePath().normalize().toString();
    }

    /** With the directory lock held: a fresh hidden name beside {@code p}. */
    private Path hiddenName(Path p) {
        return p.resolveSibling(HIDDEN_PREFIX + (hiddenNames++) + "-" + p.getFileName());
    }

    @Override
    public WritableFile create(Path path) throws IOException {
        WritableFile file;
        synchronized (directoryLock) {
            log("C " + name(path) + (base().exists(path) ? " old" : " new"));
            file = base().create(path);
        }
        String name = name(path);
        AtomicLong written = new AtomicLong();
        return new ForwardingWritableFile(file) {
            @Override
            public void write(ByteBuffer data) throws IOException {
                int n = data.remaining();
                super.write(data);
                written.addAndGet(n);
            }

            @Override
            public void sync() throws IOException {
                long durable = written.get();
                if (TEAR != null && name.contains("MANIFEST-") && tearNow()) {
                    // The power fails while the edit just appended is being synced: the parent's
                    // power loss keeps a random prefix of it (--tear-manifest).
                    Runtime.getRuntime().halt(TORN_MANIFEST_EXIT);
                }
                super.sync();
                log("S " + name + " " + durable);
            }
        };
    }

    @Override
    public void delete(Path path) throws IOException {
        synchronized (directoryLock) {
            if (!base().exists(path)) {
                return;
            }
            Path h = hiddenName(path);
            log("D " + name(path) + " " + name(h));
            base().rename(path, h);
            hidden.add(h);
        }
    }

    @Override
    public void rename(Path source, Path target) throws IOException {
        synchronized (directoryLock) {
            Path h = base().exists(target) ? hiddenName(target) : null;
            log("R " + name(source) + " " + name(target) + " " + (h == null ? "-" : name(h)));
            if (h != null) {
                base().rename(target, h);
                hidden.add(h);
            }
            base().rename(source, target);
        }
    }

    @Override
    public List<String> list(Path dir) throws IOException {
        List<String> names = new ArrayList<>(base().list(dir));
        names.removeIf(n -> n.startsWith(HIDDEN_PREFIX));
        return names;
    }

    @Override
    public void syncDirectory(Path dir) throws IOException {
        synchronized (directoryLock) {
            base().syncDirectory(dir);
            log("Y " + name(dir));
            for (Path h : hidden) {
                base().delete(h);
            }
            hidden.clear();
        }
    }
}
