package io.bloomstore.core.table;

import java.util.Arrays;

/**
 * The key hashes a table's filter is built from, gathered as the keys arrive: in chunks of 8,192
 * (64 KiB each), never regrown. A single array doubling to a 64 MiB table's 578,000 hashes copied
 * each stretch again and, past the garbage collector's large-object size, allocated and zeroed
 * every copy outside the young generation: 5% of a bulk load's writing thread (JFR samples in
 * {@code Arrays.copyOf}). {@link #toArray()} joins them once, for the filter build.
 *
 * <p>Thread safety: one thread at a time.
 */
final class HashBuffer {
    private static final int CHUNK = 8192;
    private long[][] chunks = new long[4][];
    private long[] current = new long[1024];
    private int chunkCount;
    private int inCurrent;
    private int count;

    void add(long h) {
        if (inCurrent == current.length) {
            if (current.length < CHUNK) {
                // Small tables (a flush's) stay in one small array.
                current = Arrays.copyOf(current, Math.min(CHUNK, current.length * 2));
            } else {
                if (chunkCount == chunks.length) {
                    chunks = Arrays.copyOf(chunks, chunkCount * 2);
                }
                chunks[chunkCount++] = current;
                current = new long[CHUNK];
                inCurrent = 0;
            }
        }
        current[inCurrent++] = h;
        count++;
    }

    int count() {
        return count;
    }

    /** Every hash in order, in an array of at least {@link #count()} longs (exactly that many once chunks were used). */
    long[] toArray() {
        if (chunkCount == 0) {
            return current;
        }
        long[] all = new long[count];
        int at = 0;
        for (int i = 0; i < chunkCount; i++) {
            System.arraycopy(chunks[i], 0, all, at, chunks[i].length);
            at += chunks[i].length;
        }
        System.arraycopy(current, 0, all, at, inCurrent);
        return all;
    }
}
