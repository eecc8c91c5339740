package io.bloomstore.core.fs;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * What all views of one {@link FaultInjectionFileSystem} share: the fault settings and the faults
 * injected so far, the written and synced byte counts of every file written through it, and the
 * directory changes no directory sync has made durable yet, which a crash undoes
 * ({@link #loseUnsynced}).
 *
 * <p>Thread safety: every field but the hooks is read and written with this object's lock held;
 * the views, their files and their crashes all serialise on it. The hooks are volatile, since
 * they run outside the lock.
 */
final class FaultPlan {
    final Random random;
    /** Per file written through the views: its written and synced byte counts. */
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
    volatile Consumer<Path> beforeRead = p -> { };
    /** Creates, renames and deletes no directory sync has made durable yet, oldest first. */
    final List<DirectoryChange> unsynced = new ArrayList<>();

    FaultPlan(long seed) {
        this.random = new Random(seed);
    }

    /** With the lock held: removes every fault setting, so the disk works again. */
    void heal() {
        byteBudget = Long.MAX_VALUE;
        syncBudget = Long.MAX_VALUE;
        writeProbability = 0;
        syncProbability = 0;
        readProbability = 0;
        only = p -> true;
        operationsBeforeCrash = Long.MAX_VALUE;
        operationsBeforeFailure = Long.MAX_VALUE;
        beforeCreate = p -> { };
        beforeLock = p -> { };
        beforeDelete = p -> { };
        beforeSync = p -> { };
        beforeList = p -> { };
        beforeRead = p -> { };
    }

    /**
     * With the lock held, before a call that can fail: the failure of
     * {@link FaultInjectionFileSystem#failOperationAfter}.
     */
    void count(String what, Path path) throws IOException {
        if (operationsBeforeFailure == 0) {
            operationsBeforeFailure = Long.MAX_VALUE;
            faults++;
            throw new IOException(FaultInjectionFileSystem.IO_ERROR + " (injected) at " + what + " of " + path);
        }
        if (operationsBeforeFailure != Long.MAX_VALUE) {
            operationsBeforeFailure--;
        }
    }

    /** As {@link #count}, for a call that can fail and wait for it, without holding the lock. */
    synchronized void countUnlocked(String what, Path path) throws IOException {
        count(what, path);
    }

    /**
     * With the lock held, before a mutating call: whether the machine crashes now, as
     * {@link FaultInjectionFileSystem#crashAfterOperations} asked; else one step nearer.
     */
    boolean crashDue() {
        if (operationsBeforeCrash == 0) {
            return true;
        }
        if (operationsBeforeCrash != Long.MAX_VALUE) {
            operationsBeforeCrash--;
        }
        return false;
    }

    /**
     * With the lock held, at a crash: undoes the directory changes no directory sync followed,
     * newest first (all of them, or with {@code tear} all but a random prefix), and cuts every
     * file written through {@code base} back to its last sync (with {@code tear}, to a random
     * point between its last sync and its end).
     */
    void loseUnsynced(FileSystem base, boolean tear) throws IOException {
        operationsBeforeCrash = Long.MAX_VALUE;
        int kept = tear ? random.nextInt(unsynced.size() + 1) : 0;
        for (int i = unsynced.size() - 1; i >= kept; i--) {
            unsynced.get(i).undo(base, files);
        }
        unsynced.clear();
        for (Map.Entry<Path, long[]> e : files.entrySet()) {
            long written = e.getValue()[0];
            long synced = e.getValue()[1];
            if (written > synced) {
                long keep = tear ? synced + (long) (random.nextDouble() * (written - synced + 1)) : synced;
                truncate(base, e.getKey(), Math.min(keep, written));
            }
            e.getValue()[0] = e.getValue()[1] = Math.min(written, base.size(e.getKey()));
        }
    }

    /** Rewrites a file with only its first {@code length} bytes, through the base file system. */
    private static void truncate(FileSystem base, Path path, long length) throws IOException {
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
}
