package io.bloomstore.core;

import io.bloomstore.core.db.DbImpl;
import io.bloomstore.core.fs.FileSystem;
import io.bloomstore.core.fs.LocalFileSystem;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/**
 * An embedded, ordered key-value store: BloomStore's public API. Keys and values are byte arrays;
 * keys are ordered as unsigned bytes. Writes go to a write-ahead log and a memtable; full
 * memtables are flushed in the background to SSTables, each with an off-heap filter consulted
 * before any of the table's data is read; background compactions merge the tables level by level.
 * See {@code docs/architecture.md}.
 *
 * <p>Errors: {@link IllegalArgumentException} for bad arguments (null or empty key, key or value
 * over the configured maximum, a directory that is not a store, a {@link Snapshot} taken of
 * another store or of an earlier open of this one); {@link IllegalStateException} for use after
 * {@link #close()}; {@link io.bloomstore.bloom.CorruptionException} (an {@link
 * IOException}) for damaged files; {@link LockedException} when the store is
 * already open elsewhere; other {@link IOException}s for I/O failures. After a failed background
 * flush or WAL write the store refuses further writes with that error.
 *
 * <p>Use after close, from any thread: once {@link #close()} has begun, every method but
 * {@code close()} (idempotent) and {@link #options()} throws an {@link IllegalStateException}
 * whose message reads {@code "store <dir> is closed"} — also a call that raced with the close
 * and had not yet reached its point of no return; a call past that point completes normally.
 * Iterators and snapshots taken before the close stay valid: an iterator reads on, to its end,
 * the state it was opened on (it pinned those tables), and releases them when it is closed; a
 * {@link StoreIterator} closed by another thread throws {@code "iterator is closed"}; a closed
 * {@link Snapshot}, {@code "snapshot is closed"}. No misuse can make the store read memory it has
 * released (a table's off-heap index, its mapped filter, a block buffer): every table is
 * reference-counted and freed only when its last user — the live version, a running get, an
 * iterator (which lets go only under its own lock, see {@link StoreIterator}) — lets go.
 *
 * <p>Ownership: the store copies every array it keeps, so a caller may reuse its key and value
 * buffers as soon as {@code put}, {@code delete} or {@link WriteBatch#put} returns; every array it
 * hands out ({@code get}'s value, an iterator's {@link KeyValue}) is a fresh copy the caller may
 * keep and modify.
 *
 * <p>Thread safety: safe for concurrent use by any number of threads; concurrent writers are
 * committed in groups (one WAL write and at most one sync per group). Reads take no lock and never
 * wait for flushes or compactions; iterators and snapshots keep seeing one consistent state while
 * tables are replaced beneath them. When compaction falls behind, writers are slowed and then
 * held (see {@link StoreOptions}).
 *
 * <p>Statistics: the counters of {@link #stats()} (gets, filter answers, block reads, flushes, ...)
 * start at zero at each open of the store; {@link StoreStats#cumulative()} holds the same counters
 * since the store was created, saved by background flushes (at most once a second), by
 * {@link #flush()} and at close. Flushes, compactions, write
 * stalls and background failures are logged through SLF4J (logger names under
 * {@code io.bloomstore}; bring your own binding), and {@link StoreOptions.Builder#jmxName} exposes
 * the statistics in JMX.
 *
 * <p>Filters live off-heap in memory-mapped files, read through Chronicle Bytes when the JVM has
 * its {@code --add-opens} flags and through the JDK's own mappings otherwise: no JVM flag is
 * needed ({@link StoreStats#filterMemory()} tells which).
 */
public interface Store extends AutoCloseable {

    /** Opens (creating if missing) the store in {@code dir} with default options. */
    static Store open(Path dir) throws IOException {
        return open(dir, StoreOptions.defaults());
    }

    /**
     * Opens the store in {@code dir}, recovering writes that were not yet flushed from the WAL.
     *
     * @throws IllegalArgumentException when {@code dir} is missing and {@code createIfMissing} is
     *         false, or exists and is not empty but holds no store
     */
    static Store open(Path dir, StoreOptions options) throws IOException {
        return open(LocalFileSystem.INSTANCE, dir, options);
    }

    /**
     * Opens a store through another file system: an in-memory or fault-injecting one, for tests.
     * {@link FileSystem} is an internal interface ({@code io.bloomstore.core.fs}) that may change;
     * services use {@link #open(Path)} or {@link #open(Path, StoreOptions)}.
     */
    static Store open(FileSystem fs, Path dir, StoreOptions options) throws IOException {
        return DbImpl.open(fs, dir, options);
    }

    /** Opens the store in {@code dir} for reading only, with default options; see {@link #openReadOnly(Path, StoreOptions)}. */
    static Store openReadOnly(Path dir) throws IOException {
        return openReadOnly(dir, StoreOptions.defaults());
    }

    /**
     * Opens the store in {@code dir} for reading only, as RocksDB's {@code OpenForReadOnly}: the
     * store as of this open, with writes not yet flushed replayed from the WAL into memory. Nothing
     * in the directory is created, written or deleted (no table, WAL segment or MANIFEST; no flush
     * or compaction, no background thread), except that {@link #close()} adds this open's counters
     * to the cumulative ones ({@link StoreStats#cumulative()}) when the directory is writable.
     * {@code put}, {@code delete}, {@code write}, {@link #flush()} and {@link #compact()} throw
     * {@link IllegalStateException}; reads, iterators, snapshots and statistics work as usual.
     *
     * <p>Any number of read-only opens of one store may be open at once, in this JVM and in other
     * processes (a shared lock on {@code LOCK}). A store open for writing refuses a read-only open
     * with {@link LockedException}, and a read-only open makes {@link #open} fail the same way until
     * it is closed: a read-only view never sees a writer change files beneath it. A directory the
     * process may not write to can be opened when it has a {@code LOCK} file or never had one.
     * {@code createIfMissing} is ignored.
     *
     * @throws IllegalArgumentException when {@code dir} holds no store
     * @throws LockedException when the store is open for writing
     */
    static Store openReadOnly(Path dir, StoreOptions options) throws IOException {
        return openReadOnly(LocalFileSystem.INSTANCE, dir, options);
    }

    /** As {@link #openReadOnly(Path, StoreOptions)} through another file system, for tests. */
    static Store openReadOnly(FileSystem fs, Path dir, StoreOptions options) throws IOException {
        return DbImpl.openReadOnly(fs, dir, options);
    }

    /** As {@link #openSecondary(Path, Path, StoreOptions)} with default options. */
    static SecondaryStore openSecondary(Path dir, Path scratch) throws IOException {
        return openSecondary(dir, scratch, StoreOptions.defaults());
    }

    /**
     * Opens a store that another process (or another {@code Store} in this JVM) holds open for
     * writing, as a read-only view of its tables and WAL as of this open, that
     * {@link SecondaryStore#catchUp()} moves forward: RocksDB's {@code OpenAsSecondary}. It takes no
     * lock and writes nothing in {@code dir}; it hard-links the tables it reads into {@code scratch}
     * (copies them where links are impossible) so that the primary's compactions cannot delete them
     * from under it. See {@link SecondaryStore}. Also works on a store nobody holds open.
     * {@code createIfMissing} and {@code jmxName} are ignored.
     *
     * @param dir the primary's store directory
     * @param scratch a directory of this secondary's own, outside {@code dir} (created if missing;
     *        on the same file system as {@code dir} for links rather than copies); one secondary at a
     *        time may use it (a lock on {@code scratch/LOCK}), and what an earlier secondary left
     *        there after a crash is removed
     * @throws IllegalArgumentException when {@code dir} holds no store, or {@code scratch} is inside it
     * @throws LockedException when another secondary uses {@code scratch}
     */
    static SecondaryStore openSecondary(Path dir, Path scratch, StoreOptions options) throws IOException {
        return openSecondary(LocalFileSystem.INSTANCE, dir, scratch, options);
    }

    /** As {@link #openSecondary(Path, Path, StoreOptions)} through another file system, for tests. */
    static SecondaryStore openSecondary(FileSystem fs, Path dir, Path scratch, StoreOptions options)
            throws IOException {
        return DbImpl.openSecondary(fs, dir, scratch, options);
    }

    void put(byte[] key, byte[] value) throws IOException;

    void put(byte[] key, byte[] value, WriteOptions options) throws IOException;

    /** Deletes a key (writes a tombstone); deleting an absent key is not an error. */
    void delete(byte[] key) throws IOException;

    void delete(byte[] key, WriteOptions options) throws IOException;

    /**
     * Writes a merge operand for {@code key}: the store's {@link StoreOptions.Builder#mergeOperator
     * merge operator} combines it with the key's value when the key is read or compacted, so the
     * write reads nothing ({@link MergeOperators#int64Add()} counters, appends).
     *
     * @throws IllegalStateException when the store has no merge operator
     * @throws IllegalArgumentException when the operator refuses the operand
     */
    void merge(byte[] key, byte[] operand) throws IOException;

    void merge(byte[] key, byte[] operand, WriteOptions options) throws IOException;

    /**
     * Deletes every key in [{@code from}, {@code to}) with one range tombstone, as RocksDB's
     * {@code DeleteRange}: one WAL record and one sequence number however many keys the range
     * holds. Gets, iterators in both directions and snapshots honour it (a reader at a snapshot
     * taken before it still sees the keys); compaction drops what it covers, deletes tables it
     * covers whole without reading them, and removes the tombstone once nothing it deletes is left
     * ({@code docs/library.md}, "Range deletion"). {@code from == to} is an empty range and does
     * nothing; {@code from > to} is refused. The store copies both arrays.
     *
     * @throws IllegalArgumentException when a bound is null or empty, over {@code maxKeyBytes}, or
     *         {@code from > to}
     */
    void deleteRange(byte[] from, byte[] to) throws IOException;

    void deleteRange(byte[] from, byte[] to, WriteOptions options) throws IOException;

    /** Applies all of the batch's operations atomically. */
    void write(WriteBatch batch, WriteOptions options) throws IOException;

    /** The key's value, or null when it is absent or deleted. */
    byte[] get(byte[] key) throws IOException;

    byte[] get(byte[] key, ReadOptions options) throws IOException;

    /**
     * Keys in [{@code from}, {@code to}) in ascending order; a null bound is open. Close the
     * iterator when done.
     */
    StoreIterator iterator(byte[] from, byte[] to);

    StoreIterator iterator(byte[] from, byte[] to, ReadOptions options);

    /**
     * Keys starting with {@code prefix}, ascending: {@code iterator(prefix, successor of prefix)}.
     * With a {@link StoreOptions.Builder#prefixExtractor prefix extractor} under which every such
     * key has one prefix (the extractor's fixed length or delimiter lies within {@code prefix}),
     * tables whose prefix filter says that prefix is absent are skipped before any block is read;
     * {@link #iterator} does the same when its bounds confine it to one prefix. The store copies
     * {@code prefix}.
     */
    StoreIterator prefixIterator(byte[] prefix);

    StoreIterator prefixIterator(byte[] prefix, ReadOptions options);

    /** Keys in [{@code from}, {@code to}) in descending order; a null bound is open. */
    StoreIterator reverseIterator(byte[] from, byte[] to);

    StoreIterator reverseIterator(byte[] from, byte[] to, ReadOptions options);

    // ---- Keyspaces (RocksDB's column families) ----

    /**
     * The keyspace named {@code name}, created (durably, in the MANIFEST) if the store has none by
     * that name; {@value Keyspace#DEFAULT_NAME} is the default keyspace. A new keyspace takes the
     * options given for its name with {@link StoreOptions.Builder#keyspaceOptions}, or the store's.
     *
     * @throws IllegalArgumentException for a name that is empty or longer than 255 UTF-8 bytes
     * @throws IllegalStateException when the keyspace would have to be created in a store opened
     *         read-only
     * @throws IOException when the MANIFEST edit fails
     */
    default Keyspace keyspace(String name) throws IOException {
        throw new UnsupportedOperationException("this store has no keyspaces but the default one");
    }

    /**
     * As {@link #keyspace(String)}, creating a new keyspace with {@code options}. For a keyspace
     * that exists, {@code options} must be those it is open with (a keyspace's options are fixed
     * while the store is open: give them at open with {@link StoreOptions.Builder#keyspaceOptions}).
     *
     * @throws IllegalStateException when the keyspace exists with other options
     */
    default Keyspace keyspace(String name, KeyspaceOptions options) throws IOException {
        throw new UnsupportedOperationException("this store has no keyspaces but the default one");
    }

    /** The names of the store's keyspaces, the default one first, then in the order they were created. */
    default List<String> keyspaces() {
        return List.of(Keyspace.DEFAULT_NAME);
    }

    /**
     * Drops keyspace {@code name}: its tables are deleted whole (no tombstone is written), its
     * memtables discarded, and its handles refused from then on; durable in the MANIFEST when this
     * returns. Iterators and snapshots already open over it keep reading what they saw.
     *
     * @throws IllegalArgumentException when there is no such keyspace, or it is the default one
     */
    default void dropKeyspace(String name) throws IOException {
        throw new UnsupportedOperationException("this store has no keyspaces but the default one");
    }

    /** {@link #put(byte[], byte[])} in {@code keyspace}. */
    default void put(Keyspace keyspace, byte[] key, byte[] value) throws IOException {
        put(keyspace, key, value, WriteOptions.DEFAULT);
    }

    /** {@link #put(byte[], byte[], WriteOptions)} in {@code keyspace}. */
    default void put(Keyspace keyspace, byte[] key, byte[] value, WriteOptions writeOptions) throws IOException {
        write(new WriteBatch().put(keyspace, key, value), writeOptions);
    }

    /** {@link #delete(byte[])} in {@code keyspace}. */
    default void delete(Keyspace keyspace, byte[] key) throws IOException {
        delete(keyspace, key, WriteOptions.DEFAULT);
    }

    /** {@link #delete(byte[], WriteOptions)} in {@code keyspace}. */
    default void delete(Keyspace keyspace, byte[] key, WriteOptions writeOptions) throws IOException {
        write(new WriteBatch().delete(keyspace, key), writeOptions);
    }

    /** {@link #merge(byte[], byte[])} in {@code keyspace}, with the keyspace's merge operator. */
    default void merge(Keyspace keyspace, byte[] key, byte[] operand) throws IOException {
        write(new WriteBatch().merge(keyspace, key, operand), WriteOptions.DEFAULT);
    }

    /** {@link #deleteRange(byte[], byte[])} in {@code keyspace}. */
    default void deleteRange(Keyspace keyspace, byte[] from, byte[] to) throws IOException {
        write(new WriteBatch().deleteRange(keyspace, from, to), WriteOptions.DEFAULT);
    }

    /** {@link #get(byte[])} in {@code keyspace}. */
    default byte[] get(Keyspace keyspace, byte[] key) throws IOException {
        return get(keyspace, key, ReadOptions.DEFAULT);
    }

    /** {@link #get(byte[], ReadOptions)} in {@code keyspace}; a snapshot reads every keyspace as of its moment. */
    default byte[] get(Keyspace keyspace, byte[] key, ReadOptions readOptions) throws IOException {
        throw new UnsupportedOperationException("this store reads only the default keyspace");
    }

    /** {@link #iterator(byte[], byte[])} in {@code keyspace}. */
    default StoreIterator iterator(Keyspace keyspace, byte[] from, byte[] to) {
        return iterator(keyspace, from, to, ReadOptions.DEFAULT);
    }

    /** {@link #iterator(byte[], byte[], ReadOptions)} in {@code keyspace}. */
    default StoreIterator iterator(Keyspace keyspace, byte[] from, byte[] to, ReadOptions readOptions) {
        throw new UnsupportedOperationException("this store reads only the default keyspace");
    }

    /** {@link #prefixIterator(byte[])} in {@code keyspace}. */
    default StoreIterator prefixIterator(Keyspace keyspace, byte[] prefix) {
        return prefixIterator(keyspace, prefix, ReadOptions.DEFAULT);
    }

    /** {@link #prefixIterator(byte[], ReadOptions)} in {@code keyspace}. */
    default StoreIterator prefixIterator(Keyspace keyspace, byte[] prefix, ReadOptions readOptions) {
        throw new UnsupportedOperationException("this store reads only the default keyspace");
    }

    /** {@link #reverseIterator(byte[], byte[])} in {@code keyspace}. */
    default StoreIterator reverseIterator(Keyspace keyspace, byte[] from, byte[] to) {
        return reverseIterator(keyspace, from, to, ReadOptions.DEFAULT);
    }

    /** {@link #reverseIterator(byte[], byte[], ReadOptions)} in {@code keyspace}. */
    default StoreIterator reverseIterator(Keyspace keyspace, byte[] from, byte[] to, ReadOptions readOptions) {
        throw new UnsupportedOperationException("this store reads only the default keyspace");
    }

    /** The statistics of keyspace {@code keyspace} alone (as {@link #stats()} gives the default keyspace's). */
    default StoreStats stats(Keyspace keyspace) {
        throw new UnsupportedOperationException("this store has no keyspaces but the default one");
    }

    /** A consistent view of the store as of now, for {@link ReadOptions#at(Snapshot)}. */
    Snapshot snapshot();

    /** Writes the memtable to a table and returns once it, and every earlier memtable, is on disk. */
    void flush() throws IOException;

    /**
     * Flushes the memtable, then compacts every level into the next, down to the deepest level
     * holding tables (at least level 1), and returns when done: shadowed versions are dropped,
     * and tombstones too where no snapshot needs them. Background compactions wait meanwhile;
     * reads and writes go on.
     */
    void compact() throws IOException;

    /**
     * Waits until background compaction has caught up: none queued or running and no level over
     * its target (at once when automatic compaction is off); then until the tables compactions
     * replaced that no reader holds any more are closed and deleted (that happens in the
     * background). Writers may keep writing meanwhile (and so prolong the wait).
     */
    void awaitCompactions() throws IOException;

    /**
     * Makes a checkpoint: an openable copy of the store as of one moment, in {@code target}, while
     * writers, flushes and compactions go on (RocksDB's {@code Checkpoint::CreateCheckpoint}).
     * Tables and their filter sidecars are hard-linked where the file system allows (no bytes
     * copied; they are never modified, and the store deleting its own name later leaves the
     * checkpoint's) and copied otherwise; the WAL segments holding writes not yet in a table are
     * copied up to that moment; a fresh MANIFEST names exactly the linked tables, and {@code CURRENT},
     * written last, makes the directory a store. The checkpoint holds a prefix of the store's
     * history that includes every write acknowledged before this call began. Files the checkpoint
     * links or copies are not deleted by flushes or compactions until it is done.
     *
     * <p>Open the checkpoint with {@link #open} (it is an independent store from then on) or
     * {@link #openReadOnly}. A checkpoint cut short by a crash has no {@code CURRENT}: it is not
     * taken for a store; delete it. On any failure (a full disk) this removes what it wrote.
     *
     * @param target a missing or empty directory outside the store directory (created if missing)
     * @throws IllegalArgumentException when {@code target} is inside the store, is a file or a
     *         non-empty directory
     * @throws IllegalStateException when the store is closed or open read-only
     * @throws IOException when a file cannot be linked, copied or written (the message names the cause)
     */
    CheckpointReport checkpoint(Path target) throws IOException;

    /**
     * Links tables built by {@link TableWriter} into the store, atomically (all or none), without
     * the WAL, the memtable or a flush: the second half of a bulk load, as RocksDB's
     * {@code IngestExternalFile}. Each table and its filter sidecar are hard-linked into the store
     * directory where the file system allows (else copied); the caller's files stay and may be
     * deleted afterwards.
     *
     * <p>A table whose key range is new to the store (it overlaps no table of the store, no other
     * table of the call and no memtable key) is linked as it is, while no {@link Snapshot} is
     * open, into the last level when no compaction is queued or running, else level 0. Any other
     * table is rewritten into level 0 under a sequence number above every write so far (tables of
     * one call in the order given, so the later wins), which makes its keys the newest versions.
     * Before any rewrite the memtables are flushed. Writers, and the installs of flushes and
     * compactions, wait for the checks, that flush, any rewrite and the MANIFEST edit (milliseconds
     * when every table is linked); reads go on. A snapshot taken before the call never sees the
     * ingested keys.
     *
     * @param tables table files a {@link TableWriter} finished (their sidecars beside them)
     * @throws IllegalArgumentException when a table is missing or was not written by a {@code TableWriter}
     * @throws IllegalStateException when the store is closed or read-only
     * @throws io.bloomstore.bloom.CorruptionException when a table file is damaged
     */
    IngestReport ingest(java.util.List<Path> tables) throws IOException;

    /**
     * {@link #ingest(java.util.List)} into {@code keyspace}: its tables are checked and chosen a
     * level among that keyspace's tables (written with {@link TableWriter}, they take the
     * keyspace's filter settings as the writer's, not the keyspace's).
     */
    default IngestReport ingest(Keyspace keyspace, java.util.List<Path> tables) throws IOException {
        throw new UnsupportedOperationException("this store ingests into the default keyspace only");
    }

    /**
     * A copy of the statistics as of now. Its counters count since this open (they start at zero
     * at every open); {@link StoreStats#cumulative()} counts since the store was created. Opens
     * no table: the filter figures of a table no lookup has opened yet are read from its filter
     * sidecar's headers (once; the sidecar is not kept open or mapped).
     *
     * @throws java.io.UncheckedIOException when a filter sidecar is missing or its headers are
     *         damaged (a {@link io.bloomstore.bloom.CorruptionException} naming it)
     */
    StoreStats stats();

    StoreOptions options();

    /**
     * Stops a running flush before its MANIFEST edit, cancels a running compaction (its partial
     * outputs are left for the next open to delete; a {@link #compact()} in progress fails), syncs
     * the WAL and releases the directory lock, so it returns promptly. Writes still in the
     * memtable, or in full memtables whose flush had not finished, stay in the WAL and are
     * recovered by the next open; once close returns they survive a machine crash too. The files are closed and the
     * lock released even when the final sync fails. Tables that open iterators still read stay
     * open (and mapped) until those iterators are closed. Idempotent; safe to call from any
     * thread while others use the store (they get the closed-store error above).
     */
    @Override
    void close() throws IOException;
}
