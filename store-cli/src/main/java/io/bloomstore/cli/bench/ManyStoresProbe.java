package io.bloomstore.cli.bench;

import io.bloomstore.core.Store;
import io.bloomstore.core.StoreOptions;
import io.bloomstore.core.StoreResources;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.BloomFilter;
import org.rocksdb.FlushOptions;
import org.rocksdb.LRUCache;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteBufferManager;

/**
 * The {@code manystores} workload, in a JVM of its own per engine (so its threads and resident
 * set are its own): opens N stores, writes each one's keys (100-byte values) and flushes it, reads
 * every key once, then closes them all, as a service holding a store per partition or tenant
 * does. Engines: {@code bloomstore} (its defaults: the JVM-wide {@link StoreResources#shared()}),
 * {@code rocksdb} (each instance with its defaults, all under RocksDB's default {@code Env}), and
 * {@code rocksdb-shared} (one {@code LRUCache} and one {@code WriteBufferManager} for every instance,
 * of the budgets {@code StoreResources.shared()} has in the same JVM: Kafka Streams'
 * {@code BoundedMemoryRocksDBConfig}). Prints one result line: times in ms, the process's threads
 * (every OS thread, so RocksDB's native ones count), resident set and heap in MiB.
 *
 * <p>Arguments: {@code ENGINE DIR STORES KEYS_PER_STORE}.
 */
public final class ManyStoresProbe {
    private ManyStoresProbe() {
    }

    /** One store of either engine. */
    private interface Handle extends AutoCloseable {
        void put(byte[] key, byte[] value) throws Exception;

        byte[] get(byte[] key) throws Exception;

        void flush() throws Exception;

        @Override
        void close() throws Exception;
    }

    public static void main(String[] args) {
        PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
        try {
            out.println(ChildJvm.RESULT_PREFIX + run(args[0], Path.of(args[1]), Integer.parseInt(args[2]),
                    Integer.parseInt(args[3])));
        } catch (Exception e) {
            e.printStackTrace();
            System.exit(1);
        }
        System.exit(0);
    }

    static String run(String engine, Path dir, int stores, int keys) throws Exception {
        Files.createDirectories(dir);
        List<AutoCloseable> shared = new ArrayList<>();
        List<Handle> handles = new ArrayList<>();
        long t0 = System.nanoTime();
        for (int i = 0; i < stores; i++) {
            handles.add(open(engine, dir.resolve("s" + i), shared));
        }
        long opened = System.nanoTime();
        byte[] value = new byte[100];
        for (Handle h : handles) {
            for (int k = 0; k < keys; k++) {
                ByteBuffer.wrap(value).putInt(k);
                h.put(key(k), value);
            }
            h.flush();
        }
        long written = System.nanoTime();
        int threads = processThreads();
        long found = 0;
        for (Handle h : handles) {
            for (int k = 0; k < keys; k++) {
                found += h.get(key(k)) != null ? 1 : 0;
            }
        }
        long read = System.nanoTime();
        if (found != (long) stores * keys) {
            throw new IllegalStateException(engine + " found " + found + " of " + (long) stores * keys + " keys");
        }
        long rss = residentKiB();
        long heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
        for (Handle h : handles) {
            h.close();
        }
        long closed = System.nanoTime();
        for (AutoCloseable c : shared) {
            c.close();
        }
        return String.format(Locale.ROOT, "{\"engine\":\"%s\",\"stores\":%d,\"keysPerStore\":%d,\"openMs\":%.1f,"
                        + "\"writeMs\":%.1f,\"readMs\":%.1f,\"closeMs\":%.1f,\"threadsAfterWrites\":%d,\"residentMiB\":%.1f,"
                        + "\"heapMiB\":%.1f}", engine, stores, keys, ms(opened - t0), ms(written - opened), ms(read - written),
                ms(closed - read), threads, rss / 1024.0, heap / 1048576.0);
    }

    private static double ms(long nanos) {
        return nanos / 1e6;
    }

    /**
     * {@code "key%010d"} in ASCII, written digit by digit: {@code String.format} allocated some 3 KB a key, three
     * quarters of all the probe's garbage, which then sized the heap (and the resident set) of either engine.
     */
    static byte[] key(int k) {
        byte[] b = {'k', 'e', 'y', '0', '0', '0', '0', '0', '0', '0', '0', '0', '0'};
        for (int i = b.length - 1, v = k; v > 0; i--, v /= 10) {
            b[i] = (byte) ('0' + v % 10);
        }
        return b;
    }

    private static Handle open(String engine, Path dir, List<AutoCloseable> shared) throws Exception {
        switch (engine) {
            case "bloomstore" -> {
                Store s = Store.open(dir, StoreOptions.defaults());
                return new Handle() {
                    public void put(byte[] key, byte[] value) throws IOException {
                        s.put(key, value);
                    }

                    public byte[] get(byte[] key) throws IOException {
                        return s.get(key);
                    }

                    public void flush() throws IOException {
                        s.flush();
                    }

                    public void close() throws IOException {
                        s.close();
                    }
                };
            }
            case "rocksdb", "rocksdb-shared" -> {
                RocksDB.loadLibrary();
                Options options = new Options().setCreateIfMissing(true);
                if (engine.equals("rocksdb-shared")) {
                    if (shared.isEmpty()) {
                        StoreResources r = StoreResources.shared();
                        LRUCache cache = new LRUCache(r.blockCacheBytes());
                        shared.add(cache);
                        shared.add(new WriteBufferManager(r.memtableBudgetBytes(), cache));
                    }
                    options.setTableFormatConfig(new BlockBasedTableConfig().setBlockCache((LRUCache) shared.get(0))
                            .setFilterPolicy(new BloomFilter(10)));
                    options.setWriteBufferManager((WriteBufferManager) shared.get(1));
                } else {
                    options.setTableFormatConfig(new BlockBasedTableConfig().setFilterPolicy(new BloomFilter(10)));
                }
                RocksDB db = RocksDB.open(options, dir.toString());
                return new Handle() {
                    public void put(byte[] key, byte[] value) throws RocksDBException {
                        db.put(key, value);
                    }

                    public byte[] get(byte[] key) throws RocksDBException {
                        return db.get(key);
                    }

                    public void flush() throws RocksDBException {
                        try (FlushOptions f = new FlushOptions().setWaitForFlush(true)) {
                            db.flush(f);
                        }
                    }

                    public void close() {
                        db.close();
                        options.close();
                    }
                };
            }
            default -> throw new IllegalArgumentException("unknown engine for manystores: " + engine
                    + " (bloomstore, rocksdb, rocksdb-shared)");
        }
    }

    /** The process's OS threads: Java's and native ones alike (also read by {@code BrokerFootprintChild}). */
    public static int processThreads() throws IOException {
        try (var tasks = Files.list(Path.of("/proc/self/task"))) {
            return (int) tasks.count();
        }
    }

    /** The process's resident set in KiB ({@code VmRSS}), -1 when the kernel does not say. */
    public static long residentKiB() throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
            if (line.startsWith("VmRSS:")) {
                return Long.parseLong(line.replaceAll("[^0-9]", ""));
            }
        }
        return -1;
    }
}
