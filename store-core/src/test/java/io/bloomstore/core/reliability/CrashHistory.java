package io.bloomstore.core.reliability;

import io.bloomstore.core.KeyValue;
import io.bloomstore.core.Store;
import io.bloomstore.core.StoreIterator;
import io.bloomstore.core.WriteBatch;
import io.bloomstore.core.WriteOptions;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Random;

/**
 * The write history of the crash tests, a pure function of a seed: operation {@code i} is a single
 * put of key {@code i} or a batch of key {@code i} and its sub-keys {@code i/0..}, synced or not,
 * with values derived from the key. Because every operation writes keys of its own, the recovered
 * state of a store can be checked to be exactly the first {@code k} operations (a prefix: no
 * holes, every batch whole, nothing that was never written, every value right). A batch also
 * overwrites one of {@link #HOT_KEYS} shared keys ({@code hotNN}, by {@code i} mod 16), so every
 * table holds some of the same keys and compactions merge overlapping tables instead of only
 * moving them down a level; after a prefix of {@code k} operations each hot key holds the value
 * of the last batch before {@code k} that wrote it.
 *
 * <p>Thread safety: immutable.
 */
record CrashHistory(long seed) {

    /** Sub-keys written by operation {@code i} beside its own key (0 for a single put). */
    int subKeys(long i) {
        Random r = random(i);
        return r.nextInt(3) == 0 ? 1 + r.nextInt(4) : 0;
    }

    boolean synced(long i) {
        Random r = random(i);
        r.nextInt(3);
        return r.nextInt(5) == 0;
    }

    private Random random(long i) {
        return new Random(seed * 0x9E3779B97F4A7C15L + i);
    }

    static final int HOT_KEYS = 16;

    static byte[] hotKey(int h) {
        return String.format("hot%02d", h).getBytes(StandardCharsets.US_ASCII);
    }

    /** The hot key a batch writes, or -1 for a key that is not hot. */
    private static int hotIndex(byte[] key) {
        if (key.length != 5 || key[0] != 'h' || key[1] != 'o' || key[2] != 't') {
            return -1;
        }
        return (key[3] - '0') * 10 + (key[4] - '0');
    }

    static byte[] key(long i) {
        return String.format("op%010d", i).getBytes(StandardCharsets.US_ASCII);
    }

    static byte[] subKey(long i, int sub) {
        return String.format("op%010d/%d", i, sub).getBytes(StandardCharsets.US_ASCII);
    }

    /** A value derived from the key, long enough to fill memtables and tables quickly. */
    static byte[] value(byte[] key) {
        byte[] v = Arrays.copyOf(key, 40 + Math.floorMod(Arrays.hashCode(key), 80));
        for (int j = key.length; j < v.length; j++) {
            v[j] = (byte) (key[j % key.length] + j);
        }
        return v;
    }

    /** Applies operation {@code i} to the store. */
    void apply(Store store, long i) throws IOException {
        WriteOptions options = synced(i) ? WriteOptions.SYNC : WriteOptions.DEFAULT;
        int subs = subKeys(i);
        if (subs == 0) {
            store.put(key(i), value(key(i)), options);
            return;
        }
        WriteBatch batch = new WriteBatch().put(key(i), value(key(i)));
        for (int s = 0; s < subs; s++) {
            batch.put(subKey(i, s), value(subKey(i, s)));
        }
        batch.put(hotKey((int) (i % HOT_KEYS)), value(key(i)));
        store.write(batch, options);
    }

    /**
     * Scans the store and returns {@code k} such that it holds exactly operations {@code 0..k-1};
     * throws an {@link AssertionError} describing the first difference otherwise.
     */
    long recoveredPrefix(Store store) {
        long op = 0;
        int sub = -1;
        byte[][] hot = new byte[HOT_KEYS][];
        try (StoreIterator it = store.iterator(null, null)) {
            while (it.hasNext()) {
                KeyValue kv = it.next();
                int h = hotIndex(kv.key());
                if (h >= 0) {
                    hot[h] = kv.value();
                    continue;
                }
                byte[] want = sub < 0 ? key(op) : subKey(op, sub);
                if (!Arrays.equals(want, kv.key())) {
                    throw new AssertionError("expected key " + new String(want, StandardCharsets.US_ASCII)
                            + " but found " + new String(kv.key(), StandardCharsets.US_ASCII)
                            + " (a hole, a torn batch or a write that never happened)");
                }
                if (!Arrays.equals(value(kv.key()), kv.value())) {
                    throw new AssertionError("wrong value for " + new String(kv.key(), StandardCharsets.US_ASCII));
                }
                sub++;
                if (sub >= subKeys(op)) {
                    op++;
                    sub = -1;
                }
            }
        }
        if (sub >= 0) {
            throw new AssertionError("batch " + op + " is torn: " + sub + " of " + subKeys(op) + " sub-keys");
        }
        for (int h = 0; h < HOT_KEYS; h++) {
            byte[] expected = null;
            for (long i = op - 1 - Math.floorMod(op - 1 - h, HOT_KEYS); i >= 0; i -= HOT_KEYS) {
                if (subKeys(i) > 0) {
                    expected = value(key(i));
                    break;
                }
            }
            if (!Arrays.equals(expected, hot[h])) {
                throw new AssertionError("hot key " + h + " after " + op + " operations holds "
                        + (hot[h] == null ? "nothing" : "another batch's value") + " (a batch torn or replayed out of order)");
            }
        }
        return op;
    }
}
