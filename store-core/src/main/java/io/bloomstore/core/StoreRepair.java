package io.bloomstore.core;

import io.bloomstore.core.db.Repairer;
import io.bloomstore.core.fs.FileSystem;
import io.bloomstore.core.fs.LocalFileSystem;
import java.io.IOException;
import java.nio.file.Path;

/**
 * Repairs a store that refuses to open, as LevelDB's and RocksDB's {@code RepairDB}: checks every
 * table in the directory, whatever the MANIFEST says (rebuilding a damaged or missing filter
 * sidecar from a table that verifies), salvages every WAL record that verifies (a damaged segment's
 * records before the damage), rebuilds the MANIFEST and CURRENT from them, and reports what was
 * kept and lost. Repair deletes nothing: files that do not verify, and files the repaired store no
 * longer needs, are moved into {@code lost/} inside the store directory. The repaired store opens
 * and verifies clean.
 *
 * <p>Levels: when a MANIFEST reads whole (CURRENT's, or the newest one when CURRENT is damaged or
 * missing) and its version names exactly the tables that verify, they stay at the levels it gives
 * them, and the WAL records from its log number on become a level-0 table. Otherwise (no such
 * MANIFEST, a table it names missing or damaged, or a table it does not name — a store copied while
 * it ran has a MANIFEST older than its tables) repair merges every table that verifies and every
 * salvaged WAL record into new tables forming one sorted level, the newest version of each key by
 * sequence number winning, as a full compaction would; the originals go to {@code lost/}.
 *
 * <p>What repair cannot give back: the keys of a lost table (an older version of such a key, in a
 * deeper table, becomes visible again), and WAL records past a damage. A key deleted long ago may
 * come back when the merge finds an older table holding it whose deleting tombstone was already
 * compacted away. Run it on a closed store; it takes the store's lock.
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
     * @throws UnsupportedOperationException when the store's MANIFEST names keyspaces besides the
     *         default one (nothing is changed: a table does not record its keyspace)
     * @throws LockedException          when the store is open
     */
    public static RepairReport repair(FileSystem fs, Path dir, StoreOptions options) throws IOException {
        if (fs == null || dir == null || options == null) {
            throw new IllegalArgumentException("file system, directory and options must not be null");
        }
        return Repairer.repair(fs, dir, options);
    }
}
