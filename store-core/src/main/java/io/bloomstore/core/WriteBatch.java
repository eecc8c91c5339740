package io.bloomstore.core;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;

/**
 * A group of puts, deletes and range deletions applied atomically by {@link Store#write}: after a crash either all
 * of them are visible or none. Later operations on the same key win over earlier ones. A batch can be
 * reused after {@link #clear()}.
 *
 * <p>Ownership: {@link #put} and {@link #delete} copy the key and value they are given, as
 * RocksDB's Java API copies into its native batch, so the caller may reuse its arrays at once;
 * {@link Store#write} keeps the batch's copies without copying again. The arrays a
 * {@link Handler} receives from {@link #forEach} are the batch's own: read them, do not modify them.
 *
 * <p>The batch is one WAL record; its encoding is in {@code docs/format/wal.md}.
 *
 * <p>Thread safety: safe for concurrent use (each method holds the batch's lock), though a batch
 * is meant to be built on one thread and then handed to the store. {@link Store#write} applies
 * the operations the batch holds when the write starts ({@link #copy()}): a thread that adds to
 * or clears the batch meanwhile changes neither what is written nor the sequence numbers it gets.
 */
public final class WriteBatch {
    /** Receives a batch's operations in the order they were added. */
    public interface Handler {
        void put(byte[] key, byte[] value);

        void delete(byte[] key);

        /**
         * A range deletion of [{@code from}, {@code to}). A default that throws, so that handlers
         * written before range deletion keep compiling; every handler the store uses overrides it.
         */
        default void deleteRange(byte[] from, byte[] to) {
            throw new UnsupportedOperationException("this handler takes no range deletion");
        }
    }

    private final List<byte[]> keys = new ArrayList<>();
    /** The value for a put; null marks a delete; a range deletion's end key. */
    private final List<byte[]> values = new ArrayList<>();
    /** The operations (by index) that are range deletions: key = from, value = to. */
    private final BitSet rangeDeletions = new BitSet();
    private long approximateBytes;

    public synchronized WriteBatch put(byte[] key, byte[] value) {
        if (value == null) {
            throw new IllegalArgumentException("value must not be null (use delete)");
        }
        checkKey(key);
        keys.add(key.clone());
        values.add(value.clone());
        approximateBytes += key.length + value.length + 8;
        return this;
    }

    public synchronized WriteBatch delete(byte[] key) {
        checkKey(key);
        keys.add(key.clone());
        values.add(null);
        approximateBytes += key.length + 8;
        return this;
    }

    /**
     * Deletes every key in [{@code from}, {@code to}), as RocksDB's {@code DeleteRange}: one
     * operation (one sequence number) however many keys it covers. {@code from == to} is an empty
     * range and a no-op (nothing is added); {@code from > to} is refused.
     *
     * @throws IllegalArgumentException when a bound is null or empty, or {@code from > to}
     */
    public synchronized WriteBatch deleteRange(byte[] from, byte[] to) {
        checkKey(from);
        checkKey(to);
        int c = Arrays.compareUnsigned(from, to);
        if (c > 0) {
            throw new IllegalArgumentException("deleteRange: from " + Arrays.toString(from) + " is after to "
                    + Arrays.toString(to) + " (the range is [from, to))");
        }
        if (c == 0) {
            return this;
        }
        rangeDeletions.set(keys.size());
        keys.add(from.clone());
        values.add(to.clone());
        approximateBytes += from.length + to.length + 8;
        return this;
    }

    /** Number of operations. */
    public synchronized int count() {
        return keys.size();
    }

    /** Key and value bytes plus a small per-operation overhead. */
    public synchronized long approximateBytes() {
        return approximateBytes;
    }

    public synchronized void clear() {
        keys.clear();
        values.clear();
        rangeDeletions.clear();
        approximateBytes = 0;
    }

    /** Whether the batch holds a range deletion. */
    public synchronized boolean hasRangeDeletion() {
        return !rangeDeletions.isEmpty();
    }

    /**
     * A batch of the same operations as this one now, sharing their arrays (which no batch
     * modifies): unaffected by later changes to this one.
     */
    public synchronized WriteBatch copy() {
        WriteBatch c = new WriteBatch();
        c.keys.addAll(keys);
        c.values.addAll(values);
        c.rangeDeletions.or(rangeDeletions);
        c.approximateBytes = approximateBytes;
        return c;
    }

    /** Calls the handler for each operation, in order. */
    public synchronized void forEach(Handler handler) {
        for (int i = 0; i < keys.size(); i++) {
            byte[] v = values.get(i);
            if (rangeDeletions.get(i)) {
                handler.deleteRange(keys.get(i), v);
            } else if (v == null) {
                handler.delete(keys.get(i));
            } else {
                handler.put(keys.get(i), v);
            }
        }
    }

    private static void checkKey(byte[] key) {
        if (key == null || key.length == 0) {
            throw new IllegalArgumentException("key must not be null or empty");
        }
    }

    @Override
    public synchronized String toString() {
        StringBuilder sb = new StringBuilder("WriteBatch[");
        for (int i = 0; i < keys.size() && i < 8; i++) {
            sb.append(i == 0 ? "" : ", ").append(rangeDeletions.get(i) ? "deleteRange " : values.get(i) == null
                    ? "delete " : "put ")
                    .append(Arrays.toString(keys.get(i)));
        }
        return sb.append(keys.size() > 8 ? ", ...]" : "]").toString();
    }
}
