package io.bloomstore.core;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A group of puts, deletes and range deletions applied atomically by {@link Store#write}: after a crash either all
 * of them are visible or none. Later operations on the same key win over earlier ones. A batch can be
 * reused after {@link #clear()}. Operations may name keyspaces ({@link #put(Keyspace, byte[], byte[])}
 * and its kin): one batch is atomic across every keyspace of the store.
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

        /** A merge operand for {@code key} ({@link WriteBatch#merge}). */
        default void merge(byte[] key, byte[] operand) {
            throw new UnsupportedOperationException("this handler takes no merge operands");
        }

        /**
         * A range deletion of [{@code from}, {@code to}). A default that throws, so that handlers
         * written before range deletion keep compiling; every handler the store uses overrides it.
         */
        default void deleteRange(byte[] from, byte[] to) {
            throw new UnsupportedOperationException("this handler takes no range deletion");
        }

        /**
         * The operations that follow, up to the next call, are in keyspace {@code keyspace}; null
         * for the default keyspace. {@link #forEach} calls it before the first operation outside
         * the default keyspace and whenever the keyspace changes.
         */
        default void keyspace(Keyspace keyspace) {
            if (keyspace != null) {
                throw new UnsupportedOperationException("this handler takes no keyspace other than the default one");
            }
        }
    }

    private static final byte DELETE = 0;
    private static final byte PUT = 1;
    private static final byte MERGE = 2;
    private static final byte RANGE_DELETE = 3;

    /** Each operation's key (the start key of a range deletion); {@link #count} of them are used. */
    private byte[][] keys = new byte[8][];
    /** The value for a put, the operand for a merge, the end key of a range deletion; null for a delete. */
    private byte[][] values = new byte[8][];
    /**
     * Operations held. Plain arrays doubled as they fill: two ArrayLists growing by half were a
     * sixth of the time a 1,000-put batch took to build (JFR, a batched fill).
     */
    private int count;
    /** What each operation is: {@link #PUT}, {@link #DELETE}, {@link #MERGE} or {@link #RANGE_DELETE}. */
    private byte[] kinds = new byte[8];
    /** Each operation's keyspace, null for the default one; null until an operation names another keyspace. */
    private List<Keyspace> keyspaces;
    /** Range deletions held: {@link #hasRangeDeletion()}. */
    private int rangeDeletions;
    private long approximateBytes;

    public synchronized WriteBatch put(byte[] key, byte[] value) {
        if (value == null) {
            throw new IllegalArgumentException("value must not be null (use delete)");
        }
        checkKey(key);
        add(PUT, key.clone(), value.clone());
        approximateBytes += key.length + value.length + 8;
        return this;
    }

    /**
     * A merge operand for {@code key}, combined with the key's value by the store's
     * {@link MergeOperator} ({@link Store#merge}); the store refuses the batch when it has none.
     */
    public synchronized WriteBatch merge(byte[] key, byte[] operand) {
        if (operand == null) {
            throw new IllegalArgumentException("merge operand must not be null");
        }
        checkKey(key);
        add(MERGE, key.clone(), operand.clone());
        approximateBytes += key.length + operand.length + 8;
        return this;
    }

    private void add(byte kind, byte[] key, byte[] value) {
        int n = count;
        if (n == kinds.length) {
            kinds = Arrays.copyOf(kinds, 2 * n);
            keys = Arrays.copyOf(keys, 2 * n);
            values = Arrays.copyOf(values, 2 * n);
        }
        kinds[n] = kind;
        keys[n] = key;
        values[n] = value;
        count = n + 1;
        if (keyspaces != null) {
            keyspaces.add(null);
        }
    }

    /** Puts the last operation added into {@code keyspace} (null or the default one: nothing to record). */
    private void inKeyspace(Keyspace keyspace) {
        if (keyspace.id() == 0) {
            return;
        }
        if (keyspaces == null) {
            keyspaces = new ArrayList<>(count);
            for (int i = 0; i < count; i++) {
                keyspaces.add(null);
            }
        }
        keyspaces.set(count - 1, keyspace);
    }

    private static void checkKeyspace(Keyspace keyspace) {
        if (keyspace == null) {
            throw new IllegalArgumentException("keyspace must not be null (the methods without one use the default"
                    + " keyspace)");
        }
    }

    /** Adds a put of {@code key} in {@code keyspace}; as {@link #put(byte[], byte[])}. */
    public synchronized WriteBatch put(Keyspace keyspace, byte[] key, byte[] value) {
        checkKeyspace(keyspace);
        put(key, value);
        inKeyspace(keyspace);
        return this;
    }

    /** Adds a delete of {@code key} in {@code keyspace}; as {@link #delete(byte[])}. */
    public synchronized WriteBatch delete(Keyspace keyspace, byte[] key) {
        checkKeyspace(keyspace);
        delete(key);
        inKeyspace(keyspace);
        return this;
    }

    /** Adds a merge operand for {@code key} in {@code keyspace}; as {@link #merge(byte[], byte[])}. */
    public synchronized WriteBatch merge(Keyspace keyspace, byte[] key, byte[] operand) {
        checkKeyspace(keyspace);
        merge(key, operand);
        inKeyspace(keyspace);
        return this;
    }

    /** Adds a deletion of the keys in [from, to) of {@code keyspace}; as {@link #deleteRange(byte[], byte[])}. */
    public synchronized WriteBatch deleteRange(Keyspace keyspace, byte[] from, byte[] to) {
        checkKeyspace(keyspace);
        int before = count;
        deleteRange(from, to);
        if (count > before) {
            inKeyspace(keyspace);
        }
        return this;
    }

    /** Whether an operation is in a keyspace other than the default one. */
    public synchronized boolean spansKeyspaces() {
        if (keyspaces == null) {
            return false;
        }
        for (Keyspace k : keyspaces) {
            if (k != null) {
                return true;
            }
        }
        return false;
    }

    public synchronized WriteBatch delete(byte[] key) {
        checkKey(key);
        add(DELETE, key.clone(), null);
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
        add(RANGE_DELETE, from.clone(), to.clone());
        rangeDeletions++;
        approximateBytes += from.length + to.length + 8;
        return this;
    }

    /** Number of operations. */
    public synchronized int count() {
        return count;
    }

    /** Key and value bytes plus a small per-operation overhead. */
    public synchronized long approximateBytes() {
        return approximateBytes;
    }

    public synchronized void clear() {
        Arrays.fill(keys, 0, count, null);
        Arrays.fill(values, 0, count, null);
        count = 0;
        keyspaces = null;
        rangeDeletions = 0;
        approximateBytes = 0;
    }

    /** Whether the batch holds a range deletion. */
    public synchronized boolean hasRangeDeletion() {
        return rangeDeletions > 0;
    }

    /**
     * A batch of the same operations as this one now, sharing their arrays (which no batch
     * modifies): unaffected by later changes to this one.
     */
    public synchronized WriteBatch copy() {
        WriteBatch c = new WriteBatch();
        int capacity = Math.max(8, count);
        c.keys = Arrays.copyOf(keys, capacity);
        c.values = Arrays.copyOf(values, capacity);
        c.kinds = Arrays.copyOf(kinds, capacity);
        c.count = count;
        c.keyspaces = keyspaces == null ? null : new ArrayList<>(keyspaces);
        c.rangeDeletions = rangeDeletions;
        c.approximateBytes = approximateBytes;
        return c;
    }

    /** Calls the handler for each operation, in order. */
    public synchronized void forEach(Handler handler) {
        Keyspace current = null;
        for (int i = 0; i < count; i++) {
            byte[] v = values[i];
            if (keyspaces != null && keyspaces.get(i) != current) {
                current = keyspaces.get(i);
                handler.keyspace(current);
            }
            if (kinds[i] == RANGE_DELETE) {
                handler.deleteRange(keys[i], v);
            } else if (kinds[i] == DELETE) {
                handler.delete(keys[i]);
            } else if (kinds[i] == PUT) {
                handler.put(keys[i], v);
            } else {
                handler.merge(keys[i], v);
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
        for (int i = 0; i < count && i < 8; i++) {
            sb.append(i == 0 ? "" : ", ").append(kinds[i] == DELETE ? "delete " : kinds[i] == PUT ? "put "
                    : kinds[i] == MERGE ? "merge " : "deleteRange ")
                    .append(Arrays.toString(keys[i]));
        }
        return sb.append(count > 8 ? ", ...]" : "]").toString();
    }
}
