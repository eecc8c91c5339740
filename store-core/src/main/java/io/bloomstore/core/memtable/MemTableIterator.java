package io.bloomstore.core.memtable;

import io.bloomstore.core.internal.InternalIterator;
import io.bloomstore.core.internal.ValueType;

/**
 * An {@link InternalIterator} over a memtable's {@link InlineSkipList}. Forward steps follow the
 * bottom level's links (constant time per step, which a flush of a whole memtable needs); seeks
 * and backward steps search from the top (logarithmic), as LevelDB's memtable iterator does. It
 * stays valid while the writer keeps adding entries (it may or may not see them; readers filter by
 * sequence number anyway).
 *
 * <p>Thread safety: not thread-safe; one thread at a time.
 */
final class MemTableIterator implements InternalIterator {
    private final InlineSkipList list;
    private int node = InlineSkipList.NONE;

    MemTableIterator(InlineSkipList list) {
        this.list = list;
    }

    @Override
    public boolean valid() {
        return node != InlineSkipList.NONE;
    }

    @Override
    public void seekToFirst() {
        node = list.first();
    }

    @Override
    public void seekToLast() {
        node = list.last();
    }

    @Override
    public void seek(byte[] userKey) {
        node = list.seek(userKey, Long.MAX_VALUE);
    }

    @Override
    public void seekForPrev(byte[] userKey) {
        node = list.before(userKey, Long.MIN_VALUE);
    }

    @Override
    public void next() {
        node = list.next(node);
    }

    @Override
    public void prev() {
        node = list.before(list.key(node), list.sequence(node));
    }

    @Override
    public byte[] key() {
        return list.key(node);
    }

    @Override
    public long sequence() {
        return list.sequence(node);
    }

    @Override
    public ValueType type() {
        return list.type(node);
    }

    @Override
    public byte[] value() {
        return list.value(node);
    }

    @Override
    public byte[] valueArray() {
        return list.valueChunk(list.valueAddress(node));
    }

    @Override
    public int valueOffset() {
        return InlineSkipList.valueStart(list.valueAddress(node));
    }

    @Override
    public int valueLength() {
        return list.valueLength(list.valueAddress(node));
    }

    @Override
    public void close() {
        node = InlineSkipList.NONE;
    }
}
