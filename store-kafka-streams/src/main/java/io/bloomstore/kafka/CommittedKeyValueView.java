package io.bloomstore.kafka;

import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;

/**
 * The {@code READ_COMMITTED} view of a transactional {@link BloomKeyValueStore} ({@link
 * BloomKeyValueStore#readOnly}): reads the BloomStore alone, which holds exactly the committed
 * writes, skipping the writer's buffer. A view follows the store's commits: each read sees the
 * last commit before it; a scan sees one commit (a BloomStore iterator reads a snapshot).
 *
 * <p>Thread safety: as the store; meant for interactive-query threads.
 */
final class CommittedKeyValueView implements ReadOnlyKeyValueStore<Bytes, byte[]> {
    private final BloomKeyValueStore store;

    CommittedKeyValueView(BloomKeyValueStore store) {
        this.store = store;
    }

    @Override
    public byte[] get(Bytes key) {
        return store.get(key, true);
    }

    @Override
    public KeyValueIterator<Bytes, byte[]> range(Bytes from, Bytes to) {
        return store.range(from, to, false, true);
    }

    @Override
    public KeyValueIterator<Bytes, byte[]> reverseRange(Bytes from, Bytes to) {
        return store.range(from, to, true, true);
    }

    @Override
    public KeyValueIterator<Bytes, byte[]> all() {
        return store.iterate(KeyCodec.DATA_START, KeyCodec.DATA_END, false, true);
    }

    @Override
    public KeyValueIterator<Bytes, byte[]> reverseAll() {
        return store.iterate(KeyCodec.DATA_START, KeyCodec.DATA_END, true, true);
    }

    @Override
    public <PS extends Serializer<P>, P> KeyValueIterator<Bytes, byte[]> prefixScan(P prefix, PS serializer) {
        return store.prefixScan(prefix, serializer, true);
    }

    /** The store's estimate: committed and buffered entries alike. */
    @Override
    public long approximateNumEntries() {
        return store.approximateNumEntries();
    }
}
