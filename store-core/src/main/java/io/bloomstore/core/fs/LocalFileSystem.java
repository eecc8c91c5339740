package io.bloomstore.core.fs;

import io.bloomstore.core.LockedException;
import java.io.Closeable;
import java.io.FileNotFoundException;
import java.io.FileOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.nio.file.FileSystemException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

/**
 * The real file system: {@link FileChannel}s over the operating system's files.
 *
 * <p>Locks combine an OS lock ({@link FileChannel#tryLock()}) that keeps other processes out with
 * a JVM-wide set of held lock paths, because the OS lock does not stop a second opener in the same
 * JVM reliably. A shared lock is an OS shared lock over bytes [0, 2^62) of the file, taken once per
 * JVM and counted; the exclusive lock covers every byte, so the two exclude each other across
 * processes. {@link #lockForUpdate} is an OS exclusive lock on byte 2^62 alone (shared holders do
 * not cover it), behind a JVM-wide semaphore per path (the OS lock is per process).
 *
 * <p>Thread safety: safe for concurrent use; one shared instance is {@link #INSTANCE}.
 */
public final class LocalFileSystem implements FileSystem {
    public static final LocalFileSystem INSTANCE = new LocalFileSystem();

    private static final Set<Path> HELD_LOCKS = ConcurrentHashMap.newKeySet();
    /** Guards the check of {@link #HELD_LOCKS} against {@link #SHARED}, and {@link #SHARED} itself. */
    private static final Object LOCK_TABLE = new Object();
    private static final Map<Path, SharedHold> SHARED = new HashMap<>();
    private static final Map<Path, Semaphore> UPDATING = new ConcurrentHashMap<>();
    /** Shared lockers lock [0, UPDATE_BYTE); {@link #lockForUpdate} locks the byte at UPDATE_BYTE. */
    private static final long UPDATE_BYTE = 1L << 62;

    private LocalFileSystem() {
    }

    @Override
    public WritableFile create(Path path) throws IOException {
        FileOutputStream out;
        try {
            out = new FileOutputStream(path.toFile());
        } catch (FileNotFoundException e) {
            // The stream's exception names no reason; the channel's open throws the typed one
            // (NoSuchFileException, AccessDeniedException, ...) that callers tell apart.
            FileChannel.open(path, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                    StandardOpenOption.TRUNCATE_EXISTING).close();
            throw e;
        }
        return new ChannelWritableFile(out);
    }

    @Override
    public void overwrite(Path path, ByteBuffer content) throws IOException {
        try (FileChannel ch = FileChannel.open(path, StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
            int n = content.remaining();
            long at = 0;
            while (content.hasRemaining()) {
                at += ch.write(content, at);
            }
            ch.truncate(n);
        }
    }

    @Override
    public RandomReadFile openRead(Path path) throws IOException {
        FileChannel ch = FileChannel.open(path, StandardOpenOption.READ);
        return new RandomReadFile() {
            @Override
            public int read(long position, ByteBuffer dst) throws IOException {
                return ch.read(dst, position);
            }

            @Override
            public long size() throws IOException {
                return ch.size();
            }

            @Override
            public void close() throws IOException {
                ch.close();
            }
        };
    }

    @Override
    public RandomReadFile openReadDirect(Path path) throws IOException {
        return DirectReadFile.open(path);
    }

    @Override
    public boolean exists(Path path) {
        return Files.exists(path);
    }

    @Override
    public long size(Path path) throws IOException {
        return Files.size(path);
    }

    @Override
    public void delete(Path path) throws IOException {
        Files.deleteIfExists(path);
    }

    @Override
    public void rename(Path source, Path target) throws IOException {
        Files.move(source, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }

    @Override
    public List<String> list(Path dir) throws IOException {
        // java.io.File's list: the names straight from the directory, without a Path made for each
        // (a first open of a 10 M-key store spent 4.7 ms listing its 245 files through a directory
        // stream, interpreted). It answers null for any failure; the stream then says which.
        if (dir.getFileSystem() == FileSystems.getDefault()) {
            String[] listed = dir.toFile().list();
            if (listed != null) {
                return new ArrayList<>(Arrays.asList(listed));
            }
        }
        List<String> names = new ArrayList<>();
        // A directory stream, not Files.list's Stream: every open lists its directory, and the
        // stream's machinery is classes and lambdas a one-shot command would link for this alone.
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir)) {
            for (Path p : entries) {
                names.add(p.getFileName().toString());
            }
        }
        return names;
    }

    @Override
    public void createDirectories(Path dir) throws IOException {
        Files.createDirectories(dir);
    }

    /**
     * A hard link where the operating system makes one; a copy where it refuses (another device,
     * a file system without links).
     */
    @Override
    public boolean linkOrCopy(Path existing, Path link) throws IOException {
        try {
            Files.createLink(link, existing);
            return true;
        } catch (UnsupportedOperationException | FileSystemException e) {
            if (e instanceof NoSuchFileException || e instanceof FileAlreadyExistsException
                    || e instanceof AccessDeniedException) {
                throw e;
            }
            FileCopy.copy(this, existing, link, size(existing), null);
            return false;
        }
    }

    @Override
    public boolean syncFile(Path path) throws IOException {
        // Read-only is enough to sync on Linux and macOS, and works on files without write
        // permission (a store restored from read-only backup files); Windows needs write access.
        boolean windows = System.getProperty("os.name", "").startsWith("Windows");
        try (FileChannel ch = FileChannel.open(path, windows ? StandardOpenOption.WRITE : StandardOpenOption.READ)) {
            ch.force(true);
        }
        return true;
    }

    @Override
    public void syncDirectory(Path dir) throws IOException {
        try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
            ch.force(true);
        } catch (IOException e) {
            // Some platforms (Windows) cannot open a directory as a channel; there renames are
            // made durable by the file system itself.
            if (!System.getProperty("os.name", "").startsWith("Windows")) {
                throw e;
            }
        }
    }

    @Override
    public Closeable lock(Path path) throws IOException {
        Path key = path.toAbsolutePath().normalize();
        synchronized (LOCK_TABLE) {
            if (SHARED.containsKey(key) || !HELD_LOCKS.add(key)) {
                throw new LockedException(path);
            }
        }
        FileChannel ch = null;
        try {
            ch = FileChannel.open(path, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
            FileLock lock;
            try {
                lock = ch.tryLock();
            } catch (OverlappingFileLockException e) {
                lock = null;
            }
            if (lock == null) {
                throw new LockedException(path);
            }
            FileChannel held = ch;
            FileLock heldLock = lock;
            // Anonymous classes, not lambdas, for the three locks' releases: the first open of a
            // process would spin each lambda's class (about a millisecond apiece).
            return new Closeable() {
                @Override
                public void close() throws IOException {
                    try {
                        heldLock.release();
                        held.close();
                    } finally {
                        HELD_LOCKS.remove(key);
                    }
                }
            };
        } catch (IOException | RuntimeException e) {
            if (ch != null) {
                ch.close();
            }
            HELD_LOCKS.remove(key);
            throw e;
        }
    }

    @Override
    public Closeable lockShared(Path path) throws IOException {
        Path key = path.toAbsolutePath().normalize();
        synchronized (LOCK_TABLE) {
            if (HELD_LOCKS.contains(key)) {
                throw new LockedException(path);
            }
            SharedHold hold = SHARED.get(key);
            if (hold == null) {
                hold = SharedHold.take(path);
                SHARED.put(key, hold);
            }
            hold.holders++;
            SharedHold held = hold;
            // An AtomicInteger, not an AtomicBoolean: AtomicBoolean's VarHandle costs a one-shot command's
            // start some 2 ms the first time.
            AtomicInteger released = new AtomicInteger();
            return new Closeable() {
                @Override
                public void close() throws IOException {
                    if (released.compareAndSet(0, 1)) {
                        synchronized (LOCK_TABLE) {
                            if (--held.holders == 0) {
                                SHARED.remove(key);
                                held.release();
                            }
                        }
                    }
                }
            };
        }
    }

    /** The in-process gate of {@code key}'s updates, made on first use (no computeIfAbsent lambda). */
    private static Semaphore updateGate(Path key) {
        Semaphore gate = UPDATING.get(key);
        if (gate == null) {
            Semaphore mine = new Semaphore(1);
            gate = UPDATING.putIfAbsent(key, mine);
            if (gate == null) {
                gate = mine;
            }
        }
        return gate;
    }

    @Override
    public Closeable lockForUpdate(Path path) throws IOException {
        Semaphore inJvm = updateGate(path.toAbsolutePath().normalize());
        inJvm.acquireUninterruptibly();
        FileChannel ch = null;
        try {
            ch = FileChannel.open(path, StandardOpenOption.WRITE);
            FileLock lock = ch.lock(UPDATE_BYTE, 1, false);
            FileChannel held = ch;
            AtomicInteger released = new AtomicInteger();
            return new Closeable() {
                @Override
                public void close() throws IOException {
                    if (released.compareAndSet(0, 1)) {
                        try {
                            lock.release();
                            held.close();
                        } finally {
                            inJvm.release();
                        }
                    }
                }
            };
        } catch (IOException | RuntimeException e) {
            if (ch != null) {
                ch.close();
            }
            inJvm.release();
            throw e;
        }
    }

    /** This JVM's OS shared lock on one file, and how many handles hold it. */
    private static final class SharedHold {
        private final FileChannel channel;
        private final FileLock lock;
        int holders;

        private SharedHold(FileChannel channel, FileLock lock) {
            this.channel = channel;
            this.lock = lock;
        }

        /** Opens (creating where allowed) and share-locks {@code path}; holds nothing if it is missing and cannot be made. */
        static SharedHold take(Path path) throws IOException {
            FileChannel ch;
            try {
                ch = FileChannel.open(path, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
            } catch (FileSystemException e) {
                if (!Files.exists(path)) {
                    // A directory we cannot create the lock file in: nobody ever locked it exclusively.
                    return new SharedHold(null, null);
                }
                ch = FileChannel.open(path, StandardOpenOption.READ);
            }
            FileLock lock;
            try {
                lock = ch.tryLock(0, UPDATE_BYTE, true);
            } catch (OverlappingFileLockException e) {
                lock = null;
            }
            if (lock == null) {
                ch.close();
                throw new LockedException(path);
            }
            return new SharedHold(ch, lock);
        }

        void release() throws IOException {
            if (channel != null) {
                try {
                    lock.release();
                } finally {
                    channel.close();
                }
            }
        }
    }

    @Override
    public boolean supportsMapping() {
        return true;
    }

    /**
     * A sequential writer over a file opened for writing (created or truncated); tracks its
     * position so it never asks the OS. Arrays are written through the file's stream, a native
     * call with a few bytes of Java around it; buffers and syncs go through its channel, on the
     * same descriptor and file position. The stream keeps the write path of the WAL short for a
     * fresh JVM's JIT: a channel's write inlines over a kilobyte of JDK bytecode (interruptible
     * I/O, thread sets, temporary direct buffers) into every compile of the put path.
     */
    private static final class ChannelWritableFile implements WritableFile {
        private final FileOutputStream out;
        private final FileChannel ch;
        private long position;

        ChannelWritableFile(FileOutputStream out) {
            this.out = out;
            this.ch = out.getChannel();
        }

        @Override
        public void write(ByteBuffer data) throws IOException {
            while (data.hasRemaining()) {
                position += ch.write(data);
            }
        }

        @Override
        public void write(byte[] data, int offset, int length) throws IOException {
            out.write(data, offset, length);
            position += length;
        }

        @Override
        public long position() {
            return position;
        }

        @Override
        public void sync() throws IOException {
            ch.force(false);
        }

        /** Closes the channel, which closes the stream and the descriptor. */
        @Override
        public void close() throws IOException {
            ch.close();
        }
    }
}
