package io.bloomstore.core.table;

import io.bloomstore.core.Compression;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.concurrent.Callable;
import java.util.concurrent.Executor;
import java.util.concurrent.FutureTask;

import io.bloomstore.bloom.Filters;
import io.bloomstore.bloom.RangeFilter;
import io.bloomstore.core.PrefixExtractor;
import io.bloomstore.core.fs.BufferedWritableFile;
import io.bloomstore.core.fs.FileSystem;
import io.bloomstore.core.fs.WritableFile;
import io.bloomstore.core.internal.Futures;
import io.bloomstore.core.internal.ValueType;

/**
 * Writes one SSTable ({@code NNNNNN.sst}) and its filter sidecar ({@code NNNNNN.filter}) from
 * entries added in internal order: data blocks, then the properties and index blocks and the
 * footer (docs/format/sstable.md). The filter collects the hash of each distinct user key (and,
 * with a prefix extractor, of each distinct prefix; with a range filter, each distinct 8-byte key
 * head) as entries arrive and is built and written at
 * {@link #finish()}.
 *
 * <p>Life cycle: {@link #add} any number of times, then exactly one of {@link #finish()} (the
 * files are complete and durable) or {@link #abandon()} (the files are deleted). A builder that
 * failed with an exception must be abandoned.
 *
 * <p>Thread safety: not thread-safe; one thread builds a table.
 */
public final class TableBuilder {
    private final FileSystem fs;
    private final Path dir;
    private final long fileNumber;
    private final TableOptions opts;
    private final Path tablePath;
    private final Path filterPath;
    /** The table file, written a buffer at a time rather than a call per block. */
    private final BufferedWritableFile out;
    /** Where {@link #finish()} syncs the filter sidecar while it writes and syncs the table's tail; null: in line. */
    private final Executor sidecarSyncer;
    /** Where data blocks are encoded while this thread adds entries; null: in line. */
    private final BlockPipeline pipeline;
    /** The sidecar's sync and close, once {@link #finish()} started it; null before. */
    private FutureTask<Void> sidecarSync;
    private final BlockEncoder encoder = new BlockEncoder();
    private final BlockBuilder dataBlock;
    private final BlockBuilder indexBlock = new BlockBuilder(1);
    private final HashBuffer hashes = new HashBuffer();
    private long[] prefixHashes = new long[64];
    private int prefixCount;
    private byte[] lastPrefixKey;
    private int lastPrefixLength = -1;
    private long[] values = new long[64];
    private int valueCount;
    private byte[] lastInternalKey;
    /**
     * {@link #addNewUserKey}'s internal keys, written in turn into the one of the two that does not
     * hold the last key (which the data block compares the next key with): an array per key was a
     * bulk load's largest allocation. Whatever keeps a key past the next add (a block's index
     * entry) takes a copy ({@link #ownKey}).
     */
    private byte[] keyBufferA;
    private byte[] keyBufferB;
    private byte[] firstUserKey;
    private long entries;
    private long dataBlocks;
    private long blocksCopied;
    private long smallestSeq = Long.MAX_VALUE;
    private long largestSeq = -1;
    /** No more adds: finish() started or abandon() was called. */
    private boolean closed;
    private boolean outClosed;
    private boolean finished;

    /** Creates (truncating) the table file {@code dir/NNNNNN.sst}. */
    public TableBuilder(FileSystem fs, Path dir, long fileNumber, TableOptions opts) throws IOException {
        this(fs, dir, fileNumber, opts, null, 0);
    }

    /**
     * As {@link #TableBuilder(FileSystem, Path, long, TableOptions)}, syncing the table file in the
     * background on {@code writeback} every {@code bytesPerSync} bytes written (null or 0: not), so
     * {@link #finish()} waits for the device to take only the last stretch; {@link #finish()} also
     * syncs the filter sidecar there (unless {@code writeback} is null), beside the table's own sync.
     */
    public TableBuilder(FileSystem fs, Path dir, long fileNumber, TableOptions opts, Executor writeback,
            long bytesPerSync) throws IOException {
        this(fs, dir, fileNumber, opts, writeback, bytesPerSync, null);
    }

    /**
     * As {@link #TableBuilder(FileSystem, Path, long, TableOptions, Executor, long)}, compressing and
     * checksumming data blocks on {@code blockEncoder} (null: on this thread) while this thread adds
     * the next entries ({@link BlockPipeline}); the table's bytes are the same either way.
     */
    public TableBuilder(FileSystem fs, Path dir, long fileNumber, TableOptions opts, Executor writeback,
            long bytesPerSync, Executor blockEncoder) throws IOException {
        if (fileNumber < 0) {
            throw new IllegalArgumentException("file number must not be negative: " + fileNumber);
        }
        this.fs = fs;
        this.dir = dir;
        this.fileNumber = fileNumber;
        this.opts = opts;
        this.tablePath = dir.resolve(TableFileNames.table(fileNumber));
        this.filterPath = dir.resolve(TableFileNames.filter(fileNumber));
        this.dataBlock = new BlockBuilder(opts.restartInterval());
        this.sidecarSyncer = writeback;
        this.pipeline = blockEncoder == null ? null : new BlockPipeline(blockEncoder);
        this.out = new BufferedWritableFile(fs.create(tablePath), BufferedWritableFile.DEFAULT_BUFFER_BYTES, writeback,
                bytesPerSync);
    }

    /**
     * Adds an entry. REQUIRES: ({@code userKey}, {@code sequence}) comes strictly after the
     * previous entry in internal order (user key ascending, then sequence descending);
     * otherwise {@link IllegalArgumentException}. A deletion's value must be empty.
     */
    public void add(byte[] userKey, long sequence, ValueType type, byte[] value) throws IOException {
        if (value == null) {
            throw new IllegalArgumentException("key, type and value must not be null");
        }
        add(userKey, sequence, type, value, 0, value.length);
    }

    /**
     * As {@link #add(byte[], long, ValueType, byte[])} with the value
     * {@code value[valueOffset, valueOffset + valueLength)}, copied before this returns: a
     * compaction hands over a slice of its input's block rather than a copy of each value.
     */
    public void add(byte[] userKey, long sequence, ValueType type, byte[] value, int valueOffset, int valueLength)
            throws IOException {
        checkOpen();
        if (userKey == null || value == null || type == null) {
            throw new IllegalArgumentException("key, type and value must not be null");
        }
        java.util.Objects.checkFromIndexSize(valueOffset, valueLength, value.length);
        if (sequence < 0 || sequence > InternalKeys.MAX_SEQUENCE) {
            throw new IllegalArgumentException("sequence " + sequence + " outside [0, " + InternalKeys.MAX_SEQUENCE + "]");
        }
        if (type == ValueType.DELETION && valueLength != 0) {
            throw new IllegalArgumentException("a deletion carries no value");
        }
        if (type == ValueType.RANGE_DELETION) {
            // Range tombstones live in the MANIFEST, not in tables (docs/format/manifest.md).
            throw new IllegalArgumentException("a table holds no range deletion");
        }
        byte[] internalKey = InternalKeys.encode(userKey, sequence, type);
        accept(userKey, internalKey, sequence);
        dataBlock.add(internalKey, value, valueOffset, valueLength);
        if (dataBlock.estimatedSize() >= opts.blockSize()) {
            flushDataBlock();
        }
    }

    /**
     * As {@link #add(byte[], long, ValueType, byte[])} at sequence 0, for a caller that has checked
     * already that {@code userKey} sorts after the last user key added ({@link #compareToLastUserKey}
     * above 0): a table built outside a store ({@code TableWriter}) takes each user key once, and
     * {@code add}'s order check and same-key check were two of the four comparisons with the last
     * key each of its keys cost. The table is the same, byte for byte.
     */
    public void addNewUserKey(byte[] userKey, ValueType type, byte[] value) throws IOException {
        checkOpen();
        if (type != ValueType.VALUE && (type != ValueType.DELETION || value.length != 0)) {
            throw new IllegalArgumentException("a new user key takes a value or an empty deletion, not " + type);
        }
        long trailer = InternalKeys.packTrailer(0, type);
        byte[] internalKey;
        if (keyBufferA == lastInternalKey) {
            internalKey = keyBufferB = InternalKeys.encodeInto(userKey, trailer, keyBufferB);
        } else {
            internalKey = keyBufferA = InternalKeys.encodeInto(userKey, trailer, keyBufferA);
        }
        record(userKey, internalKey, 0, true);
        dataBlock.add(internalKey, value, 0, value.length);
        if (dataBlock.estimatedSize() >= opts.blockSize()) {
            flushDataBlock();
        }
    }

    /** {@code key} itself, or a copy when it is one of {@link #addNewUserKey}'s reused arrays. */
    private byte[] ownKey(byte[] key) {
        return key == keyBufferA || key == keyBufferB ? key.clone() : key;
    }

    /**
     * Whether {@link #addWholeBlock} can copy blocks of the table {@code b} comes from: stored
     * with this table's compression, block size and restart interval, so the copy is the block this
     * builder would have written.
     */
    public boolean canTakeWholeBlock(WholeBlock b) {
        TableProperties p = b.source();
        return p.compression() == opts.compression() && p.blockSize() == opts.blockSize()
                && p.restartInterval() == opts.restartInterval();
    }

    /**
     * Whether copying a whole block now keeps this table's blocks full: the block being built is
     * empty, or at least half the block size. {@link #addWholeBlock} writes the block being built
     * out first, however small, and a small block costs a scan a read of its own: a compaction
     * merging interleaved inputs, copying after every run of one to three 1 KiB entries, left a
     * 300,000-key store whose 10-entry seeks read 4.4 blocks instead of 3.4. When this is false
     * the caller adds the block's entries one by one instead.
     */
    public boolean copyKeepsBlocksFull() {
        return dataBlock.isEmpty() || dataBlock.estimatedSize() >= opts.blockSize() / 2;
    }

    /**
     * Adds every entry of another table's data block by copying its stored bytes (already
     * checksummed when read) instead of re-encoding them: the block being built is written out
     * first, the entries feed the filter, key range and counts as {@link #add} would. REQUIRES
     * {@link #canTakeWholeBlock}, and that the block's entries come after every entry added.
     */
    public void addWholeBlock(WholeBlock b) throws IOException {
        checkOpen();
        if (!canTakeWholeBlock(b)) {
            throw new IllegalArgumentException("block of a table with other compression, block size or restart interval");
        }
        if (!dataBlock.isEmpty()) {
            flushDataBlock();
        }
        if (pipeline != null) {
            pipeline.writeAll(out, indexBlock);
        }
        WholeBlock.Cursor c = b.cursor();
        if (!c.valid()) {
            throw new IllegalArgumentException("empty block");
        }
        for (; c.valid(); c.next()) {
            c.type();
            accept(c.userKey(), c.internalKey(), c.sequence());
        }
        long offset = out.position();
        out.write(b.storedBytes(), 0, b.storedLength());
        indexBlock.add(ownKey(lastInternalKey), new BlockHandle(offset, b.storedLength() - BlockCodec.TRAILER_BYTES).encode());
        dataBlocks++;
        blocksCopied++;
    }

    /** Blocks {@link #addWholeBlock} copied into this table. */
    public long blocksCopied() {
        return blocksCopied;
    }

    /** Checks the order and records an entry's key in the filter, key range and counts. */
    private void accept(byte[] userKey, byte[] internalKey, long sequence) {
        if (lastInternalKey != null && InternalKeys.compare(lastInternalKey, internalKey) >= 0) {
            throw new IllegalArgumentException("entries out of internal order: (" + Arrays.toString(userKey) + ", "
                    + sequence + ") after (" + Arrays.toString(lastUserKey()) + ", "
                    + (InternalKeys.trailer(lastInternalKey) >>> 8) + ")");
        }
        // The last internal key (the builder's own array) holds the last user key: no copy of it per key.
        byte[] last = lastInternalKey;
        record(userKey, internalKey, sequence,
                last == null || !Arrays.equals(last, 0, last.length - InternalKeys.TRAILER_BYTES, userKey, 0, userKey.length));
    }

    /** Records an entry whose order was checked: its user key (when {@code newUserKey}) in the filter and key range, and the counts. */
    private void record(byte[] userKey, byte[] internalKey, long sequence, boolean newUserKey) {
        if (newUserKey) {
            if (opts.hasFilter()) {
                addHash(Filters.hash(userKey));
                if (opts.prefixExtractor() != null) {
                    addPrefix(userKey);
                }
                if (opts.rangeFilter() != null) {
                    addValue(RangeFilter.keyValue(userKey));
                }
            }
            if (firstUserKey == null) {
                firstUserKey = userKey.clone();
            }
        }
        lastInternalKey = internalKey;
        entries++;
        smallestSeq = Math.min(smallestSeq, sequence);
        largestSeq = Math.max(largestSeq, sequence);
    }

    private void addHash(long h) {
        hashes.add(h);
    }

    /** Adds the key's prefix hash unless the previous key had the same prefix (keys come sorted). */
    private void addPrefix(byte[] userKey) {
        int l = opts.prefixExtractor().prefixLength(userKey);
        if (l < 0 || (l == lastPrefixLength
                && Arrays.equals(userKey, 0, l, lastPrefixKey, 0, l))) {
            return;
        }
        lastPrefixKey = userKey;
        lastPrefixLength = l;
        if (prefixCount == prefixHashes.length) {
            prefixHashes = Arrays.copyOf(prefixHashes, prefixHashes.length * 2);
        }
        prefixHashes[prefixCount++] = Filters.hash(userKey, 0, l);
    }

    /** Adds a key's range-filter value unless it repeats the previous one (keys come sorted, so values do). */
    private void addValue(long v) {
        if (valueCount > 0 && values[valueCount - 1] == v) {
            return;
        }
        if (valueCount == values.length) {
            values = Arrays.copyOf(values, values.length * 2);
        }
        values[valueCount++] = v;
    }

    /**
     * Sorts the prefix hashes and drops repeats: keys of one prefix need not be adjacent (with a
     * delimiter, "a" sorts apart from "a/x"), and a static filter wants each item once.
     */
    private int distinctPrefixes() {
        Arrays.sort(prefixHashes, 0, prefixCount);
        int n = 0;
        for (int i = 0; i < prefixCount; i++) {
            if (n == 0 || prefixHashes[i] != prefixHashes[n - 1]) {
                prefixHashes[n++] = prefixHashes[i];
            }
        }
        return n;
    }

    private void flushDataBlock() throws IOException {
        int length = dataBlock.finishInPlace();
        if (pipeline == null) {
            BlockHandle h = encoder.write(out, dataBlock.buffer(), length, opts.compression());
            indexBlock.add(ownKey(dataBlock.lastKey()), h.encode());
        } else {
            // The block's array goes to the pipeline and the builder takes a spare one (no copy); the
            // index key is an entry's own array, never changed (ownKey copies a reused one).
            byte[] full = dataBlock.handOverBuffer(pipeline.spare());
            pipeline.add(full, length, ownKey(dataBlock.lastKey()), opts.compression());
            pipeline.write(out, indexBlock, BlockPipeline.MAX_PENDING);
        }
        dataBlock.reset();
        dataBlocks++;
    }

    private BlockHandle writeBlock(byte[] contents, Compression compression) throws IOException {
        return encoder.write(out, contents, contents.length, compression);
    }

    /** Whether {@link #finish()} succeeded. */
    public boolean isFinished() {
        return finished;
    }

    /** The user key of the last entry added (a copy the caller owns), or null before the first. */
    public byte[] lastUserKey() {
        byte[] last = lastInternalKey;
        return last == null ? null : Arrays.copyOf(last, last.length - InternalKeys.TRAILER_BYTES);
    }

    /**
     * How {@code userKey} compares (unsigned bytes) with the last entry's user key: positive when
     * it sorts after it, and before the first entry; no copy made.
     */
    public int compareToLastUserKey(byte[] userKey) {
        byte[] last = lastInternalKey;
        return last == null ? 1
                : Arrays.compareUnsigned(userKey, 0, userKey.length, last, 0, last.length - InternalKeys.TRAILER_BYTES);
    }

    /** Entries added so far. */
    public long entries() {
        return entries;
    }

    /**
     * Bytes written to the table file so far (a compaction cuts its output by this), plus the raw
     * bytes of blocks still being compressed ({@link BlockPipeline}).
     */
    public long fileSize() {
        return out.position() + (pipeline == null ? 0 : pipeline.pendingBytes());
    }

    /**
     * Writes the filter sidecar and the rest of the table, syncs both files and the directory.
     * With a writeback executor the sidecar is synced there while this thread writes the table's
     * properties, index and footer and syncs the table and the directory: the two fsyncs (the
     * sidecar's alone was about a fifth of a 4 MiB memtable's 110 ms flush) wait for the device
     * side by side instead of one after the other. Returns once all three are durable.
     * REQUIRES: at least one entry was added (an empty table cannot describe its key range:
     * abandon it instead).
     */
    public TableMetadata finish() throws IOException {
        checkOpen();
        if (entries == 0) {
            throw new IllegalStateException("table " + tablePath + " has no entries; abandon it instead");
        }
        closed = true;
        if (!dataBlock.isEmpty()) {
            flushDataBlock();
        }
        if (pipeline != null) {
            pipeline.writeAll(out, indexBlock);
        }
        long dataSize = out.position();
        byte[] lastUserKey = lastUserKey();
        long filterFileSize = opts.hasFilter() ? writeSidecar() : 0;
        TableProperties props = new TableProperties(entries, dataBlocks, dataSize, smallestSeq, largestSeq,
                opts.hasFilter() ? hashes.count() : 0, filterFileSize, opts.hasFilter() ? opts.bitsPerKey() : 0,
                opts.filterKind(), opts.compression(), opts.blockSize(), opts.restartInterval(), firstUserKey,
                lastUserKey);
        BlockHandle propsHandle = writeBlock(props.encode(), Compression.NONE);
        BlockHandle indexHandle = writeBlock(indexBlock.finish(), Compression.NONE);
        byte[] footer = new Footer(indexHandle, propsHandle).encode();
        out.write(footer, 0, footer.length);
        long fileSize = out.position();
        out.sync();
        closeOut();
        fs.syncDirectory(dir);
        awaitSidecarSync();
        finished = true;
        return new TableMetadata(fileNumber, fileSize, filterFileSize, firstUserKey.clone(), lastUserKey,
                entries, smallestSeq, largestSeq);
    }

    /**
     * Writes the filter sidecar, then starts its sync and close on {@link #sidecarSyncer} (or
     * runs them here); returns its size. {@link #awaitSidecarSync()} waits for them.
     */
    private long writeSidecar() throws IOException {
        WritableFile filterOut = fs.create(filterPath);
        long size;
        try {
            if (opts.prefixExtractor() != null || opts.rangeFilter() != null) {
                PrefixExtractor pe = opts.prefixExtractor();
                size = TableFilters.write(filterOut, opts.filterKind(), opts.bitsPerKey(), hashes.toArray(), hashes.count(),
                        pe == null ? null : pe.descriptor(), prefixHashes, pe == null ? 0 : distinctPrefixes(),
                        opts.rangeFilter(), values, valueCount);
            } else {
                size = TableFilters.write(filterOut, opts.filterKind(), opts.bitsPerKey(), hashes.toArray(), hashes.count());
            }
        } catch (IOException | RuntimeException | Error e) {
            try {
                filterOut.close();
            } catch (IOException | RuntimeException closeFailure) {
                e.addSuppressed(closeFailure);
            }
            throw e;
        }
        sidecarSync = new FutureTask<>(new SyncAndClose(filterOut));
        if (sidecarSyncer == null) {
            sidecarSync.run();
        } else {
            sidecarSyncer.execute(sidecarSync);
        }
        return size;
    }

    /** Waits for the sidecar's sync and close; throws what they failed with. */
    private void awaitSidecarSync() throws IOException {
        Throwable failed = sidecarSync == null ? null : Futures.await(sidecarSync);
        if (failed != null) {
            Futures.rethrow(failed, "sync of " + filterPath + " failed: " + failed);
        }
    }

    /** The sidecar's sync, then its close (also when the sync fails), on the sync thread. */
    private static final class SyncAndClose implements Callable<Void> {
        private final WritableFile file;

        SyncAndClose(WritableFile file) {
            this.file = file;
        }

        @Override
        public Void call() throws IOException {
            try {
                file.sync();
            } finally {
                file.close();
            }
            return null;
        }
    }

    /**
     * Closes and deletes whatever was written, also after a failed {@link #finish()} (once the
     * sidecar's sync, if it started, is done: it closes the file).
     * Idempotent. REQUIRES: {@link #finish()} has not succeeded.
     */
    public void abandon() throws IOException {
        if (finished) {
            throw new IllegalStateException("table " + tablePath + " is finished; delete it through the store");
        }
        closed = true;
        if (pipeline != null) {
            pipeline.cancel();
        }
        if (sidecarSync != null) {
            Futures.await(sidecarSync);
        }
        try {
            if (!outClosed) {
                outClosed = true;
                out.discard();
            }
        } finally {
            fs.delete(tablePath);
            fs.delete(filterPath);
        }
    }

    /**
     * For a store that is closing: stops writing and leaves the files on disk, closed once a
     * running writeback is done without waiting for it. They are in no MANIFEST, and the next open
     * deletes them as orphans; an unlink of a partly written 8 MiB table and the wait for its
     * writeback cost a closing store milliseconds each. REQUIRES: {@link #finish()} has not succeeded.
     */
    public void abandonLeavingFiles() {
        if (finished) {
            throw new IllegalStateException("table " + tablePath + " is finished; delete it through the store");
        }
        closed = true;
        if (pipeline != null) {
            pipeline.cancel();
        }
        if (!outClosed) {
            outClosed = true;
            out.discardWithoutWaiting();
        }
    }

    private void closeOut() throws IOException {
        if (!outClosed) {
            outClosed = true;
            out.close();
        }
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException("table builder for " + tablePath + " is finished or abandoned");
        }
    }
}
