package io.bloomstore.core.table;

import java.io.IOException;
import java.nio.file.Path;

import io.bloomstore.bloom.CorruptionException;
import io.bloomstore.core.io.CountingReader;

/**
 * The metadata a {@link TableReader} loads from its table file: the footer and the properties,
 * read and checked when the table opens ({@link #open}), and the index, read and decoded on first
 * use ({@link #index}). Format: docs/format/sstable.md ("Footer", "Properties block", "Index block").
 *
 * <p>Thread safety: safe for concurrent use; the index is loaded once, under a lock, and
 * {@link #close()} (the table's close) releases it under the same lock.
 */
final class TableIndexLoader {
    private final CountingReader reader;
    private final Path path;
    private final TableProperties props;
    /** The index block's place; the index is read and decoded on first use ({@link #index}). */
    private final BlockHandle indexHandle;
    private final long fileSize;
    private final Object indexLoad = new Object();
    private volatile TableIndex index;
    /** Point lookups a table answers from its index block in place before it decodes the index. */
    static final int IN_PLACE_LOOKUPS = 8;
    /** The index block searched in place, for the first lookups; dropped once the index is decoded. */
    private InPlaceIndex inPlace;
    /** Lookups answered with {@link #inPlace} so far (under {@link #indexLoad}). */
    private int inPlaceLookups;

    private TableIndexLoader(CountingReader reader, TableProperties props, BlockHandle indexHandle, long fileSize) {
        this.reader = reader;
        this.path = reader.name();
        this.props = props;
        this.indexHandle = indexHandle;
        this.fileSize = fileSize;
    }

    /**
     * Reads and checks the footer and properties of the table {@code reader} reads: damage in
     * either, or blocks that do not tile the file, is a {@link CorruptionException} naming the
     * file and offset. The index is not read here.
     */
    static TableIndexLoader open(CountingReader reader) throws IOException {
        Path path = reader.name();
        long size = reader.size();
        if (size < Footer.BYTES) {
            throw new CorruptionException(path, size, "file of " + size + " bytes is shorter than the "
                    + Footer.BYTES + "-byte footer");
        }
        Footer footer = Footer.decode(reader.readUncounted(size - Footer.BYTES, Footer.BYTES), path, size);
        BlockHandle ph = footer.properties();
        BlockHandle ih = footer.index();
        TableProperties props = TableProperties.decode(readMeta(reader, ph), path, ph.offset());
        if (ph.offset() != props.dataSize() || ih.offset() != ph.offset() + ph.storedSize()
                || size - Footer.BYTES != ih.offset() + ih.storedSize()) {
            throw new CorruptionException(path, size - Footer.BYTES, "data (" + props.dataSize()
                    + " bytes), properties " + ph + " and index " + ih + " do not tile the file");
        }
        return new TableIndexLoader(reader, props, ih, size);
    }

    /** The table's properties, checked on open. */
    TableProperties properties() {
        return props;
    }

    /** The table file's size in bytes. */
    long fileSize() {
        return fileSize;
    }

    /**
     * The table's index, read and decoded on first use: a store opens its tables without reading
     * their indexes (as RocksDB's table cache opens tables), so an open costs a footer, properties
     * and a filter mapping per table, and a lookup decodes only the indexes of the tables whose
     * filters let it through. Damage in the index is reported then, as a {@link CorruptionException}
     * naming the file and offset.
     *
     * @param checkOpen run under the load lock before a load; throws when the table is closed, so
     *                  no index is loaded after {@link #close()}
     */
    TableIndex index(Runnable checkOpen) throws IOException {
        TableIndex i = index;
        if (i != null) {
            return i;
        }
        synchronized (indexLoad) {
            checkOpen.run();
            i = index;
            if (i == null) {
                i = TableIndex.decode(new Block(readMeta(reader, indexHandle), path, indexHandle.offset()),
                        props.dataBlocks(), props.dataSize());
                byte[] lastKey = i.lastKey(i.blockCount() - 1);
                if (InternalKeys.compareUserKey(lastKey, props.largestUserKey()) != 0) {
                    i.close();
                    throw new CorruptionException(path, indexHandle.offset(), "index ends at another key than the"
                            + " properties' largest key");
                }
                index = i;
            }
            return i;
        }
    }

    /**
     * The index a point lookup searches: the decoded one once loaded; before that, for the table's
     * first {@link #IN_PLACE_LOOKUPS} lookups, the index block searched in place
     * ({@link InPlaceIndex}), read once and kept on the heap until the index is decoded. So a
     * one-shot command that reads a key or two of a table never decodes its index, and a table in
     * steady use decodes it after a few lookups and searches the off-heap form from then on.
     *
     * @param checkOpen as for {@link #index}
     */
    IndexView lookupIndex(Runnable checkOpen) throws IOException {
        TableIndex i = index;
        if (i != null) {
            return i;
        }
        synchronized (indexLoad) {
            checkOpen.run();
            if (index != null) {
                return index;
            }
            if (inPlaceLookups < IN_PLACE_LOOKUPS) {
                inPlaceLookups++;
                if (inPlace == null) {
                    inPlace = InPlaceIndex.of(new Block(readMeta(reader, indexHandle), path, indexHandle.offset()),
                            props.dataBlocks(), props.dataSize(), props.largestUserKey());
                }
                return inPlace;
            }
            inPlace = null;
        }
        return index(checkOpen);
    }

    private static byte[] readMeta(CountingReader reader, BlockHandle h) throws IOException {
        return BlockCodec.decode(reader.readUncounted(h.offset(), (int) h.storedSize()), reader.name(), h.offset());
    }

    /** Estimated heap bytes of the index: a small constant, the index itself being off the heap; 0 before it loads. */
    long heapBytes() {
        TableIndex i = index;
        return i == null ? 0 : i.heapBytes();
    }

    /** Bytes of the index held outside the heap (its last keys and block handles); 0 before it loads. */
    long offHeapBytes() {
        TableIndex i = index;
        return i == null ? 0 : i.offHeapBytes();
    }

    /** Releases the index, if it was loaded. The table calls it once, on close. */
    void close() {
        synchronized (indexLoad) {
            if (index != null) {
                index.close();
            }
        }
    }
}
