package io.bloomstore.cli.bench;

import io.bloomstore.core.MergeOperators;
import io.bloomstore.core.Store;
import io.bloomstore.core.StoreOptions;
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
import java.util.SplittableRandom;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;

/**
 * The {@code counters} workload: {@code increments} increments of 1 spread over {@code counters}
 * counters (uniformly at random, seed 42), one thread, then one read of every counter (checked
 * against the expected sums), four ways in one JVM: BloomStore's {@code merge} with
 * {@link MergeOperators#int64Add()}, BloomStore read-modify-write ({@code get} then {@code put}),
 * RocksDB's {@code merge} with its built-in {@code uint64add} operator, and RocksDB
 * read-modify-write. Every store with its defaults (no sync per write, WAL on), the same key and
 * operand sizes (16-byte keys, 8-byte counters). The ways run in a rotated order each round;
 * figures are medians of the rounds, with ratios taken within each round.
 *
 * <p>Thread safety: one run per instance.
 */
final class CountersBench {
    static final List<String> WAYS = List.of("bloomstore-merge", "bloomstore-rmw", "rocksdb-merge", "rocksdb-rmw");

    private CountersBench() {
    }

    /** One way's figures in one round. */
    record Round(double incrementsPerSecond, double readAllMs) {
    }

    static Map<String, List<Round>> run(Path dir, int counters, int increments, int rounds, PrintWriter out)
            throws IOException {
        RocksDB.loadLibrary();
        Map<String, List<Round>> results = new LinkedHashMap<>();
        for (int round = 0; round < rounds; round++) {
            List<String> order = new ArrayList<>(WAYS);
            Collections.rotate(order, round);
            for (String way : order) {
                Path work = dir.resolve("counters-" + way + "-" + round);
                Round r = runWay(way, work, counters, increments);
                results.computeIfAbsent(way, w -> new ArrayList<>()).add(r);
                BenchRunner.deleteRecursively(work);
                out.printf(Locale.ROOT, "counters round %d %-16s %,12.0f increments/s, read all %8.1f ms%n", round + 1,
                        way, r.incrementsPerSecond(), r.readAllMs());
                out.flush();
            }
        }
        out.printf(Locale.ROOT, "%ncounters: %,d increments over %,d counters, medians of %d rounds%n", increments,
                counters, rounds);
        out.printf(Locale.ROOT, "%-18s %16s %14s%n", "way", "increments/s", "read all ms");
        for (String way : WAYS) {
            out.printf(Locale.ROOT, "%-18s %,16.0f %14.1f%n", way, median(results.get(way), true),
                    median(results.get(way), false));
        }
        out.printf(Locale.ROOT, "bloomstore-merge / rocksdb-merge increments/s: %.2fx (median of per-round ratios)%n",
                medianRatio(results, "bloomstore-merge", "rocksdb-merge"));
        out.printf(Locale.ROOT, "bloomstore-merge / bloomstore-rmw increments/s: %.2fx%n",
                medianRatio(results, "bloomstore-merge", "bloomstore-rmw"));
        out.printf(Locale.ROOT, "bloomstore-rmw / rocksdb-rmw increments/s: %.2fx%n",
                medianRatio(results, "bloomstore-rmw", "rocksdb-rmw"));
        out.flush();
        return results;
    }

    private static double median(List<Round> rounds, boolean rate) {
        List<Double> v = new ArrayList<>();
        for (Round r : rounds) {
            v.add(rate ? r.incrementsPerSecond() : r.readAllMs());
        }
        Collections.sort(v);
        return v.get(v.size() / 2);
    }

    /** The median over rounds of {@code a}'s rate divided by {@code b}'s in the same round. */
    static double medianRatio(Map<String, List<Round>> results, String a, String b) {
        List<Double> v = new ArrayList<>();
        for (int i = 0; i < results.get(a).size(); i++) {
            v.add(results.get(a).get(i).incrementsPerSecond() / results.get(b).get(i).incrementsPerSecond());
        }
        Collections.sort(v);
        return v.get(v.size() / 2);
    }

    private static byte[] key(int counter) {
        return String.format(Locale.ROOT, "counter-%08d", counter).getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    }

    static Round runWay(String way, Path dir, int counters, int increments) throws IOException {
        Files.createDirectories(dir);
        long[] expected = new long[counters];
        SplittableRandom rnd = new SplittableRandom(42);
        int[] picks = new int[increments];
        for (int i = 0; i < increments; i++) {
            picks[i] = rnd.nextInt(counters);
            expected[picks[i]]++;
        }
        byte[][] keys = new byte[counters][];
        for (int c = 0; c < counters; c++) {
            keys[c] = key(c);
        }
        try {
            if (way.startsWith("bloomstore")) {
                return bloomstore(way.endsWith("merge"), dir, keys, picks, expected);
            }
            return rocksdb(way.endsWith("merge"), dir, keys, picks, expected);
        } catch (RocksDBException e) {
            throw new IOException("RocksDB failed in " + way + ": " + e.getMessage(), e);
        }
    }

    private static Round bloomstore(boolean merge, Path dir, byte[][] keys, int[] picks, long[] expected)
            throws IOException {
        StoreOptions options = StoreOptions.builder().mergeOperator(MergeOperators.int64Add()).build();
        try (Store store = Store.open(dir, options)) {
            byte[] one = MergeOperators.int64(1);
            long start = System.nanoTime();
            for (int pick : picks) {
                if (merge) {
                    store.merge(keys[pick], one);
                } else {
                    byte[] v = store.get(keys[pick]);
                    store.put(keys[pick], MergeOperators.int64(v == null ? 1 : MergeOperators.int64(v) + 1));
                }
            }
            long writeNanos = System.nanoTime() - start;
            start = System.nanoTime();
            for (int c = 0; c < keys.length; c++) {
                byte[] v = store.get(keys[c]);
                check(c, v == null ? 0 : MergeOperators.int64(v), expected[c]);
            }
            long readNanos = System.nanoTime() - start;
            return new Round(picks.length * 1e9 / writeNanos, readNanos / 1e6);
        }
    }

    private static Round rocksdb(boolean merge, Path dir, byte[][] keys, int[] picks, long[] expected)
            throws RocksDBException {
        try (Options options = new Options().setCreateIfMissing(true).setMergeOperatorName("uint64add");
             RocksDB db = RocksDB.open(options, dir.toString())) {
            byte[] one = littleEndian(1);
            long start = System.nanoTime();
            for (int pick : picks) {
                if (merge) {
                    db.merge(keys[pick], one);
                } else {
                    byte[] v = db.get(keys[pick]);
                    db.put(keys[pick], littleEndian(v == null ? 1 : fromLittleEndian(v) + 1));
                }
            }
            long writeNanos = System.nanoTime() - start;
            start = System.nanoTime();
            for (int c = 0; c < keys.length; c++) {
                byte[] v = db.get(keys[c]);
                check(c, v == null ? 0 : fromLittleEndian(v), expected[c]);
            }
            long readNanos = System.nanoTime() - start;
            return new Round(picks.length * 1e9 / writeNanos, readNanos / 1e6);
        }
    }

    private static void check(int counter, long actual, long expected) {
        if (actual != expected) {
            throw new IllegalStateException("counter " + counter + " reads " + actual + ", expected " + expected);
        }
    }

    /** RocksDB's uint64add operands: 8 bytes, little-endian (its EncodeFixed64). */
    private static byte[] littleEndian(long v) {
        byte[] b = new byte[8];
        for (int i = 0; i < 8; i++) {
            b[i] = (byte) (v >>> (8 * i));
        }
        return b;
    }

    private static long fromLittleEndian(byte[] b) {
        long v = 0;
        for (int i = 7; i >= 0; i--) {
            v = (v << 8) | (b[i] & 0xFF);
        }
        return v;
    }
}
