package io.bloomstore.core.fs;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * A file system that wraps another ({@link MemoryFileSystem} or {@link LocalFileSystem}) and
 * injects the faults storage really has, deterministically from a seed:
 * <ul>
 *   <li>a full disk: once a budget of written bytes is spent, a write stores the bytes that still
 *       fit and fails with "No space left on device" ({@link #failWritesAfterBytes});
 *   <li>failing fsyncs and writes, after a number of successful ones or at random
 *       ({@link #failSyncsAfter}, {@link #failRandomly}), failing reads at random;
 *   <li>a machine crash: every file written through it loses what was not synced
 *       ({@link #crash()}), or keeps a random prefix of it, a write torn at a random byte
 *       ({@link #crashTearing()}), also at a chosen step: the n-th mutating call (create, write,
 *       sync, rename, delete, directory sync) from now on ({@link #crashAfterOperations}), so a
 *       test can crash at every step of a procedure in turn;
 *   <li>one failing call at a chosen step: the n-th call of any kind that can fail (create, open,
 *       read, size, write, sync, rename, delete, list, directory sync, lock) from now on fails
 *       with an I/O error and the disk works again ({@link #failOperationAfter}), so a test can
 *       fail every step of a procedure, reads included, in turn.
 * </ul>
 * A hook run before each file is created ({@link #beforeCreate}) can hold the creating thread
 * (a flush held back, so several WAL segments stay unflushed) or throw into it (an {@link Error}
 * in a flush or compaction); one run before each delete ({@link #beforeDelete}) shows which thread
 * deletes and can make it fail; one run before each lock is taken ({@link #beforeLock}) lets another
 * opener act in the moment before it. Faults can be confined to some files ({@link #onlyFiles}) and are counted
 * ({@link #injectedFaults()}). A crash returns a fresh view of the same files for reopening:
 * this instance, and every file opened through it, fails every later call, so the abandoned
 * store's threads cannot write after the "crash".
 *
 * <p>Directory entries are modelled as POSIX promises them, as LevelDB's and RocksDB's fault
 * injection environments do: a create of a new name, a rename or a delete is durable only once the
 * directory is synced ({@link #syncDirectory}). A crash undoes every such change no directory sync
 * followed, newest first: a created file disappears (whatever of its data was synced), a renamed
 * file gets its old name back and a replaced target returns, a deleted file comes back (with its
 * unsynced data dropped as any file's). {@link #crashTearing()} keeps a random prefix of those
 * changes instead, as a journaling file system that commits them in order may. Until a directory
 * sync, the bytes of a deleted or replaced file are kept in memory (this is a test tool: its files
 * are small), so the base file system always shows the names as they are now. Directory creation
 * is not modelled ({@link #createDirectories} is durable at once).
 *
 * <p>Thread safety: safe for concurrent use; every write, sync and crash is serialised on state
 * shared by all views of the same files.
 */
public final class FaultInjectionFileSystem implements FileSystem {
    /** The message of an injected full-disk failure, as the operating system words it. */
    public static final String DISK_FULL = "No space left on device";
    /** The message of an injected I/O failure, as the operating system words it. */
    public static final String IO_ERROR = "Input/output error";

    private final FileSystem base;
    private final Shared shared;
    private final List<Closeable> locks = new ArrayList<>();
    private volatile boolean dead;

    /** Wraps {@code base}; {@code seed} decides every random fault and tear. */
    public FaultInjectionFileSystem(FileSystem base, long seed) {
        this(base, new Shared(seed));
    }

    private FaultInjectionFileSystem(FileSystem base, Shared shared) {
        this.base = base;
        this.shared = shared;
    }

    /** What all views of the same files share: the faults and what each file has synced. */
    private static final class Shared {
        final Random random;
        final Map<Path, long[]> files = new HashMap<>();
        Predicate<Path> only = p -> true;
        long byteBudget = Long.MAX_VALUE;
        long syncBudget = Long.MAX_VALUE;
        double writeProbability;
        double syncProbability;
        double readProbability;
        long faults;
        long operationsBeforeCrash = Long.MAX_VALUE;
        long operationsBeforeFailure = Long.MAX_VALUE;
        volatile Consumer<Path> beforeCreate = p -> { };
        volatile Consumer<Path> beforeLock = p -> { };
        volatile Consumer<Path> beforeDelete = p -> { };
        volatile Consumer<Path> beforeSync = p -> { };
        volatile Consumer<Path> beforeList = p -> { };
        /** Creates, renames and deletes no directory sync has made durable yet, oldest first. */
        final List<DirectoryChange> unsynced = new ArrayList<>();

        Shared(long seed) {
            this.random = new Random(seed);
        }
    }

    // ---- fault settings ----

    /** After {@code bytes} more bytes are written, the disk is full. */
    public FaultInjectionFileSystem failWritesAfterBytes(long bytes) {
        synchronized (shared) {
            shared.byteBudget = bytes;
        }
        return this;
    }

    /** After {@code syncs} more successful syncs, every sync fails with an I/O error. */
    public FaultInjectionFileSystem failSyncsAfter(long syncs) {
        synchronized (shared) {
            shared.syncBudget = syncs;
        }
        return this;
    }

    /** Each write, sync and read fails with the given probability (0 for never). */
    public FaultInjectionFileSystem failRandomly(double write, double sync, double read) {
        synchronized (shared) {
            shared.writeProbability = write;
            shared.syncProbability = sync;
            shared.readProbability = read;
        }
        return this;
    }

    /** Confines faults to files whose path matches (e.g. tables only). */
    public FaultInjectionFileSystem onlyFiles(Predicate<Path> files) {
        synchronized (shared) {
            shared.only = files;
        }
        return this;
    }

    /**
     * Runs {@code hook} on the creating thread before every file is created, outside any lock: it
     * may block (holding back a flush or compaction) or throw (an unchecked exception or an
     * {@link Error}, which the caller of {@link #create} receives). Replaces the previous hook.
     */
    public FaultInjectionFileSystem beforeCreate(Consumer<Path> hook) {
        shared.beforeCreate = hook;
        return this;
    }

    /** Runs {@code hook} on the deleting thread before every {@link #delete}, outside any lock; it may throw. */
    public FaultInjectionFileSystem beforeDelete(Consumer<Path> hook) {
        shared.beforeDelete = hook;
        return this;
    }

    /**
     * Runs {@code hook} on the syncing thread before every sync of a written file, outside any
     * lock: it may block (a slow fsync, holding back whoever syncs) or throw.
     */
    public FaultInjectionFileSystem beforeSync(Consumer<Path> hook) {
        shared.beforeSync = hook;
        return this;
    }

    /** Runs {@code hook} on the listing thread before every {@link #list}, outside any lock; it may throw. */
    public FaultInjectionFileSystem beforeList(Consumer<Path> hook) {
        shared.beforeList = hook;
        return this;
    }

    /** Runs {@code hook} on the locking thread before every {@link #lock}, outside any lock. */
    public FaultInjectionFileSystem beforeLock(Consumer<Path> hook) {
        shared.beforeLock = hook;
        return this;
    }

    /**
     * After {@code operations} more mutating calls succeed, the next one crashes the machine instead
     * (as {@link #crash()}: unsynced data lost, locks released) and fails, as does every later call
     * on this view; reopen through the base file system.
     */
    public FaultInjectionFileSystem crashAfterOperations(long operations) {
        synchronized (shared) {
            shared.operationsBeforeCrash = operations;
        }
        return this;
    }

    /**
     * After {@code operations} more calls that can fail succeed (see the class comment for which),
     * the next one fails with an I/O error; later calls work again.
     */
    public FaultInjectionFileSystem failOperationAfter(long operations) {
        synchronized (shared) {
            shared.operationsBeforeFailure = operations;
        }
        return this;
    }

    /** Removes every fault setting: the disk works again. */
    public FaultInjectionFileSystem heal() {
        synchronized (shared) {
            shared.byteBudget = Long.MAX_VALUE;
            shared.syncBudget = Long.MAX_VALUE;
            shared.writeProbability = 0;
            shared.syncProbability = 0;
            shared.readProbability = 0;
            shared.only = p -> true;
            shared.operationsBeforeCrash = Long.MAX_VALUE;
            shared.operationsBeforeFailure = Long.MAX_VALUE;
            shared.beforeCreate = p -> { };
            shared.beforeLock = p -> { };
            shared.beforeDelete = p -> { };
            shared.beforeSync = p -> { };
            shared.beforeList = p -> { };
        }
        return this;
    }

    /** Faults injected so far, by all views. */
    public long injectedFaults() {
        synchronized (shared) {
            return shared.faults;
        }
    }

    // ---- crashes ----

    /**
     * A machine crash: every file written through this file system is cut back to its last
     * sync, locks are released, and this view stops working. Returns the view to reopen with.
     */
    public FaultInjectionFileSystem crash() throws IOException {
        return crash(false);
    }

    /**
     * As {@link #crash()}, but each file keeps a random prefix of its unsynced bytes: the last
     * writes are torn at a random byte.
     */
    public FaultInjectionFileSystem crashTearing() throws IOException {
        return crash(true);
    }

    private FaultInjectionFileSystem crash(boolean tear) throws IOException {
        synchronized (shared) {
            dead = true;
            shared.operationsBeforeCrash = Long.MAX_VALUE;
            List<DirectoryChange> changes = shared.unsynced;
            int kept = tear ? shared.random.nextInt(changes.size() + 1) : 0;
            for (int i = changes.size() - 1; i >= kept; i--) {
                changes.get(i).undo();
            }
            changes.clear();
            for (Map.Entry<Path, long[]> e : shared.files.entrySet()) {
                long written = e.getValue()[0];
                long synced = e.getValue()[1];
                if (written > synced) {
                    long keep = tear ? synced + (long) (shared.random.nextDouble() * (written - synced + 1)) : synced;
                    truncate(e.getKey(), Math.min(keep, written));
                }
                e.getValue()[0] = e.getValue()[1] = Math.min(written, base.size(e.getKey()));
            }
            for (Closeable lock : locks) {
                lock.close();
            }
            locks.clear();
            return new FaultInjectionFileSystem(base, shared);
        }
    }

    /**
     * A change to a directory entry that no directory sync has made durable. {@code removed} holds
     * the bytes of the deleted file, or of the target a rename replaced (null when there is none),
     * and {@code removedState} its written and synced byte counts when this file system wrote it.
     */
    private final class DirectoryChange {
        final Kind kind;
        final Path path;
        final Path target;
        final byte[] removed;
        final long[] removedState;

        DirectoryChange(Kind kind, Path path, Path target, byte[] removed, long[] removedState) {
            this.kind = kind;
            this.path = path;
            this.target = target;
            this.removed = removed;
            this.removedState = removedState;
        }

        Path directory() {
            return directoryOf(path);
        }

        /** With the shared lock held, at a crash: puts the directory back as it was before. */
        void undo() throws IOException {
            switch (kind) {
                case CREATE -> {
                    base.delete(path);
                    shared.files.remove(path);
                }
                case DELETE -> {
                    restoreFile(path, removed);
                    restoreState(path, removedState);
                }
                case RENAME -> {
                    base.rename(target, path);
                    long[] state = shared.files.remove(target);
                    restoreState(path, state);
                    if (removed != null) {
                        restoreFile(target, removed);
                        restoreState(target, removedState);
                    }
                }
            }
        }

        private void restoreState(Path p, long[] state) {
            if (state != null) {
                shared.files.put(p, state);
            }
        }
    }

    private enum Kind { CREATE, DELETE, RENAME }

    private static Path directoryOf(Path path) {
        Path parent = path.toAbsolutePath().normalize().getParent();
        return parent == null ? path.toAbsolutePath().getRoot() : parent;
    }

    /** The whole contents of a file of the base file system, kept while its removal is not durable. */
    private byte[] readAll(Path path) throws IOException {
        try (RandomReadFile in = base.openRead(path)) {
            ByteBuffer bytes = ByteBuffer.allocate(Math.toIntExact(in.size()));
            in.readFully(0, bytes);
            return bytes.array();
        }
    }

    /** Puts a removed file back, durably, through the base file system. */
    private void restoreFile(Path path, byte[] bytes) throws IOException {
        try (WritableFile out = base.create(path)) {
            out.write(ByteBuffer.wrap(bytes));
            out.sync();
        }
    }

    /** Rewrites a file with only its first {@code length} bytes, through the base file system. */
    private void truncate(Path path, long length) throws IOException {
        ByteBuffer kept = ByteBuffer.allocate((int) length);
        try (RandomReadFile in = base.openRead(path)) {
            in.readFully(0, kept);
        }
        kept.flip();
        try (WritableFile out = base.create(path)) {
            out.write(kept);
            out.sync();
        }
    }

    // ---- the file system ----

    @Override
    public WritableFile create(Path path) throws IOException {
        checkAlive();
        shared.beforeCreate.accept(path);
        synchronized (shared) {
            step("create", path);
            boolean isNew = !base.exists(path);
            WritableFile file = base.create(path);
            long[] state = {0, 0};
            shared.files.put(path, state);
            if (isNew) {
                shared.unsynced.add(new DirectoryChange(Kind.CREATE, path, null, null, null));
            }
            return new FaultyWritableFile(path, file, state);
        }
    }

    @Override
    public RandomReadFile openRead(Path path) throws IOException {
        checkAlive();
        countUnlocked("open", path);
        RandomReadFile file = base.openRead(path);
        return new RandomReadFile() {
            @Override
            public int read(long position, ByteBuffer dst) throws IOException {
                checkAlive();
                synchronized (shared) {
                    count("read", path);
                    if (shared.only.test(path) && shared.random.nextDouble() < shared.readProbability) {
                        shared.faults++;
                        throw new IOException(IO_ERROR + " (injected) reading " + path);
                    }
                }
                return file.read(position, dst);
            }

            @Override
            public long size() throws IOException {
                return file.size();
            }

            @Override
            public void close() throws IOException {
                file.close();
            }
        };
    }

    @Override
    public boolean exists(Path path) {
        return base.exists(path);
    }

    @Override
    public long size(Path path) throws IOException {
        countUnlocked("size", path);
        return base.size(path);
    }

    @Override
    public void delete(Path path) throws IOException {
        checkAlive();
        shared.beforeDelete.accept(path);
        synchronized (shared) {
            step("delete", path);
            if (base.exists(path)) {
                byte[] bytes = readAll(path);
                base.delete(path);
                long[] state = shared.files.remove(path);
                shared.unsynced.add(new DirectoryChange(Kind.DELETE, path, null, bytes, state));
            }
        }
    }

    @Override
    public void rename(Path source, Path target) throws IOException {
        synchronized (shared) {
            step("rename", source);
            if (!base.exists(source)) {
                throw new NoSuchFileException(source.toString());
            }
            byte[] replaced = base.exists(target) ? readAll(target) : null;
            long[] replacedState = shared.files.remove(target);
            base.rename(source, target);
            long[] state = shared.files.remove(source);
            if (state != null) {
                shared.files.put(target, state);
            }
            shared.unsynced.add(new DirectoryChange(Kind.RENAME, source, target, replaced, replacedState));
        }
    }

    @Override
    public List<String> list(Path dir) throws IOException {
        shared.beforeList.accept(dir);
        countUnlocked("list", dir);
        return base.list(dir);
    }

    @Override
    public void createDirectories(Path dir) throws IOException {
        checkAlive();
        base.createDirectories(dir);
    }

    @Override
    public void syncDirectory(Path dir) throws IOException {
        synchronized (shared) {
            step("directory sync", dir);
            base.syncDirectory(dir);
            Path synced = dir.toAbsolutePath().normalize();
            shared.unsynced.removeIf(c -> c.directory().equals(synced));
        }
    }

    @Override
    public Closeable lock(Path path) throws IOException {
        checkAlive();
        shared.beforeLock.accept(path);
        synchronized (shared) {
            checkAlive();
            count("lock", path);
            Closeable lock = base.lock(path);
            locks.add(lock);
            return () -> {
                synchronized (shared) {
                    if (locks.remove(lock)) {
                        lock.close();
                    }
                }
            };
        }
    }

    @Override
    public Closeable lockShared(Path path) throws IOException {
        checkAlive();
        shared.beforeLock.accept(path);
        synchronized (shared) {
            checkAlive();
            Closeable lock = base.lockShared(path);
            locks.add(lock);
            return () -> {
                synchronized (shared) {
                    if (locks.remove(lock)) {
                        lock.close();
                    }
                }
            };
        }
    }

    @Override
    public Closeable lockForUpdate(Path path) throws IOException {
        checkAlive();
        return base.lockForUpdate(path);
    }

    @Override
    public boolean supportsMapping() {
        return base.supportsMapping();
    }

    /** With the shared lock held, before a call that can fail: the failure of {@link #failOperationAfter}. */
    private void count(String what, Path path) throws IOException {
        if (shared.operationsBeforeFailure == 0) {
            shared.operationsBeforeFailure = Long.MAX_VALUE;
            shared.faults++;
            throw new IOException(IO_ERROR + " (injected) at " + what + " of " + path);
        }
        if (shared.operationsBeforeFailure != Long.MAX_VALUE) {
            shared.operationsBeforeFailure--;
        }
    }

    /** As {@link #count}, for a call that can fail and wait for it, without holding the shared lock. */
    private void countUnlocked(String what, Path path) throws IOException {
        synchronized (shared) {
            count(what, path);
        }
    }

    /**
     * With the shared lock held, before a mutating call: the crash of {@link #crashAfterOperations},
     * then the failure of {@link #failOperationAfter}.
     */
    private void step(String what, Path path) throws IOException {
        checkAlive();
        if (shared.operationsBeforeCrash == 0) {
            crash(false);
            throw new IOException("machine crash (injected) at " + what + " of " + path);
        }
        if (shared.operationsBeforeCrash != Long.MAX_VALUE) {
            shared.operationsBeforeCrash--;
        }
        count(what, path);
    }

    private void checkAlive() throws IOException {
        if (dead) {
            throw new IOException("file system crashed (simulated); reopen through the view crash() returned");
        }
    }

    /** Counts written and synced bytes of one file and injects write and sync faults. */
    private final class FaultyWritableFile implements WritableFile {
        private final Path path;
        private final WritableFile file;
        private final long[] state;

        FaultyWritableFile(Path path, WritableFile file, long[] state) {
            this.path = path;
            this.file = file;
            this.state = state;
        }

        @Override
        public void write(ByteBuffer data) throws IOException {
            synchronized (shared) {
                step("write", path);
                boolean faulty = shared.only.test(path);
                if (faulty && shared.random.nextDouble() < shared.writeProbability) {
                    shared.faults++;
                    throw new IOException(IO_ERROR + " (injected) writing " + path);
                }
                int n = data.remaining();
                if (faulty && n > shared.byteBudget) {
                    // A full disk takes what fits, then refuses the rest.
                    ByteBuffer fits = data.slice().limit((int) shared.byteBudget);
                    state[0] += fits.remaining();
                    file.write(fits);
                    shared.byteBudget = 0;
                    shared.faults++;
                    throw new IOException(DISK_FULL + " (injected) writing " + path);
                }
                if (faulty && shared.byteBudget != Long.MAX_VALUE) {
                    shared.byteBudget -= n;
                }
                state[0] += n;
                file.write(data);
            }
        }

        @Override
        public long position() {
            return file.position();
        }

        @Override
        public void sync() throws IOException {
            shared.beforeSync.accept(path);
            synchronized (shared) {
                step("sync", path);
                if (shared.only.test(path)) {
                    if (shared.syncBudget == 0 || shared.random.nextDouble() < shared.syncProbability) {
                        shared.faults++;
                        throw new IOException(IO_ERROR + " (injected fsync failure) syncing " + path);
                    }
                    if (shared.syncBudget != Long.MAX_VALUE) {
                        shared.syncBudget--;
                    }
                }
                file.sync();
                state[1] = state[0];
            }
        }

        @Override
        public void close() throws IOException {
            file.close();
        }
    }
}
