package io.bloomstore.core;

import io.bloomstore.core.db.Repairer;
import io.bloomstore.core.fs.FileSystem;
import io.bloomstore.core.fs.LocalFileSystem;
import java.io.IOException;
import java.nio.file.Path;

/**
 * Repairs a store that refuses to open, as LevelDB's and RocksDB's {@code RepairDB}: keeps every
 * table that verifies (rebuilding a damaged or missing filter sidecar from it) and every WAL record
 * that verifies (a damaged segment's records before the damage), rebuilds the MANIFEST and CURRENT
 * from them, moves every file that does not verify into {@code lost/} inside the store directory,
 * and reports what was kept and lost. The repaired store opens and verifies clean.
 *
 * <p>Levels: when a MANIFEST reads whole (CURRENT's, or the newest one when CURRENT is damaged or
 * missing), the kept tables stay at the levels it gives them. Otherwise the relative age of
 * overlapping tables is unknown, and no placement of the tables themselves is safe (a lookup takes
 * the first table that holds a key), so repair merges all kept tables and the salvaged WAL records
 * into new tables forming one sorted level, the newest version of each key winning, as a full
 * compaction would.
 *
 * <p>What repair cannot give back: the keys of a lost table (an older version of such a key, in a
 * deeper table, becomes visible again), and WAL records past a damage. Run it on a closed store;
 * it takes the store's lock.
 *
 * <p>Thread safety: stateless.
 */
public final class StoreRepair {
    private StoreRepair() {
    }

    /** Repairs the store in {@code dir} on the real file system with default options. */
    public static RepairReport repair(Path dir) throws IOException {
        return repair(LocalFileSystem.INSTANCE, dir, StoreOptions.defaults());
    }

    /**
     * Repairs the store in {@code dir}; {@code options} give the tables that repair writes their
     * block size, compression and filter.
     *
     * @throws IllegalArgumentException when {@code dir} holds no store files at all
     * @throws LockedException          when the store is open
     */
    public static RepairReport repair(FileSystem fs, Path dir, StoreOptions options) throws IOException {
        if (fs == null || dir == null || options == null) {
            throw new IllegalArgumentException("file system, directory and options must not be null");
        }
        return Repairer.repair(fs, dir, options);
    }
}
