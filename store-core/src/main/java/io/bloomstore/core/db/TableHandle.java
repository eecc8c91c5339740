package io.bloomstore.core.db;

import io.bloomstore.core.table.TableReader;

/**
 * An open table shared by readers, closed (its filter unmapped, its file closed, its cached blocks
 * dropped and — once a compaction made it obsolete — its files deleted, all handed by the
 * {@link TableRegistry} to its background thread, so a reader never pays for it) when the last
 * reference goes: the {@link TableRegistry} holds one while the table is live, each {@link VersionRef} one
 * for every table of its version, and each iterator one per table it reads. So a table replaced
 * by a compaction stays readable, and on disk, for the readers that still use it. {@link #retain()}
 * fails once the table is closed.
 *
 * <p>Thread safety: safe for concurrent use.
 */
final class TableHandle extends RefCounted {
    /** What happens once the last reference is gone: closing, cache invalidation, deletion when obsolete. */
    interface Closer {
        void closed(TableHandle handle);
    }

    private final long fileNumber;
    private volatile int level;
    private final TableReader reader;
    private final Closer closer;
    private volatile boolean obsolete;

    TableHandle(long fileNumber, int level, TableReader reader, Closer closer) {
        this.fileNumber = fileNumber;
        this.level = level;
        this.reader = reader;
        this.closer = closer;
    }

    long fileNumber() {
        return fileNumber;
    }

    /** The level the table lives at: where it was written, or where a trivial move took it. */
    int level() {
        return level;
    }

    void movedTo(int newLevel) {
        level = newLevel;
    }

    TableReader reader() {
        return reader;
    }

    /** Marks the table's files for deletion when the last reference goes. */
    void markObsolete() {
        obsolete = true;
    }

    boolean obsolete() {
        return obsolete;
    }

    @Override
    void lastReleased() {
        closer.closed(this);
    }

    @Override
    String describe() {
        return "table " + fileNumber;
    }
}
