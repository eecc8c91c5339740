package io.bloomstore.kafka;

import io.bloomstore.core.Store;
import io.bloomstore.core.StoreIterator;
import io.bloomstore.core.WriteBatch;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.streams.errors.ProcessorStateException;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.Map;

/**
 * The changelog offsets a {@link BloomKeyValueStore} has been told at commits and not yet
 * written: they go into the store in the same batch as the buffered data ({@link PendingWrites}),
 * so the offsets the store holds always describe exactly the data it holds. Stored under the
 * meta namespace ({@link KeyCodec#META}) as {@code offset:<topic>/<partition>} → 8-byte offset.
 *
 * <p>Thread safety: not thread-safe; the store calls it under its lock.
 */
final class PendingOffsets {
    private static final String PREFIX = "offset:";
    /** The first meta key past every offset key (';' follows ':'). */
    private static final String END = "offset;";

    /** Offsets told since the last write; a null value removes the partition's offset. */
    private final Map<TopicPartition, Long> offsets = new HashMap<>();
    /** Set by an empty commit: every stored offset is removed at the next write. */
    private boolean wipe;

    /** Records a commit: an empty map drops every offset, a null offset drops that partition's. */
    void record(Map<TopicPartition, Long> changelogOffsets) {
        if (changelogOffsets.isEmpty()) {
            offsets.clear();
            wipe = true;
        }
        offsets.putAll(changelogOffsets);
    }

    /** The committed offset as of the last commit: recorded here, else as stored. */
    Long committed(TopicPartition partition, Store store, String storeName) {
        if (offsets.containsKey(partition)) {
            return offsets.get(partition);
        }
        if (wipe) {
            return null;
        }
        try {
            byte[] v = store.get(key(partition));
            if (v == null) {
                return null;
            }
            if (v.length != Long.BYTES) {
                throw new ProcessorStateException("BloomStore " + storeName + " holds a committed offset of "
                        + v.length + " bytes for " + partition + ", expected " + Long.BYTES);
            }
            return ByteBuffer.wrap(v).getLong();
        } catch (IOException e) {
            throw new ProcessorStateException("Error reading the committed offset of BloomStore " + storeName, e);
        }
    }

    /** Adds the removals and the new offsets to {@code batch}. */
    void addTo(WriteBatch batch, Store store) {
        if (wipe) {
            try (StoreIterator it = store.iterator(KeyCodec.meta(PREFIX), KeyCodec.meta(END))) {
                it.forEachRemaining(kv -> batch.delete(kv.key()));
            }
        }
        for (Map.Entry<TopicPartition, Long> e : offsets.entrySet()) {
            byte[] key = key(e.getKey());
            if (e.getValue() == null) {
                batch.delete(key);
            } else {
                batch.put(key, ByteBuffer.allocate(Long.BYTES).putLong(e.getValue()).array());
            }
        }
    }

    /** After a successful write. */
    void clear() {
        offsets.clear();
        wipe = false;
    }

    private static byte[] key(TopicPartition partition) {
        return KeyCodec.meta(PREFIX + partition.topic() + "/" + partition.partition());
    }
}
