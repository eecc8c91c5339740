package io.bloomstore.cli.bench;

import io.bloomstore.bloom.Filters;
import io.bloomstore.bloom.MembershipFilter;
import io.bloomstore.bloom.storage.Storage;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.LongAdder;

/**
 * A model engine for testing the harness without any real store: a sorted in-memory
 * memtable that becomes an immutable "table" when it reaches the configured size, each
 * table with a real Bloom filter from store-bloom (or none), and no compaction, so a lookup
 * consults every table whose key range holds the key. Reading a table costs one simulated
 * data-block read; there is no block cache. Its "disk" is a map shared by the engines of one
 * {@link #factory()}, keyed by directory: close keeps the tables (the memtable flushed, as a
 * write-ahead log would keep it), and a later open of the same directory finds them, unless
 * the directory was deleted in between (a marker file tells).
 *
 * <p>Thread safety: writes are serialised; reads may run concurrently with them.
 */
final class SimulatedEngine implements BenchEngine {
    private static final long BLOCK_BYTES = 4096;

    /** The file that marks a directory this engine has opened (and not deleted since). */
    static final String MARKER = "SIMULATED";

    private final boolean filters;
    private final Map<Path, List<Table>> disk;
    private Path dir;
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

    SimulatedEngine(boolean filters, Map<Path, List<Table>> disk) {
        this.filters = filters;
        this.disk = disk;
    }

    /** Tables written so far. */
    int tableCount() {
        return tables.size();
    }

    @Override
    public void open(Path d, BenchConfig config) {
        this.config = config;
        this.dir = d;
        try {
            Path marker = d.resolve(MARKER);
            List<Table> kept = disk.remove(d);
            if (Files.exists(marker) && kept != null) {
                tables.addAll(kept);
            } else {
                Files.createDirectories(d);
                Files.writeString(marker, "");
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
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
    public synchronized void close() {
        prepareForReads();
        disk.put(dir, List.copyOf(tables));
        tables.clear();
    }

    private static ConcurrentSkipListMap<byte[], byte[]> newMemtable() {
        return new ConcurrentSkipListMap<>(Arrays::compareUnsigned);
    }

    record Table(NavigableMap<byte[], byte[]> rows, MembershipFilter filter) {
    }

    /** A factory with this engine as {@code sim} (filters) and {@code sim-nofilter}. */
    static EngineFactory factory() {
        Map<Path, List<Table>> disk = new ConcurrentHashMap<>();
        return new EngineFactory()
                .register("sim", () -> new SimulatedEngine(true, disk))
                .register("sim-nofilter", () -> new SimulatedEngine(false, disk));
    }
}
