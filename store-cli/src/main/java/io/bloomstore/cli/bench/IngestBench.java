package io.bloomstore.cli.bench;

import io.bloomstore.core.Store;
import io.bloomstore.core.StoreOptions;
import io.bloomstore.core.TableWriter;
import io.bloomstore.core.WriteBatch;
import io.bloomstore.core.WriteOptions;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.rocksdb.EnvOptions;
import org.rocksdb.IngestExternalFileOptions;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.SstFileWriter;

/**
 * The {@code ingest} workload (issue 48, part 4): {@code keys} sorted keys (16 bytes, ascending)
 * with {@code valueSize}-byte random values (seed 42) into an empty store, three ways, in a rotated
 * order each round, each timed until the data is in the store and the store settled:
 * <ul>
 * <li>{@code bloomstore-ingest}: {@link TableWriter} writes tables of 64 MiB beside the store (each
 *     finished by {@link TableWriter#finishAsync()} while the next is written, as {@code bloomstore
 *     ingest} does), then {@link Store#ingest} links them in;</li>
 * <li>{@code bloomstore-load}: what {@code bloomstore load} does, batches of 1,000 puts, then a
 *     flush and waiting for background compactions;</li>
 * <li>{@code rocksdb-ingest}: RocksDB's {@code SstFileWriter} writes files of 64 MiB, then
 *     {@code ingestExternalFile} moves them in.</li>
 * </ul>
 * Then every 1,000th key is read back from the store and checked. Each engine with its defaults
 * (LZ4 for both). Figures are medians of the rounds; ratios, medians of per-round ratios.
 *
 * <p>Thread safety: one run per instance.
 */
final class IngestBench {
    static final List<String> WAYS = List.of("bloomstore-ingest", "bloomstore-load", "rocksdb-ingest");
    private static final long FILE_BYTES = 64L << 20;

    private IngestBench() {
    }

    static Map<String, List<Double>> run(Path dir, int keys, int valueSize, int rounds, PrintWriter out)
            throws IOException {
        RocksDB.loadLibrary();
        Map<String, List<Double>> seconds = new LinkedHashMap<>();
        for (int round = 0; round < rounds; round++) {
            List<String> order = new ArrayList<>(WAYS);
            Collections.rotate(order, round);
            for (String way : order) {
                Path work = dir.resolve("ingest-" + way + "-" + round);
                double s = runWay(way, work, keys, valueSize);
                seconds.computeIfAbsent(way, w -> new ArrayList<>()).add(s);
                BenchRunner.deleteRecursively(work);
                out.printf(Locale.ROOT, "ingest round %d %-18s %8.2f s, %,12.0f keys/s%n", round + 1, way, s, keys / s);
                out.flush();
            }
        }
        out.printf(Locale.ROOT, "%ningest: %,d sorted keys of 16 + %d bytes, medians of %d rounds%n", keys, valueSize,
                rounds);
        for (String way : WAYS) {
            double m = Summary.median(seconds.get(way));
            out.printf(Locale.ROOT, "%-18s %8.2f s %,14.0f keys/s%n", way, m, keys / m);
        }
        out.printf(Locale.ROOT, "bloomstore-ingest / bloomstore-load keys/s: %.2fx (median of per-round ratios)%n",
                medianRatio(seconds, "bloomstore-load", "bloomstore-ingest"));
        out.printf(Locale.ROOT, "bloomstore-ingest / rocksdb-ingest keys/s: %.2fx%n",
                medianRatio(seconds, "rocksdb-ingest", "bloomstore-ingest"));
        out.flush();
        return seconds;
    }

    /** Median over rounds of {@code slower}'s seconds / {@code faster}'s: the keys/s ratio faster / slower. */
    private static double medianRatio(Map<String, List<Double>> seconds, String slower, String faster) {
        List<Double> r = new ArrayList<>();
        for (int i = 0; i < seconds.get(slower).size(); i++) {
            r.add(seconds.get(slower).get(i) / seconds.get(faster).get(i));
        }
        return Summary.median(r);
    }

    /** Key {@code i}: "key" and 13 decimal digits, so ascending {@code i} sorts ascending. */
    static byte[] key(long i) {
        byte[] k = new byte[16];
        k[0] = 'k';
        k[1] = 'e';
        k[2] = 'y';
        for (int j = 15; j >= 3; j--) {
            k[j] = (byte) ('0' + i % 10);
            i /= 10;
        }
        return k;
    }

    /**
     * Keys 0, 1, 2 ... in order, each {@link #key(long)}'s bytes in an array of its own, made by
     * counting up the previous key's digits: 13 divisions a key were some two fifths of the ingest
     * way's writing thread (JFR), the same in every way, so they pulled every ratio toward 1 as the
     * byte-at-a-time values did.
     */
    static final class Keys {
        private final byte[] next = key(0);

        byte[] next() {
            byte[] k = next.clone();
            for (int j = next.length - 1; j >= 3; j--) {
                if (next[j] != '9') {
                    next[j]++;
                    break;
                }
                next[j] = '0';
            }
            return k;
        }
    }

    /**
     * Key {@code i}'s value: the same bytes in every way and round (a SplitMix64 stream seeded by
     * 42 and {@code i}, each word's bytes lowest first), made without allocating, so that making
     * the data costs every way little and the same.
     */
    static void value(long i, byte[] into) {
        // Whole words stored 8 bytes at a time (little-endian: the same bytes as one at a time, in
        // a third of the time; the byte loop was a quarter of the ingest way's writing thread).
        long x = 42 + i * 0x9E3779B97F4A7C15L;
        int whole = into.length & ~7;
        for (int j = 0; j < into.length; j += 8) {
            x += 0x9E3779B97F4A7C15L;
            long z = x;
            z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
            z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
            z ^= z >>> 31;
            if (j < whole) {
                LONGS.set(into, j, z);
            } else {
                for (int b = 0; j + b < into.length; b++) {
                    into[j + b] = (byte) (z >>> (8 * b));
                }
            }
        }
    }

    private static final java.lang.invoke.VarHandle LONGS = java.lang.invoke.MethodHandles.byteArrayViewVarHandle(
            long[].class, java.nio.ByteOrder.LITTLE_ENDIAN);

    static double runWay(String way, Path dir, int keys, int valueSize) throws IOException {
        Files.createDirectories(dir);
        Path store = dir.resolve("store");
        Path files = dir.resolve("files");
        Files.createDirectories(files);
        byte[] value = new byte[valueSize];
        long start = System.nanoTime();
        try {
            if (way.equals("rocksdb-ingest")) {
                rocksdbIngest(store, files, keys, value);
            } else if (way.equals("bloomstore-ingest")) {
                bloomstoreIngest(store, files, keys, value);
            } else {
                bloomstoreLoad(store, keys, value);
            }
        } catch (RocksDBException e) {
            throw new IOException("RocksDB failed: " + e.getMessage(), e);
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        check(way, store, keys, value);
        return seconds;
    }

    private static void bloomstoreIngest(Path store, Path files, int keys, byte[] value) throws IOException {
        List<Path> tables = new ArrayList<>();
        StoreOptions options = StoreOptions.defaults();
        TableWriter w = null;
        // The previous table, finished on the resources' threads while the next is written.
        java.util.concurrent.CompletableFuture<io.bloomstore.core.TableWriterResult> finishing = null;
        long bytes = 0;
        Keys sequence = new Keys();
        for (long i = 0; i < keys; i++) {
            if (w == null) {
                Path t = files.resolve("t" + tables.size() + ".sst");
                tables.add(t);
                w = TableWriter.create(t, options);
                bytes = 0;
            }
            value(i, value);
            byte[] k = sequence.next();
            w.put(k, value);
            bytes += k.length + value.length;
            if (bytes >= FILE_BYTES) {
                if (finishing != null) {
                    TableWriter.await(finishing);
                }
                finishing = w.finishAsync();
                w = null;
            }
        }
        if (w != null) {
            w.finish();
        }
        if (finishing != null) {
            TableWriter.await(finishing);
        }
        try (Store s = Store.open(store, options)) {
            s.ingest(tables);
            s.awaitCompactions();
        }
    }

    private static void bloomstoreLoad(Path store, int keys, byte[] value) throws IOException {
        try (Store s = Store.open(store, StoreOptions.defaults())) {
            WriteBatch batch = new WriteBatch();
            Keys sequence = new Keys();
            for (long i = 0; i < keys; i++) {
                value(i, value);
                batch.put(sequence.next(), value);
                if (batch.count() == 1000) {
                    s.write(batch, WriteOptions.DEFAULT);
                    batch.clear();
                }
            }
            if (batch.count() > 0) {
                s.write(batch, WriteOptions.DEFAULT);
            }
            s.flush();
            s.awaitCompactions();
        }
    }

    private static void rocksdbIngest(Path store, Path files, int keys, byte[] value) throws RocksDBException {
        List<String> sst = new ArrayList<>();
        try (Options options = new Options().setCreateIfMissing(true)
                .setCompressionType(org.rocksdb.CompressionType.LZ4_COMPRESSION);
             EnvOptions env = new EnvOptions()) {
            SstFileWriter w = null;
            long bytes = 0;
            Keys sequence = new Keys();
            try {
                for (long i = 0; i < keys; i++) {
                    if (w == null) {
                        String f = files.resolve("r" + sst.size() + ".sst").toString();
                        sst.add(f);
                        w = new SstFileWriter(env, options);
                        w.open(f);
                        bytes = 0;
                    }
                    value(i, value);
                    byte[] k = sequence.next();
                    w.put(k, value);
                    bytes += k.length + value.length;
                    if (bytes >= FILE_BYTES) {
                        w.finish();
                        w.close();
                        w = null;
                    }
                }
                if (w != null) {
                    w.finish();
                }
            } finally {
                if (w != null) {
                    w.close();
                }
            }
            try (RocksDB db = RocksDB.open(options, store.toString());
                 IngestExternalFileOptions ingest = new IngestExternalFileOptions().setMoveFiles(true)) {
                db.ingestExternalFile(sst, ingest);
            }
        }
    }

    /** Every 1,000th key reads back with its value, else the run fails. */
    private static void check(String way, Path store, int keys, byte[] scratch) throws IOException {
        byte[] expected = new byte[scratch.length];
        if (way.startsWith("rocksdb")) {
            try (Options options = new Options(); RocksDB db = RocksDB.open(options, store.toString())) {
                for (long i = 0; i < keys; i += 1000) {
                    value(i, expected);
                    if (!java.util.Arrays.equals(expected, db.get(key(i)))) {
                        throw new IllegalStateException(way + ": key " + i + " does not read back");
                    }
                }
            } catch (RocksDBException e) {
                throw new IOException(e);
            }
            return;
        }
        try (Store s = Store.open(store, StoreOptions.defaults())) {
            for (long i = 0; i < keys; i += 1000) {
                value(i, expected);
                if (!java.util.Arrays.equals(expected, s.get(key(i)))) {
                    throw new IllegalStateException(way + ": key " + i + " does not read back");
                }
            }
        }
    }
}
