package io.bloomstore.cli.bench;

import java.io.IOException;
import java.util.Arrays;

import io.bloomstore.core.PrefixExtractor;

/**
 * What the peers of the benchmark share — LMDB, H2's MVStore, Berkeley DB JE and Xodus, each an
 * ordered store without per-table filters: a seek, a prefix scan and a range scan are one ordered
 * scan ({@link #scan}); and they keep none of the counters {@link EngineCounters} defines (no
 * tables, no filters, no block-cache tickers), so their counters are {@link EngineCounters#notKept()}
 * and the reports show "-" there rather than a zero that would read as "no disk access". What they
 * read from storage is in the process's own figures (/proc/self/io, /proc/diskstats), which the
 * harness takes for every engine alike.
 *
 * <p>Thread safety: as {@link BenchEngine} requires; each subclass says how it gets there.
 */
abstract class PeerEngine implements BenchEngine {

    /**
     * Reads entries from the first key ≥ {@code from} forward, while the key is below
     * {@code toExclusive} (no bound when null), at most {@code limit}, copying each into the
     * buffers (as much as fits). Returns how many were read.
     */
    abstract int scan(byte[] from, byte[] toExclusive, int limit, byte[] keyBuffer, byte[] valueBuffer)
            throws IOException;

    @Override
    public final int seekScan(byte[] startKey, int count, byte[] keyBuffer, byte[] valueBuffer) throws IOException {
        return scan(startKey, null, count, keyBuffer, valueBuffer);
    }

    /** A range scan to the prefix's successor: none of these engines has a prefix filter. */
    @Override
    public final int prefixScan(byte[] prefix, byte[] keyBuffer, byte[] valueBuffer) throws IOException {
        return scan(prefix, PrefixExtractor.successor(prefix), Integer.MAX_VALUE, keyBuffer, valueBuffer);
    }

    @Override
    public final int rangeScan(byte[] from, byte[] to, byte[] keyBuffer, byte[] valueBuffer) throws IOException {
        return scan(from, to, Integer.MAX_VALUE, keyBuffer, valueBuffer);
    }

    @Override
    public final EngineCounters counters() {
        return EngineCounters.notKept();
    }

    /** Copies as much of {@code source}'s first {@code length} bytes as fits into {@code target}. */
    static void copy(byte[] source, int length, byte[] target) {
        System.arraycopy(source, 0, target, 0, Math.min(length, target.length));
    }

    /** Whether {@code key} is at or past the exclusive bound {@code toExclusive} (never, when null). */
    static boolean atOrPast(byte[] key, int keyLength, byte[] toExclusive) {
        return toExclusive != null
                && Arrays.compareUnsigned(key, 0, keyLength, toExclusive, 0, toExclusive.length) >= 0;
    }
}
