package io.bloomstore.core.db;

import io.bloomstore.core.stats.LevelCounters;
import io.bloomstore.core.table.FilterSummary;
import io.bloomstore.core.table.TableReader;
import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * A live table shared by readers, opened on first use or at once (see below), closed (its filter unmapped, its file closed, its cached blocks
 * dropped and — once a compaction made it obsolete — its files deleted, all handed by the
 * {@link TableRegistry} to its background thread, so a reader never pays for it) when the last
 * reference goes: the {@link TableRegistry} holds one while the table is live, each {@link VersionRef} one
 * for every table of its version, and each iterator one per table it reads. So a table replaced
 * by a compaction stays readable, and on disk, for the readers that still use it. {@link #retain()}
 * fails once the table is closed.
 *
 * <p>A table of the version a store opens with is registered unopened: its {@link TableReader}
 * (descriptor, footer, properties, filter mapping) is made by the first {@link #reader()} call,
 * as RocksDB's table cache opens a table on first use. A store of hundreds of tables then opens
 * in the time of its MANIFEST, and a one-shot lookup opens the two or three tables it consults.
 * A table a flush or compaction just wrote is handed over opened. Statistics do not open a table:
 * they keep the figures of its filters read from the sidecar's headers ({@link #describedFilters}).
 *
 * <p>Thread safety: safe for concurrent use; the first {@link #reader()} call opens the table
 * under this handle's lock, later ones read a volatile field.
 */
final class TableHandle extends RefCounted {
    /** What happens once the last reference is gone: closing, cache invalidation, deletion when obsolete. */
    interface Closer {
        void closed(TableHandle handle);
    }

    /** Opens the reader of {@code handle}'s table, counting its filter answers at its level. */
    interface Opener {
        TableReader open(TableHandle handle) throws IOException;
    }

    private final long fileNumber;
    private volatile int level;
    private volatile TableReader reader;
    /** Makes {@link #reader} on first use; null once it did, or when the handle came opened. */
    private Opener opener;
    /** Set by {@link #takeReaderForClose()}: no reader is opened after that. */
    private boolean closed;
    private final Closer closer;
    private volatile boolean obsolete;
    /** The table's filter figures read without opening it, once statistics asked for them. */
    private volatile FilterSummary describedFilters;

    /** A handle on a table already opened. */
    TableHandle(long fileNumber, int level, TableReader reader, Closer closer) {
        this.fileNumber = fileNumber;
        this.level = level;
        this.reader = reader;
        this.closer = closer;
    }

    /** A handle on a table that {@code opener} opens on first use. */
    TableHandle(long fileNumber, int level, Opener opener, Closer closer) {
        this.fileNumber = fileNumber;
        this.level = level;
        this.opener = opener;
        this.closer = closer;
    }

    long fileNumber() {
        return fileNumber;
    }

    /** The level the table lives at: where it was written, or where a trivial move took it. */
    int level() {
        return level;
    }

    /**
     * A trivial move took the table to {@code newLevel}; an opened reader counts its filter answers
     * there from now on ({@code newLevelCounters}), one opened later counts there from the start.
     */
    synchronized void movedTo(int newLevel, LevelCounters newLevelCounters) {
        level = newLevel;
        if (reader != null) {
            reader.countIn(newLevelCounters);
        }
    }

    /**
     * The table's reader, opened now if this is its first use. The caller holds a reference.
     *
     * @throws IOException when opening the table fails (its file missing or damaged: a
     *         {@link io.bloomstore.bloom.CorruptionException}); the next call tries again
     * @throws IllegalStateException when the table was closed
     */
    TableReader reader() throws IOException {
        TableReader r = reader;
        return r != null ? r : open();
    }

    private synchronized TableReader open() throws IOException {
        if (reader == null) {
            if (closed) {
                throw new IllegalStateException("table " + fileNumber + " is closed");
            }
            reader = opener.open(this);
            opener = null;
        }
        return reader;
    }

    /**
     * As {@link #reader()}, for an iterator's sources, which report I/O failures unchecked as their
     * block reads do.
     *
     * @throws UncheckedIOException when opening the table fails
     */
    TableReader readerUnchecked() {
        try {
            return reader();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The reader if the table was opened, else null: for accounting that must not open it. */
    TableReader openedReader() {
        return reader;
    }

    /** The figures {@link TableRegistry#filterSummary} read without opening the table, or null. */
    FilterSummary describedFilters() {
        return describedFilters;
    }

    void describedFilters(FilterSummary summary) {
        describedFilters = summary;
    }

    /** Once the last reference is gone: the reader to close (null when never opened); no open follows. */
    synchronized TableReader takeReaderForClose() {
        closed = true;
        opener = null;
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
