package io.bloomstore.core.fs;

import io.bloomstore.core.LockedException;
import java.io.Closeable;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * An in-memory file system for tests. Each file remembers how many of its bytes were synced, so
 * {@link #dropUnsyncedData()} can simulate a machine crash: every file loses what was written after
 * its last {@link WritableFile#sync()}. Files are shared by reference, so a reader opened before a
 * write sees it (like the OS page cache).
 *
 * <p>Files cannot be memory-mapped ({@link #supportsMapping()} is false).
 *
 * <p>Thread safety: safe for concurrent use; each file's bytes are guarded by the file's monitor.
 */
public class MemoryFileSystem implements FileSystem {
    private final Map<Path, MemFile> files = new ConcurrentHashMap<>();
    private final Set<Path> directories = ConcurrentHashMap.newKeySet();
    private final Set<Path> locks = ConcurrentHashMap.newKeySet();
    /** Shared lock holders per path; guarded by itself, and checked against {@link #locks} under it. */
    private final Map<Path, Integer> sharedLocks = new HashMap<>();
    private final Map<Path, Semaphore> updating = new ConcurrentHashMap<>();

    private static Path key(Path path) {
        return path.toAbsolutePath().normalize();
    }

    @Override
    public WritableFile create(Path path) throws IOException {
        Path k = key(path);
        requireParent(k);
        MemFile file = new MemFile();
        files.put(k, file);
        return new MemWritableFile(file);
    }

    @Override
    public RandomReadFile openRead(Path path) throws IOException {
        MemFile file = file(path);
        return new RandomReadFile() {
            @Override
            public int read(long position, ByteBuffer dst) {
                return file.read(position, dst);
            }

            @Override
            public long size() {
                return file.size();
            }

            @Override
            public void close() {
            }
        };
    }

    @Override
    public boolean exists(Path path) {
        Path k = key(path);
        return files.containsKey(k) || directories.contains(k);
    }

    @Override
    public long size(Path path) throws IOException {
        return file(path).size();
    }

    @Override
    public void delete(Path path) {
        files.remove(key(path));
    }

    @Override
    public void rename(Path source, Path target) throws IOException {
        MemFile file = files.remove(key(source));
        if (file == null) {
            throw new NoSuchFileException(source.toString());
        }
        files.put(key(target), file);
    }

    @Override
    public List<String> list(Path dir) throws IOException {
        Path d = key(dir);
        if (!directories.contains(d)) {
            throw new NoSuchFileException(dir.toString());
        }
        Set<String> names = new HashSet<>();
        for (Path p : files.keySet()) {
            if (d.equals(p.getParent())) {
                names.add(p.getFileName().toString());
            }
        }
        for (Path p : directories) {
            if (d.equals(p.getParent())) {
                names.add(p.getFileName().toString());
            }
        }
        return new ArrayList<>(names);
    }

    @Override
    public void createDirectories(Path dir) {
        for (Path p = key(dir); p != null; p = p.getParent()) {
            directories.add(p);
        }
    }

    @Override
    public void syncDirectory(Path dir) {
        // Directory entries are never lost by this file system; only file contents are.
    }

    @Override
    public Closeable lock(Path path) throws IOException {
        Path k = key(path);
        if (!locks.add(k)) {
            throw new LockedException(path);
        }
        synchronized (sharedLocks) {
            if (sharedLocks.containsKey(k)) {
                locks.remove(k);
                throw new LockedException(path);
            }
        }
        files.computeIfAbsent(k, p -> new MemFile());
        return () -> locks.remove(k);
    }

    @Override
    public Closeable lockShared(Path path) throws IOException {
        Path k = key(path);
        synchronized (sharedLocks) {
            if (locks.contains(k)) {
                throw new LockedException(path);
            }
            sharedLocks.merge(k, 1, Integer::sum);
        }
        files.computeIfAbsent(k, p -> new MemFile());
        AtomicBoolean released = new AtomicBoolean();
        return () -> {
            if (released.compareAndSet(false, true)) {
                synchronized (sharedLocks) {
                    sharedLocks.computeIfPresent(k, (p, n) -> n == 1 ? null : n - 1);
                }
            }
        };
    }

    @Override
    public Closeable lockForUpdate(Path path) throws IOException {
        Semaphore s = updating.computeIfAbsent(key(path), p -> new Semaphore(1));
        s.acquireUninterruptibly();
        AtomicBoolean released = new AtomicBoolean();
        return () -> {
            if (released.compareAndSet(false, true)) {
                s.release();
            }
        };
    }

    @Override
    public boolean supportsMapping() {
        return false;
    }

    @Override
    public boolean syncFile(Path path) throws IOException {
        MemFile file = files.get(key(path));
        if (file == null) {
            throw new java.nio.file.NoSuchFileException(path.toString());
        }
        file.sync();
        return true;
    }

    /**
     * Simulates a crash: every file is cut back to the bytes it had at its last sync, and all
     * locks are released (the process that held them is gone).
     */
    public void dropUnsyncedData() {
        for (MemFile file : files.values()) {
            file.dropUnsynced();
        }
        locks.clear();
    }

    /**
     * Simulates the crash of the process only: locks are released, but every byte written stays
     * (the operating system had it), synced or not.
     */
    public void crashProcess() {
        locks.clear();
    }

    /** A copy of a file's current bytes (synced or not), for tests that inspect or damage files. */
    public byte[] contents(Path path) throws IOException {
        return file(path).snapshot();
    }

    /** Replaces a file's bytes, all counted as synced (for tests that damage files). */
    public void setContents(Path path, byte[] bytes) {
        MemFile file = files.computeIfAbsent(key(path), p -> new MemFile());
        file.replace(bytes);
    }

    private MemFile file(Path path) throws IOException {
        MemFile file = files.get(key(path));
        if (file == null) {
            throw new FileNotFoundException(path.toString());
        }
        return file;
    }

    private void requireParent(Path k) throws IOException {
        Path parent = k.getParent();
        if (parent != null && !directories.contains(parent)) {
            throw new NoSuchFileException(parent.toString());
        }
    }

    /** One file's bytes and how many of them are durable. */
    private static final class MemFile {
        private byte[] data = new byte[256];
        private int size;
        private int synced;

        synchronized void append(ByteBuffer src) {
            int n = src.remaining();
            if (size + n > data.length) {
                data = Arrays.copyOf(data, Math.max(size + n, data.length * 2));
            }
            src.get(data, size, n);
            size += n;
        }

        synchronized int read(long position, ByteBuffer dst) {
            if (position >= size) {
                return -1;
            }
            int n = (int) Math.min(dst.remaining(), size - position);
            dst.put(data, (int) position, n);
            return n;
        }

        synchronized int size() {
            return size;
        }

        synchronized void sync() {
            synced = size;
        }

        synchronized void dropUnsynced() {
            size = synced;
        }

        synchronized byte[] snapshot() {
            return Arrays.copyOf(data, size);
        }

        synchronized void replace(byte[] bytes) {
            data = bytes.clone();
            size = bytes.length;
            synced = size;
        }
    }

    private static final class MemWritableFile implements WritableFile {
        private final MemFile file;
        private long position;

        MemWritableFile(MemFile file) {
            this.file = file;
        }

        @Override
        public void write(ByteBuffer data) {
            position += data.remaining();
            file.append(data);
        }

        @Override
        public long position() {
            return position;
        }

        @Override
        public void sync() {
            file.sync();
        }

        @Override
        public void close() {
        }
    }
}
