package io.bloomstore.core.table;

import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.Arrays;

import io.bloomstore.bloom.CorruptionException;
import io.bloomstore.bloom.FilterHeader;
import io.bloomstore.bloom.FilterKind;
import io.bloomstore.bloom.FilterSet;
import io.bloomstore.bloom.Filters;
import io.bloomstore.bloom.MembershipFilter;
import io.bloomstore.bloom.storage.OffHeapBackend;
import io.bloomstore.core.PrefixExtractor;
import io.bloomstore.core.cache.BlockCache;
import io.bloomstore.core.fs.FileSystem;
import io.bloomstore.core.fs.RandomReadFile;
import io.bloomstore.core.internal.InternalIterator;
import io.bloomstore.core.internal.ValueType;
import io.bloomstore.core.io.CountingReader;
import io.bloomstore.core.io.TableFileCache;
import io.bloomstore.core.stats.Counter;
import io.bloomstore.core.stats.LevelCounters;
import io.bloomstore.core.stats.StoreCounters;
import io.bloomstore.core.stats.ThreadTally;

/**
 * An open SSTable: footer and properties read and checked on open, the index read on first use
 * and kept off the heap (both by {@link TableIndexLoader}), the filter sidecar mapped off-heap
 * (or loaded into native memory when the file system cannot map) on open, or on the first
 * lookup that consults it for a table opened {@linkplain #openFilterOnFirstUse lazily} (by
 * {@link TableFilterReader}, which also checks its payload and answers the prefix and range
 * probes), the data blocks read through the block cache by {@link TableBlocks}. This class opens
 * the table, answers point lookups and hands out iterators. Format: docs/format/sstable.md.
 *
 * <p>Point lookups ({@link #get}) follow the read path of DESIGN.md: key range, filter, index,
 * block cache, then one positional read through {@link CountingReader}, counting in
 * {@link StoreCounters} as RocksDB does. {@link #iterator()} reads blocks the same way. A scan
 * confined to one prefix asks {@link #mayContainPrefix} first, answered by the sidecar's prefix
 * filter when the table has one built by the same extractor.
 *
 * <p>Thread safety: {@link #get} and {@link #iterator()} may be used from many threads at once
 * (each iterator by one thread). {@link #close()} must not race with them: keeping a table open
 * while readers use it (reference counting) is the engine's job.
 */
public final class TableReader implements Closeable {
    private static final byte[] EMPTY = new byte[0];

    private final long fileNumber;
    private final Path path;
    private final CountingReader reader;
    private final BlockCache cache;
    private final StoreCounters counters;
    /** The counters of the level the table lives at; replaced when a trivial move takes it down. */
    private volatile LevelCounters levelCounters;
    private final TableProperties props;
    /** The footer and properties read on open; the index, loaded on first use ({@link #index()}). */
    private final TableIndexLoader indexes;
    /** {@link #checkOpen}, made once: the index load runs it under its lock. (Anonymous classes here
     *  and for the blocks' index source, not method references: no lambda spun at a first lookup.) */
    private final Runnable openCheck = new Runnable() {
        @Override
        public void run() {
            checkOpen();
        }
    };
    /** Reads the data blocks, through the block cache. */
    private final TableBlocks blocks;
    /** The filter sidecar: its filters, mapped on open or first use, and whether their "absent" is trusted. */
    private final TableFilterReader sidecar;
    private final TableMetadata metadata;
    private volatile boolean closed;

    private TableReader(FileSystem fs, Path dir, long fileNumber, CountingReader reader, BlockCache cache,
                        StoreCounters counters, LevelCounters levelCounters, TableIndexLoader indexes,
                        boolean hasFilter, boolean verifyFilterPayload) {
        this.fileNumber = fileNumber;
        this.path = reader.name();
        this.reader = reader;
        this.cache = cache;
        this.counters = counters;
        this.levelCounters = levelCounters;
        this.indexes = indexes;
        this.props = indexes.properties();
        this.blocks = new TableBlocks(fileNumber, reader, cache, counters, new TableBlocks.IndexSource() {
            @Override
            public TableIndex get() throws IOException {
                return index();
            }
        }, props.dataSize());
        this.sidecar = new TableFilterReader(this, fs, dir.resolve(TableFileNames.filter(fileNumber)), props,
                counters, hasFilter, verifyFilterPayload);
        this.metadata = new TableMetadata(fileNumber, indexes.fileSize(), props.filterFileSize(),
                props.smallestUserKey(), props.largestUserKey(), props.entries(), props.smallestSeq(),
                props.largestSeq());
    }

    /**
     * Opens table {@code dir/NNNNNN.sst} and maps its filter sidecar now, through
     * {@link OffHeapBackend#readyNow()}: a table a flush or compaction has just written, whose
     * writers should not wait for the filter memory's start-up. Damage in the footer, the
     * properties, the index or the sidecar's header is a {@link CorruptionException} naming the
     * file and offset; {@code opts} only decides whether the filter payload is checked too.
     *
     * @param cache    the store's block cache ({@link BlockCache#disabled()} for none)
     * @param counters where lookups, filter answers and data-block reads are counted
     */
    public static TableReader open(FileSystem fs, Path dir, long fileNumber, TableOptions opts, BlockCache cache,
                                   StoreCounters counters) throws IOException {
        return open(fs, dir, fileNumber, opts, cache, counters, counters.level(0));
    }

    /**
     * As {@link #open(FileSystem, Path, long, TableOptions, BlockCache, StoreCounters)}, also
     * counting the filter's answers in {@code levelCounters}: the counters of the level the
     * table lives at (see {@link #countIn} for a table that moves).
     */
    public static TableReader open(FileSystem fs, Path dir, long fileNumber, TableOptions opts, BlockCache cache,
                                   StoreCounters counters, LevelCounters levelCounters) throws IOException {
        return open(fs, dir, fileNumber, opts, cache, counters, levelCounters, TableFileCache.unbounded(fs));
    }

    /**
     * As {@link #open(FileSystem, Path, long, TableOptions, BlockCache, StoreCounters, LevelCounters)},
     * reading the {@code .sst} through {@code files}: the store's bound on open descriptors and its
     * choice of direct reads. The footer, properties and index are read once, here, and stay in
     * memory (the index off the heap), so a table whose descriptor was closed costs only a reopen
     * on its next read.
     */
    public static TableReader open(FileSystem fs, Path dir, long fileNumber, TableOptions opts, BlockCache cache,
                                   StoreCounters counters, LevelCounters levelCounters, TableFileCache files)
            throws IOException {
        TableReader r = open(fs, dir, fileNumber, opts, cache, counters, levelCounters, files, true);
        try {
            r.sidecar.mapNow();
            return r;
        } catch (IOException | RuntimeException e) {
            r.close();
            throw e;
        }
    }

    /**
     * As {@link #open(FileSystem, Path, long, TableOptions, BlockCache, StoreCounters, LevelCounters,
     * TableFileCache)}, but the filter sidecar is mapped (and its header checked) by the first lookup
     * or scan that consults it, as RocksDB loads a table's filter under its table cache: a reader a
     * compaction opens to read the table through never maps it. Damage in the sidecar is then a
     * {@link CorruptionException} from that first use.
     */
    public static TableReader openFilterOnFirstUse(FileSystem fs, Path dir, long fileNumber, TableOptions opts,
                                                   BlockCache cache, StoreCounters counters,
                                                   LevelCounters levelCounters, TableFileCache files)
            throws IOException {
        return open(fs, dir, fileNumber, opts, cache, counters, levelCounters, files, true);
    }

    /**
     * Opens a table without its filter sidecar, for repair: lookups read the index and blocks of
     * every key, and {@link #verify()} checks the table's own bytes only. Its sidecar is checked
     * apart ({@link #verifyFilter}).
     */
    public static TableReader openWithoutFilter(FileSystem fs, Path dir, long fileNumber, TableOptions opts,
                                                StoreCounters counters) throws IOException {
        return open(fs, dir, fileNumber, opts, BlockCache.disabled(), counters, counters.level(0),
                TableFileCache.unbounded(fs), false);
    }

    /** Checks the filter sidecar of a table with these properties: its size, header and payload CRC. */
    public static void verifyFilter(FileSystem fs, Path dir, long fileNumber, TableProperties props)
            throws IOException {
        TableFilters.verify(fs, dir.resolve(TableFileNames.filter(fileNumber)), props);
    }

    private static TableReader open(FileSystem fs, Path dir, long fileNumber, TableOptions opts, BlockCache cache,
                                    StoreCounters counters, LevelCounters levelCounters, TableFileCache files,
                                    boolean withFilter) throws IOException {
        Path path = dir.resolve(TableFileNames.table(fileNumber));
        RandomReadFile file = files.open(path);
        try {
            CountingReader reader = new CountingReader(file, path, counters);
            TableIndexLoader indexes = TableIndexLoader.open(reader);
            TableProperties props = indexes.properties();
            return new TableReader(fs, dir, fileNumber, reader, cache, counters, levelCounters, indexes,
                    withFilter && props.filterKind() != null, opts.verifyFilterOnOpen());
        } catch (IOException | RuntimeException e) {
            file.close();
            throw e;
        }
    }

    /**
     * Runs the block codecs' one-time start-up in this JVM, if no table has yet: LZ4's JNI library
     * is unpacked to a temporary file and loaded (a {@code SecureRandom} seeded for the file's
     * name, some 55 ms of a fresh JVM's processor time), none of which a closing store can cut
     * short. A background compaction does it first, apart from its work on the store's tables.
     */
    public static void initialiseCodecs() {
        BlockCodec.initialise();
    }

    /**
     * Reads and decodes the index now rather than at a lookup: for a table a flush or compaction
     * has just written, whose first lookups would otherwise each pay for it on a reader's thread
     * (the in-place searches, then the decode under the index's lock). RocksDB's flush and
     * compaction jobs, too, open their outputs' index and filter before the table is installed.
     * Damage in the index is a {@link io.bloomstore.bloom.CorruptionException} here.
     *
     * @throws IllegalStateException when the table is closed
     */
    public void loadIndex() throws IOException {
        index();
    }

    /**
     * The table's index, read and decoded on first use ({@link TableIndexLoader#index}).
     *
     * @throws IllegalStateException when the table is closed
     */
    TableIndex index() throws IOException {
        return indexes.index(openCheck);
    }

    /**
     * The newest entry for {@code userKey} with a sequence number ≤ {@code snapshotSeq}, or null
     * when the table holds none (a tombstone is returned, not hidden).
     */
    public TableLookup get(byte[] userKey, long snapshotSeq) throws IOException {
        return lookup(userKey, 0, false, snapshotSeq, null, 0);
    }

    /**
     * As {@link #get(byte[], long)} with the key's {@link Filters#hash} already computed, so a
     * lookup that consults many tables hashes the key once.
     */
    public TableLookup get(byte[] userKey, long keyHash, long snapshotSeq) throws IOException {
        return lookup(userKey, keyHash, true, snapshotSeq, null, 0);
    }

    /**
     * As {@link #get(byte[], long, long)}, counting the lookup's events in the calling thread's
     * {@code tally} (store-wide and at {@code level}, the level the table is in) instead of in
     * the shared counters: no atomic instruction per event. The store calls it only for a table
     * whose key range (its manifest entry's) holds the key, so the table's own range is not
     * checked again: were it narrower, the filter or the block search would still answer absent.
     */
    public TableLookup get(byte[] userKey, long keyHash, long snapshotSeq, ThreadTally tally, int level)
            throws IOException {
        return lookup(userKey, keyHash, true, snapshotSeq, tally, level);
    }

    private TableLookup lookup(byte[] userKey, long keyHash, boolean hashKnown, long snapshotSeq, ThreadTally tally,
                               int level) throws IOException {
        checkOpen();
        if (tally == null && (Arrays.compareUnsigned(userKey, props.smallestUserKey()) < 0
                || Arrays.compareUnsigned(userKey, props.largestUserKey()) > 0)) {
            return null;
        }
        if (tally != null) {
            tally.add(StoreCounters.TABLE_LOOKUPS);
        } else {
            counters.tableLookups().increment();
        }
        LoadedFilters filters = sidecar.filters();
        MembershipFilter filter = filters.filter;
        if (filter != null) {
            boolean maybe = filters.takesKeyHash
                    ? filter.mightContainHash(hashKnown ? keyHash : Filters.hash(userKey))
                    : filter.mightContain(userKey);
            if (!maybe && sidecar.absentTrusted()) {
                countFilterAnswer(tally, level, StoreCounters.FILTER_NEGATIVES, LevelCounters.FILTER_NEGATIVES,
                        counters.filterNegatives(), levelCounters.filterNegatives());
                return null;
            }
            countFilterAnswer(tally, level, StoreCounters.FILTER_POSITIVES, LevelCounters.FILTER_POSITIVES,
                    counters.filterPositives(), levelCounters.filterPositives());
        }
        byte[] target = InternalKeys.seekKey(userKey, InternalKeys.MAX_SEQUENCE);
        boolean found = false;
        IndexView index = indexes.lookupIndex(openCheck);
        for (int b = index.findBlock(target); b < index.blockCount(); b++) {
            BlockHandle handle = index.handle(b);
            // From the block cache, else one counted read, decoded into the cache when its doorkeeper
            // admits it (BlockCache#admit), else into this thread's ScratchBlock, valid only until
            // this thread's next lookup: nothing read from it outlives this loop.
            ScratchBlock scratch = ScratchBlock.forThisThread();
            BlockIterator it = scratch.iterator(blocks.readerBlock(handle, scratch));
            it.seek(target);
            for (; it.valid(); it.next()) {
                if (!it.userKeyEquals(userKey)) {
                    return null;
                }
                if (!found) {
                    found = true;
                    if (filter != null) {
                        countFilterAnswer(tally, level, StoreCounters.FILTER_TRUE_POSITIVES,
                                LevelCounters.FILTER_TRUE_POSITIVES, counters.filterTruePositives(),
                                levelCounters.filterTruePositives());
                    }
                }
                long trailer = it.trailer();
                long seq = trailer >>> 8;
                if (seq <= snapshotSeq) {
                    ValueType type = typeOf(trailer, handle.offset());
                    return new TableLookup(type, seq, type == ValueType.DELETION ? EMPTY : it.value());
                }
            }
        }
        return null;
    }

    /**
     * Counts a filter answer store-wide and at the table's level: in the calling thread's
     * {@code tally} (slots {@code storeSlot} and {@code levelWhich} of {@code level}) when the store
     * passed one, else in the shared counters.
     */
    private static void countFilterAnswer(ThreadTally tally, int level, int storeSlot, int levelWhich, Counter shared,
                                          Counter sharedLevel) {
        if (tally != null) {
            tally.add(storeSlot);
            tally.add(StoreCounters.levelSlot(level, levelWhich));
        } else {
            shared.increment();
            sharedLevel.increment();
        }
    }

    /**
     * Whether the table may hold a key whose prefix (cut by {@code extractor}) is {@code prefix}.
     * False only when the table's prefix filter was built by an equal extractor and says absent:
     * then no block of the table need be read for a scan confined to that prefix (RocksDB
     * BLOOM_FILTER_PREFIX_USEFUL). Every consulted prefix filter counts as checked
     * (BLOOM_FILTER_PREFIX_CHECKED). A table without such a filter answers true, uncounted.
     *
     * @param prefixHash {@link Filters#hash} of {@code prefix}
     */
    public boolean mayContainPrefix(byte[] prefix, long prefixHash, PrefixExtractor extractor) throws IOException {
        checkOpen();
        return sidecar.mayContainPrefix(prefix, prefixHash, extractor);
    }

    /**
     * Whether the table may hold a key whose first 8 bytes, as a big-endian number, lie in
     * [{@code from}, {@code to}] (unsigned, inclusive). False only when the table's range filter
     * says so: a scan of that range need read none of its blocks. Counted as checked / useful;
     * a table without a range filter, or a range longer than it answers, says true uncounted.
     */
    public boolean mayContainRange(long from, long to) throws IOException {
        checkOpen();
        return sidecar.mayContainRange(from, to);
    }

    /** Whether the table has a prefix filter built by {@code extractor}. */
    public boolean hasPrefixFilter(PrefixExtractor extractor) {
        return sidecar.hasPrefixFilter(extractor);
    }

    /** Whether the table has a filter whose payload no one has checked yet ({@link #checkFilter}). */
    public boolean filterUnchecked() {
        return sidecar.unchecked();
    }

    /**
     * Checks the filter sidecar's payload CRC now, unless it was checked already: the check a
     * lookup makes before the filter's first "absent" answer, done ahead of it. The store calls it
     * on a background thread for every table it opens, so that first answer does not wait for a
     * whole-file read. A damaged sidecar throws here and stays unchecked, so the lookup that
     * would have believed it still reports the damage.
     */
    public void checkFilter() throws IOException {
        if (filterUnchecked() && !closed) {
            sidecar.checkPayload();
        }
    }

    /** Estimated heap bytes of this table's index: a small constant, the index itself being off the heap. */
    public long indexHeapBytes() {
        return indexes.heapBytes();
    }

    /** Bytes of this table's index held outside the heap (its last keys and block handles). */
    public long indexOffHeapBytes() {
        return indexes.offHeapBytes();
    }

    ValueType typeOf(long trailer, long blockOffset) throws CorruptionException {
        int code = (int) (trailer & 0xFF);
        if (code > ValueType.TIMED_VALUE.code() || code == 3) {
            throw new CorruptionException(path, blockOffset, "unknown value type " + code + " in a key of the block");
        }
        return ValueType.byCode(code);
    }

    /**
     * Data block {@code b} for an iterator: from the block cache, else one counted read, decoded
     * into the cache when its doorkeeper admits it, else into the iterator's {@code scratch},
     * valid until the iterator's next block.
     */
    Block iteratorBlock(int b, ScratchBlock scratch) throws IOException {
        return blocks.readerBlock(b, scratch);
    }

    /**
     * Data block {@code b} for a sequential background pass (compaction), read through
     * {@code readahead}, its stored form kept in {@code whole} when not null: see
     * {@link TableBlocks#backgroundBlock}; a block read from the file is decoded into {@code scratch}.
     */
    Block backgroundBlock(int b, Readahead readahead, WholeBlock whole, ScratchBlock scratch) throws IOException {
        return blocks.backgroundBlock(b, readahead, whole, scratch);
    }

    /** An iterator over every entry in internal order, reading blocks through the cache. */
    public InternalIterator iterator() {
        return iterator(true);
    }

    /**
     * An iterator over every entry in internal order; blocks it reads from the file enter the
     * block cache only when {@code fillCache} (false for compaction, which reads each block once).
     */
    public InternalIterator iterator(boolean fillCache) {
        checkOpen();
        return new TableIterator(this, fillCache);
    }

    /**
     * Reads every block and checks every checksum and the order of all keys, then the whole
     * filter sidecar. Blocks are read past the cache and not counted as data-block reads.
     */
    public void verify() throws IOException {
        checkOpen();
        new TableVerifier(this, reader, props).verify();
        sidecar.verify();
    }

    public long fileNumber() {
        return fileNumber;
    }

    public Path path() {
        return path;
    }

    public TableMetadata metadata() {
        return metadata;
    }

    public TableProperties properties() {
        return props;
    }

    /** Counts the filter's answers from now on in {@code levelCounters}: the table moved to another level. */
    public void countIn(LevelCounters levelCounters) {
        if (levelCounters == null) {
            throw new IllegalArgumentException("level counters must not be null");
        }
        this.levelCounters = levelCounters;
    }

    /** The counters of the level the table lives at, for the filter's answers ({@link #countIn}). */
    LevelCounters levelCounters() {
        return levelCounters;
    }

    public boolean hasFilter() {
        return sidecar.present();
    }

    /** The filter's kind, or null when the table has none. */
    public FilterKind filterKind() {
        return props.filterKind();
    }

    /** Bytes of the filter sidecar held mapped (or loaded off-heap); 0 without filter or before its first use. */
    public long filterBytes() {
        return sidecar.bytes();
    }

    /** See {@link FilterSummary}; throws {@link UncheckedIOException} when the sidecar cannot be read. */
    public FilterSummary filterSummary() {
        return sidecar.summary();
    }

    /**
     * Bytes of the sidecar's section of that role (the filter's header, payload and trailer), 0
     * when it has none. A version-1 sidecar is one key section of the whole file.
     */
    public long filterSectionBytes(FilterSet.Role role) {
        FilterSummary s = filterSummary();
        return switch (role) {
            case KEY -> s.keyBytes();
            case PREFIX -> s.prefixBytes();
            case RANGE -> s.rangeBytes();
        };
    }

    /** The extractor of the table's prefix filter, or null when it has none this build can use. */
    public PrefixExtractor prefixExtractor() {
        return filterSummary().prefixExtractor();
    }

    /**
     * The false-positive rate the filter expects for the keys it holds (the configured rate the
     * measured one is compared with); 0 without filter.
     */
    public double filterExpectedFpr() {
        return filterSummary().expectedFpr();
    }

    /** The filter sidecar's header, or null when the table has none. */
    public FilterHeader filterHeader() {
        return filterSummary().header();
    }

    /**
     * Unmaps the filter and closes the file, at once. Idempotent. Cached blocks stay in the
     * cache (the table may be reopened); call {@link BlockCache#invalidateFile} when dropping it.
     */
    @Override
    public synchronized void close() throws IOException {
        if (closed) {
            return;
        }
        closed = true;
        try {
            sidecar.unmap();
        } finally {
            try {
                reader.close();
            } finally {
                indexes.close();
            }
        }
    }

    /** Throws {@link IllegalStateException} once the table is closed. */
    void checkOpen() {
        if (closed) {
            throw new IllegalStateException("table " + path + " is closed");
        }
    }
}
