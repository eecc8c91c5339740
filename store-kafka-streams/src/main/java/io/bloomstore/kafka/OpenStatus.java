package io.bloomstore.kafka;

import io.bloomstore.core.Store;
import io.bloomstore.core.WriteBatch;
import io.bloomstore.core.WriteOptions;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.errors.ProcessorStateException;
import org.apache.kafka.streams.errors.TaskCorruptedException;
import org.apache.kafka.streams.processor.StateStoreContext;

import java.io.IOException;
import java.util.Arrays;
import java.util.Set;

/**
 * Whether a store may hold uncommitted writes, kept in the store under the meta key
 * {@code status}, as Kafka's RocksDB store keeps it in its offsets column family. A store in
 * write-through mode ({@link CommitMode#WRITE_THROUGH}: exactly_once_v2 with transactional state
 * stores off) writes its buffer when it passes its bound, with the offsets of the last commit
 * Kafka told it: after a clean close that is harmless; after a crash the committed offsets no
 * longer describe the data. So such a store is marked "open" (synced, before any write that could
 * need it) and marked "closed" by the last batch of a clean close; at open, under exactly-once, a
 * store still marked "open" throws {@link TaskCorruptedException}: Kafka then wipes the task's
 * state and restores it from the changelog, which holds committed writes only.
 *
 * <p>A store in transactional mode never writes an uncommitted byte, so it marks itself "closed"
 * at open and opens after a crash without a wipe; it still refuses, under exactly-once, the files
 * of a write-through run that crashed. Under at-least-once the status is ignored (replaying a few
 * records is within its guarantee).
 *
 * <p>Thread safety: stateless.
 */
final class OpenStatus {
    static final byte[] KEY = KeyCodec.meta("status");
    private static final byte[] OPEN = {'o'};
    private static final byte[] CLOSED = {'c'};

    private OpenStatus() {
    }

    /**
     * Checks the status left by the last run and marks the store open.
     *
     * @throws TaskCorruptedException under exactly-once when the last run did not close the store
     */
    static void open(Store store, StateStoreContext context, String storeName, CommitMode mode) throws IOException {
        byte[] status = store.get(KEY);
        Object guarantee = context.appConfigs().get(StreamsConfig.PROCESSING_GUARANTEE_CONFIG);
        if (StreamsConfig.EXACTLY_ONCE_V2.equals(guarantee) && Arrays.equals(status, OPEN)) {
            throw new TaskCorruptedException(Set.of(context.taskId()), new ProcessorStateException("BloomStore "
                    + storeName + " was not closed cleanly, so under exactly_once_v2 it may hold uncommitted writes:"
                    + " its task's state is rebuilt from the changelog"));
        }
        byte[] next = mode.transactional() ? CLOSED : OPEN;
        if (!Arrays.equals(status, next)) {
            WriteBatch batch = new WriteBatch();
            batch.put(KEY, next);
            store.write(batch, WriteOptions.SYNC);
        }
    }

    /** Adds the "closed" status to the last batch a clean close writes. */
    static void closeIn(WriteBatch batch) {
        batch.put(KEY, CLOSED);
    }
}
