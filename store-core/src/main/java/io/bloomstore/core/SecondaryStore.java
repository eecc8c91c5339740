package io.bloomstore.core;

import java.io.IOException;

/**
 * A read-only view of a store that another process (or another {@link Store} in this JVM) holds
 * open for writing, as RocksDB's secondary instance ({@code DB::OpenAsSecondary}): opened by
 * {@link Store#openSecondary(java.nio.file.Path, java.nio.file.Path, StoreOptions)}, it shows the
 * primary's tables and WAL as of the open — a prefix of the primary's history holding every write
 * acknowledged before the open began, with sync or without (each reaches the WAL file, the
 * operating system's hands, before it is acknowledged) — and {@link #catchUp()} moves it forward to the
 * primary's present ({@code TryCatchUpWithPrimary}).
 *
 * <p>What it does to the primary: nothing. It takes no lock on the primary's directory and
 * creates, writes, renames or deletes nothing in it: it reads {@code CURRENT}, the MANIFEST and
 * the WAL segments there, and hard-links the current version's tables and filter sidecars into a
 * directory of its own under the scratch directory (copying them where the file system cannot
 * link: another device), so the primary's compactions and WAL deletions never pull a file from
 * under it, and it never delays the primary (it holds none of its locks). A view's files are read
 * from those links; the WAL it reads into memory, and each {@code catchUp} reads on from where the
 * last stopped.
 * A torn or still-being-written last MANIFEST edit or WAL record is "not there yet": the view ends
 * at the last complete, checksum-valid record, and a later {@code catchUp} reads on. When the
 * primary changes the MANIFEST or deletes a WAL segment while a view is being made, the view is
 * made again from the new MANIFEST (a few attempts; then an {@link IOException}).
 *
 * <p>Writes ({@code put}, {@code delete}, {@code write}), {@link #flush()}, {@link #compact()},
 * {@link #checkpoint} and {@link #ingest} throw {@link IllegalStateException}; reads, iterators,
 * snapshots and statistics work as on a store opened read-only. Statistics count since the last
 * view was made ({@code catchUp} makes a new one when the primary's MANIFEST changed).
 *
 * <p>Iterators and snapshots keep the view they were opened on: a {@code catchUp} does not move
 * them, and the links of their view stay in the scratch directory until the last of them is
 * closed. {@link #close()} removes, from the scratch directory, every file and directory this
 * secondary put there that no open iterator or snapshot still uses (those go when they are
 * closed), and the scratch directory itself when it created it.
 *
 * <p>Thread safety: safe for concurrent use; {@code catchUp} may run beside reads on any thread
 * (concurrent {@code catchUp} calls run one at a time). Reads made while a {@code catchUp} runs see
 * the view before or after it, never a mix.
 */
public interface SecondaryStore extends Store {

    /**
     * Moves this view to the primary's present. While the primary's MANIFEST is the one the view
     * was made from, reads on in the WAL from where the last catch-up stopped (a record that was
     * not complete then is read again from its start) and makes what it read visible: it costs
     * the bytes written since. When the MANIFEST changed (a flush, a compaction, an ingest), reads
     * it again, links the tables written since, replays the WAL that is not in a table yet into a
     * new view and switches reads to it: a few hard links plus a replay of the primary's unflushed
     * WAL (up to its memtable size), not of the store's size. When nothing changed, returns at once.
     *
     * @return the sequence number of the last write the view now holds
     * @throws IllegalStateException when this store is closed
     * @throws IOException when the primary's files cannot be read, or kept changing through every
     *         attempt (the current view stays in place)
     */
    long catchUp() throws IOException;

    /** The primary's store directory this view reads. */
    java.nio.file.Path primaryDirectory();
}
