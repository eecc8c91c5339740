package io.bloomstore.core.db;

import io.bloomstore.core.manifest.FileMetaData;
import io.bloomstore.core.manifest.Version;
import io.bloomstore.core.memtable.MemTable;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A {@link Version} with a reference on every one of its tables, itself reference-counted: the
 * store holds one reference while the version is current, each get and iterator construction one
 * while it runs. So the tables a reader found in its version stay open (and on disk) until it is
 * done, however many compactions replace them meanwhile; a get pays one atomic increment, not one
 * per table. {@link #retain()} fails once the version was let go: the caller retries with a newer
 * one.
 *
 * <p>Thread safety: safe for concurrent use.
 */
final class VersionRef extends RefCounted {
    private final Version version;
    private final Map<Long, TableHandle> handles;
    /** The same handles in the order of {@link Version#files(int)}, for lookups that found a table by position. */
    private final TableHandle[][] byLevel;
    /**
     * The memtables of every view made with this version ({@link ReadView}): each is held for
     * readers ({@link MemTable#holdForReaders()}) until this version's last release. Added to
     * under the store's mutex (or by the opening thread) while this is the current version.
     */
    private final List<MemTable> memtables = new ArrayList<>(4);

    /** Takes a reference on each table of {@code version}; all must be live in {@code tables}. */
    VersionRef(Version version, TableRegistry tables) {
        this.version = version;
        Map<Long, TableHandle> m = new HashMap<>();
        try {
            for (FileMetaData f : version.allFiles()) {
                m.put(f.fileNumber(), tables.acquire(f.fileNumber()));
            }
        } catch (RuntimeException e) {
            m.values().forEach(TableHandle::release);
            throw e;
        }
        this.handles = m;
        this.byLevel = new TableHandle[Version.NUM_LEVELS][];
        for (int level = 0; level < Version.NUM_LEVELS; level++) {
            List<FileMetaData> files = version.files(level);
            byLevel[level] = new TableHandle[files.size()];
            for (int i = 0; i < files.size(); i++) {
                byLevel[level][i] = m.get(files.get(i).fileNumber());
            }
        }
    }

    Version version() {
        return version;
    }

    /** The open table of a file of this version; valid while the caller holds a reference. */
    TableHandle handle(long fileNumber) {
        TableHandle h = handles.get(fileNumber);
        if (h == null) {
            throw new IllegalArgumentException("table " + fileNumber + " is not in this version");
        }
        return h;
    }

    /** The open table of {@code version().files(level).get(index)}; valid while the caller holds a reference. */
    TableHandle handle(int level, int index) {
        return byLevel[level][index];
    }

    /**
     * Holds {@code mem} and {@code immutables} for the readers of this version, those not held
     * already: a reader that retained this version may read any of them until it releases it.
     */
    void holdMemtables(MemTable mem, List<MemTable> immutables) {
        hold(mem);
        for (int i = 0, n = immutables.size(); i < n; i++) {
            hold(immutables.get(i));
        }
    }

    private void hold(MemTable m) {
        for (int i = 0, n = memtables.size(); i < n; i++) {
            if (memtables.get(i) == m) {
                return;
            }
        }
        memtables.add(m);
        m.holdForReaders();
    }

    /** The last reference releases every table, and every memtable of this version's views. */
    @Override
    void lastReleased() {
        for (TableHandle h : handles.values()) {
            h.release();
        }
        for (MemTable m : memtables) {
            m.releaseForReaders();
        }
    }

    @Override
    String describe() {
        return "version";
    }
}
