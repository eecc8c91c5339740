package io.bloomstore.cli.bench;

import io.bloomstore.bloom.Filters;
import io.bloomstore.bloom.MembershipFilter;
import io.bloomstore.bloom.storage.Storage;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.LongAdder;

/**
 * A model engine for testing the harness without any real store: a sorted in-memory
 * memtable that becomes an immutable "table" when it reaches the configured size, each
 * table with a real Bloom filter from store-bloom (or none), and no compaction, so a lookup
 * consults every table whose key range holds the key. Reading a table costs one simulated
 * data-block read; there is no block cache.
 *
 * <p>Thread safety: writes are serialised; reads may run concurrently with them.
 */
final class SimulatedEngine implements BenchEngine {
    private static final long BLOCK_BYTES = 4096;

    private final boolean filters;
    private final List<Table> tables = new CopyOnWriteArrayList<>();
    private final LongAdder gets = new LongAdder();
    private final LongAdder consulted = new LongAdder();
    private final LongAdder blockReads = new LongAdder();
    private final LongAdder negatives = new LongAdder();
    private final LongAdder positives = new LongAdder();
    private final LongAdder truePositives = new LongAdder();
    private volatile ConcurrentSkipListMap<byte[], byte[]> memtable = newMemtable();
    private long memtableBytes;
    private BenchConfig config;

    SimulatedEngine(boolean filters) {
        this.filters = filters;
    }

    /** Tables written so far. */
    int tableCount() {
        return tables.size();
    }

    @Override
    public void open(Path dir, BenchConfig config) {
        this.config = config;
    }

    @Override
    public synchronized void put(byte[] key, byte[] value) {
        memtable.put(key.clone(), value.clone());
        memtableBytes += key.length + value.length;
        if (memtableBytes >= config.memtableBytes()) {
            flush();
        }
    }

    @Override
    public int get(byte[] key, byte[] valueBuffer) {
        gets.increment();
        byte[] v = memtable.get(key);
        if (v == null) {
            v = fromTables(key);
        }
        if (v == null) {
            return NOT_FOUND;
        }
        System.arraycopy(v, 0, valueBuffer, 0, Math.min(v.length, valueBuffer.length));
        return v.length;
    }

    private byte[] fromTables(byte[] key) {
        for (Table t : tables) {
            if (Arrays.compareUnsigned(key, t.rows.firstKey()) < 0 || Arrays.compareUnsigned(key, t.rows.lastKey()) > 0) {
                continue;
            }
            consulted.increment();
            if (t.filter != null) {
                if (!t.filter.mightContain(key)) {
                    negatives.increment();
                    continue;
                }
                positives.increment();
            }
            blockReads.increment();
            byte[] v = t.rows.get(key);
            if (v != null) {
                if (t.filter != null) {
                    truePositives.increment();
                }
                return v;
            }
        }
        return null;
    }

    @Override
    public int seekScan(byte[] startKey, int count, byte[] keyBuffer, byte[] valueBuffer) {
        NavigableMap<byte[], byte[]> merged = new TreeMap<>(Arrays::compareUnsigned);
        List<NavigableMap<byte[], byte[]>> sources = new ArrayList<>();
        sources.add(memtable);
        tables.forEach(t -> sources.add(t.rows));
        for (int i = sources.size() - 1; i >= 0; i--) {
            int taken = 0;
            for (Map.Entry<byte[], byte[]> e : sources.get(i).tailMap(startKey, true).entrySet()) {
                if (taken++ == count) {
                    break;
                }
                merged.put(e.getKey(), e.getValue());
            }
        }
        int read = 0;
        for (Map.Entry<byte[], byte[]> e : merged.entrySet()) {
            if (read == count) {
                break;
            }
            System.arraycopy(e.getKey(), 0, keyBuffer, 0, Math.min(e.getKey().length, keyBuffer.length));
            read++;
        }
        return read;
    }

    @Override
    public synchronized void prepareForReads() {
        if (!memtable.isEmpty()) {
            flush();
        }
    }

    private void flush() {
        NavigableMap<byte[], byte[]> rows = new TreeMap<>(Arrays::compareUnsigned);
        rows.putAll(memtable);
        MembershipFilter filter = null;
        if (filters) {
            long[] hashes = rows.keySet().stream().mapToLong(Filters::hash).toArray();
            filter = Filters.build(config.filterKind(), config.bitsPerKey(), hashes, hashes.length, Storage.HEAP);
        }
        tables.add(0, new Table(rows, filter));
        memtable = newMemtable();
        memtableBytes = 0;
    }

    @Override
    public EngineCounters counters() {
        return new EngineCounters(gets.sum(), consulted.sum(), blockReads.sum(), blockReads.sum() * BLOCK_BYTES,
                negatives.sum(), positives.sum(), truePositives.sum(), 0, 0,
                filters ? config.theoreticalFpr() : 1.0);
    }

    @Override
    public void close() {
        tables.forEach(t -> {
            if (t.filter != null) {
                t.filter.close();
            }
        });
        tables.clear();
    }

    private static ConcurrentSkipListMap<byte[], byte[]> newMemtable() {
        return new ConcurrentSkipListMap<>(Arrays::compareUnsigned);
    }

    private record Table(NavigableMap<byte[], byte[]> rows, MembershipFilter filter) {
    }

    /** A factory with this engine as {@code sim} (filters) and {@code sim-nofilter}. */
    static EngineFactory factory() {
        return new EngineFactory()
                .register("sim", () -> new SimulatedEngine(true))
                .register("sim-nofilter", () -> new SimulatedEngine(false));
    }
}
