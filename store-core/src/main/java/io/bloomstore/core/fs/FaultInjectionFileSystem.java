package io.bloomstore.core.fs;

import java.io.Closeable;
import java.io.IOException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
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
 * <p>Its parts: the settings, counts and unsynced state all views share ({@link FaultPlan}), the
 * directory changes a crash undoes ({@link DirectoryChange}), and the wrappers of the files it
 * opens ({@link FaultyWritableFile}, {@link FaultyReadFile}).
 *
 * <p>Thread safety: safe for concurrent use; every write, sync and crash is serialised on state
 * shared by all views of the same files.
 */
public final class FaultInjectionFileSystem extends ForwardingFileSystem {
    /** The message of an injected full-disk failure, as the operating system words it. */
    public static final String DISK_FULL = "No space left on device";
    /** The message of an injected I/O failure, as the operating system words it. */
    public static final String IO_ERROR = "Input/output error";

    private final FaultPlan plan;
    private final List<Closeable> locks = new ArrayList<>();
    private volatile boolean dead;

    /** Wraps {@code base}; {@code seed} decides every random fault and tear. */
    public FaultInjectionFileSystem(FileSystem base, long seed) {
        this(base, new FaultPlan(seed));
    }

    private FaultInjectionFileSystem(FileSystem base, FaultPlan plan) {
        super(base);
        this.plan = plan;
    }

    // ---- fault settings ----

    /** After {@code bytes} more bytes are written, the disk is full. */
    public FaultInjectionFileSystem failWritesAfterBytes(long bytes) {
        return change(p -> p.byteBudget = bytes);
    }

    /** After {@code syncs} more successful syncs, every sync fails with an I/O error. */
    public FaultInjectionFileSystem failSyncsAfter(long syncs) {
        return change(p -> p.syncBudget = syncs);
    }

    /** Each write, sync and read fails with the given probability (0 for never). */
    public FaultInjectionFileSystem failRandomly(double write, double sync, double read) {
        return change(p -> {
            p.writeProbability = write;
            p.syncProbability = sync;
            p.readProbability = read;
        });
    }

    /** Confines faults to files whose path matches (e.g. tables only). */
    public FaultInjectionFileSystem onlyFiles(Predicate<Path> files) {
        return change(p -> p.only = files);
    }

    /**
     * Runs {@code hook} on the creating thread before every file is created, outside any lock: it
     * may block (holding back a flush or compaction) or throw (an unchecked exception or an
     * {@link Error}, which the caller of {@link #create} receives). Replaces the previous hook.
     */
    public FaultInjectionFileSystem beforeCreate(Consumer<Path> hook) {
        plan.beforeCreate = hook;
        return this;
    }

    /** Runs {@code hook} on the deleting thread before every {@link #delete}, outside any lock; it may throw. */
    public FaultInjectionFileSystem beforeDelete(Consumer<Path> hook) {
        plan.beforeDelete = hook;
        return this;
    }

    /**
     * Runs {@code hook} on the syncing thread before every sync of a written file, outside any
     * lock: it may block (a slow fsync, holding back whoever syncs) or throw.
     */
    public FaultInjectionFileSystem beforeSync(Consumer<Path> hook) {
        plan.beforeSync = hook;
        return this;
    }

    /** Runs {@code hook} on the listing thread before every {@link #list}, outside any lock; it may throw. */
    public FaultInjectionFileSystem beforeList(Consumer<Path> hook) {
        plan.beforeList = hook;
        return this;
    }

    /**
     * Runs {@code hook} on the reading thread before every file is opened for reading or its size
     * asked (where a filter sidecar's check starts), outside any lock: it may block (holding a
     * reader mid-way) or throw.
     */
    public FaultInjectionFileSystem beforeRead(Consumer<Path> hook) {
        plan.beforeRead = hook;
        return this;
    }

    /** Runs {@code hook} on the locking thread before every {@link #lock}, outside any lock. */
    public FaultInjectionFileSystem beforeLock(Consumer<Path> hook) {
        plan.beforeLock = hook;
        return this;
    }

    /**
     * After {@code operations} more mutating calls succeed, the next one crashes the machine instead
     * (as {@link #crash()}: unsynced data lost, locks released) and fails, as does every later call
     * on this view; reopen through the base file system.
     */
    public FaultInjectionFileSystem crashAfterOperations(long operations) {
        return change(p -> p.operationsBeforeCrash = operations);
    }

    /**
     * After {@code operations} more calls that can fail succeed (see the class comment for which),
     * the next one fails with an I/O error; later calls work again.
     */
    public FaultInjectionFileSystem failOperationAfter(long operations) {
        return change(p -> p.operationsBeforeFailure = operations);
    }

    /** Removes every fault setting: the disk works again. */
    public FaultInjectionFileSystem heal() {
        return change(FaultPlan::heal);
    }

    /** Applies {@code setting} to the plan all views share, with its lock held. */
    private FaultInjectionFileSystem change(Consumer<FaultPlan> setting) {
        synchronized (plan) {
            setting.accept(plan);
        }
        return this;
    }

    /** Faults injected so far, by all views. */
    public long injectedFaults() {
        synchronized (plan) {
            return plan.faults;
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
        synchronized (plan) {
            dead = true;
            plan.loseUnsynced(base(), tear);
            for (Closeable lock : locks) {
                lock.close();
            }
            locks.clear();
            return new FaultInjectionFileSystem(base(), plan);
        }
    }

    // ---- the file system ----

    @Override
    public WritableFile create(Path path) throws IOException {
        checkAlive();
        plan.beforeCreate.accept(path);
        synchronized (plan) {
            step("create", path);
            boolean isNew = !base().exists(path);
            WritableFile file = base().create(path);
            long[] state = {0, 0};
            plan.files.put(path, state);
            if (isNew) {
                plan.unsynced.add(new DirectoryChange(DirectoryChange.Kind.CREATE, path, null, null, null));
            }
            return new FaultyWritableFile(this, plan, path, file, state);
        }
    }

    @Override
    public RandomReadFile openRead(Path path) throws IOException {
        checkAlive();
        plan.beforeRead.accept(path);
        plan.countUnlocked("open", path);
        return new FaultyReadFile(this, plan, path, base().openRead(path));
    }

    /** Reads as {@link #openRead} does, faults included: the page cache is not modelled. */
    @Override
    public RandomReadFile openReadDirect(Path path) throws IOException {
        return openRead(path);
    }

    @Override
    public long size(Path path) throws IOException {
        plan.beforeRead.accept(path);
        plan.countUnlocked("size", path);
        return base().size(path);
    }

    @Override
    public void delete(Path path) throws IOException {
        checkAlive();
        plan.beforeDelete.accept(path);
        synchronized (plan) {
            step("delete", path);
            if (base().exists(path)) {
                byte[] bytes = DirectoryChange.readAll(base(), path);
                base().delete(path);
                long[] state = plan.files.remove(path);
                plan.unsynced.add(new DirectoryChange(DirectoryChange.Kind.DELETE, path, null, bytes, state));
            }
        }
    }

    @Override
    public void rename(Path source, Path target) throws IOException {
        synchronized (plan) {
            step("rename", source);
            if (!base().exists(source)) {
                throw new NoSuchFileException(source.toString());
            }
            byte[] replaced = base().exists(target) ? DirectoryChange.readAll(base(), target) : null;
            long[] replacedState = plan.files.remove(target);
            base().rename(source, target);
            long[] state = plan.files.remove(source);
            if (state != null) {
                plan.files.put(target, state);
            }
            plan.unsynced.add(new DirectoryChange(DirectoryChange.Kind.RENAME, source, target, replaced,
                    replacedState));
        }
    }

    @Override
    public List<String> list(Path dir) throws IOException {
        plan.beforeList.accept(dir);
        plan.countUnlocked("list", dir);
        return base().list(dir);
    }

    @Override
    public void createDirectories(Path dir) throws IOException {
        checkAlive();
        base().createDirectories(dir);
    }

    /**
     * Syncs an existing file as a sync of its writable file does (the same hook, budget and
     * injected failures), so that the file's bytes written through this file system count as
     * synced at the next crash.
     */
    @Override
    public boolean syncFile(Path path) throws IOException {
        plan.beforeSync.accept(path);
        synchronized (plan) {
            step("sync", path);
            if (plan.only.test(path)) {
                if (plan.syncBudget == 0 || plan.random.nextDouble() < plan.syncProbability) {
                    plan.faults++;
                    throw new IOException(IO_ERROR + " (injected fsync failure) syncing " + path);
                }
                if (plan.syncBudget != Long.MAX_VALUE) {
                    plan.syncBudget--;
                }
            }
            if (!base().syncFile(path)) {
                return false;
            }
            long[] state = plan.files.get(path);
            if (state != null) {
                state[1] = state[0];
            }
            return true;
        }
    }

    @Override
    public void syncDirectory(Path dir) throws IOException {
        synchronized (plan) {
            step("directory sync", dir);
            base().syncDirectory(dir);
            Path synced = dir.toAbsolutePath().normalize();
            plan.unsynced.removeIf(c -> c.directory().equals(synced));
        }
    }

    @Override
    public Closeable lock(Path path) throws IOException {
        checkAlive();
        plan.beforeLock.accept(path);
        synchronized (plan) {
            checkAlive();
            plan.count("lock", path);
            return released(base().lock(path));
        }
    }

    @Override
    public Closeable lockShared(Path path) throws IOException {
        checkAlive();
        plan.beforeLock.accept(path);
        synchronized (plan) {
            checkAlive();
            return released(base().lockShared(path));
        }
    }

    /** With the plan's lock held: keeps {@code lock} for a crash to release, and a handle that releases it once. */
    private Closeable released(Closeable lock) {
        locks.add(lock);
        return () -> {
            synchronized (plan) {
                if (locks.remove(lock)) {
                    lock.close();
                }
            }
        };
    }

    @Override
    public Closeable lockForUpdate(Path path) throws IOException {
        checkAlive();
        return base().lockForUpdate(path);
    }

    /**
     * With the plan's lock held, before a mutating call: the crash of {@link #crashAfterOperations},
     * then the failure of {@link #failOperationAfter}.
     */
    void step(String what, Path path) throws IOException {
        checkAlive();
        if (plan.crashDue()) {
            crash(false);
            throw new IOException("machine crash (injected) at " + what + " of " + path);
        }
        plan.count(what, path);
    }

    void checkAlive() throws IOException {
        if (dead) {
            throw new IOException("file system crashed (simulated); reopen through the view crash() returned");
        }
    }
}
