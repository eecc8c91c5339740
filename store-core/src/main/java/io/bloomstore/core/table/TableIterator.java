package io.bloomstore.core.table;

import java.io.IOException;

import io.bloomstore.core.internal.InternalIterator;
import io.bloomstore.core.internal.ValueType;

/**
 * A two-level cursor over a table: the index chooses the data block, a {@link BlockIterator}
 * walks inside it, and steps past either end of a block move to the neighbouring block. Data
 * blocks come through the table's block cache and counting reader. Unless told not to fill the
 * cache (compaction), a block that missed it is cached when the cache's doorkeeper admits it (it
 * was read recently before), else decoded into a scratch block the iterator borrows from its
 * thread and reuses for every such block, so a scan over blocks read once allocates none.
 *
 * <p>Thread safety: not thread-safe; one thread at a time.
 */
final class TableIterator implements InternalIterator {
    private static final byte[] EMPTY = new byte[0];

    private final TableReader table;
    /** The table's index, fetched on first use (the table decodes it then, {@link TableReader#index()}). */
    private TableIndex index;
    private final boolean fillCache;
    /** For a pass that does not fill the cache (compaction): blocks read ahead, a window at a time. */
    private final Readahead readahead;
    /** Borrowed on the first block the cache does not admit, given back at close. */
    private ScratchBlock scratch;
    /** For a compaction pass: the current block's stored bytes, when read from the file. */
    private final WholeBlock whole;
    private int blockIndex = -1;
    private BlockIterator block;
    /** A compaction pass's block cursor, reset onto each block it loads. */
    private BlockIterator cursor;
    private byte[] userKey;
    private long sequence;
    private ValueType type;

    TableIterator(TableReader table, boolean fillCache) {
        this(table, fillCache ? null : new Readahead(Readahead.DEFAULT_BYTES));
    }

    /** An iterator that fills the cache (readahead null) or reads through {@code readahead}, which it closes. */
    TableIterator(TableReader table, Readahead readahead) {
        this.table = table;
        this.fillCache = readahead == null;
        this.readahead = readahead;
        this.whole = fillCache ? null : new WholeBlock(table);
    }

    @Override
    public boolean valid() {
        return block != null && block.valid();
    }

    @Override
    public void seekToFirst() throws IOException {
        load(0);
        block.seekToFirst();
        skipForward();
    }

    @Override
    public void seekToLast() throws IOException {
        load(index().blockCount() - 1);
        block.seekToLast();
        skipBackward();
    }

    @Override
    public void seek(byte[] userKey) throws IOException {
        byte[] target = InternalKeys.seekKey(userKey, InternalKeys.MAX_SEQUENCE);
        int b = index().findBlock(target);
        if (b == index().blockCount()) {
            invalidate();
            return;
        }
        load(b);
        block.seek(target);
        skipForward();
    }

    @Override
    public void seekForPrev(byte[] userKey) throws IOException {
        byte[] target = InternalKeys.lastKeyOf(userKey);
        int b = index().findBlock(target);
        if (b == index().blockCount()) {
            seekToLast();
            return;
        }
        load(b);
        block.seekForPrev(target);
        skipBackward();
    }

    private TableIndex index() throws IOException {
        TableIndex i = index;
        if (i == null) {
            i = table.index();
            index = i;
        }
        return i;
    }

    @Override
    public void next() throws IOException {
        requireValid();
        block.next();
        skipForward();
    }

    @Override
    public void prev() throws IOException {
        requireValid();
        block.prev();
        skipBackward();
    }

    private void skipForward() throws IOException {
        while (!block.valid()) {
            if (blockIndex + 1 >= index().blockCount()) {
                invalidate();
                return;
            }
            load(blockIndex + 1);
            block.seekToFirst();
        }
        decode();
    }

    private void skipBackward() throws IOException {
        while (!block.valid()) {
            if (blockIndex == 0) {
                invalidate();
                return;
            }
            load(blockIndex - 1);
            block.seekToLast();
        }
        decode();
    }

    private void decode() throws IOException {
        byte[] key = block.key();
        long trailer = InternalKeys.trailer(key);
        type = table.typeOf(trailer, index().offset(blockIndex));
        sequence = trailer >>> 8;
        userKey = InternalKeys.userKey(key);
    }

    private void load(int b) throws IOException {
        if (fillCache) {
            if (scratch == null) {
                scratch = ScratchBlock.borrow();
            }
            // The scratch may hold the current block: it is replaced here, and nothing read from it
            // outlives it (keys and values are handed out as copies).
            try {
                block = table.iteratorBlock(b, scratch).iterator();
            } catch (IOException | RuntimeException e) {
                invalidate();
                throw e;
            }
        } else {
            if (scratch == null) {
                scratch = ScratchBlock.borrow();
            }
            // As above: the block is decoded into the scratch, replaced by the next load; the
            // value slices handed out (valueArray) are valid until the iterator moves.
            try {
                Block next = table.backgroundBlock(b, readahead, whole, scratch);
                block = cursor == null ? next.iterator() : cursor.reset(next);
                cursor = block;
            } catch (IOException | RuntimeException e) {
                invalidate();
                throw e;
            }
        }
        blockIndex = b;
    }

    private void invalidate() {
        block = null;
        blockIndex = -1;
        userKey = null;
    }

    private void requireValid() {
        if (!valid()) {
            throw new IllegalStateException("iterator is not positioned at an entry");
        }
    }

    @Override
    public byte[] key() {
        requireValid();
        return userKey;
    }

    @Override
    public long sequence() {
        requireValid();
        return sequence;
    }

    @Override
    public ValueType type() {
        requireValid();
        return type;
    }

    @Override
    public byte[] value() {
        requireValid();
        return type == ValueType.DELETION ? EMPTY : block.value();
    }

    @Override
    public byte[] valueArray() {
        requireValid();
        return type == ValueType.DELETION ? EMPTY : block.valueArray();
    }

    @Override
    public int valueOffset() {
        requireValid();
        return type == ValueType.DELETION ? 0 : block.valueOffset();
    }

    @Override
    public int valueLength() {
        requireValid();
        return type == ValueType.DELETION ? 0 : block.valueLength();
    }

    /**
     * In a compaction pass, at the first entry of a block read from the file: that block whole
     * (stored bytes and entries), valid until this iterator moves on; otherwise null.
     */
    @Override
    public WholeBlock wholeBlock() {
        if (whole == null || !valid() || !whole.present() || !block.atFirstEntry()) {
            return null;
        }
        whole.position(block.block(), index.lastKey(blockIndex));
        return whole;
    }

    /** Moves past every entry of the current block, to the first entry of the next (or past the end). */
    @Override
    public void skipBlock() throws IOException {
        requireValid();
        if (blockIndex + 1 >= index().blockCount()) {
            invalidate();
            return;
        }
        load(blockIndex + 1);
        block.seekToFirst();
        skipForward();
    }

    @Override
    public void close() {
        invalidate();
        if (scratch != null) {
            scratch.release();
            scratch = null;
        }
        if (readahead != null) {
            readahead.close();
        }
    }
}
