package io.bloomstore.cli.bench;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.stream.Stream;

/**
 * Runs the {@code deleterange} workload (issue 49, part 7): each engine loads {@code --keys} keys in
 * ascending order (batches of {@value Workload#BATCH_ENTRIES}), compacts them into one level
 * ({@link BenchEngine#prepareForReads}), then deletes the middle half of the key space — with one
 * range deletion, or with one tombstone per key — and at once, before any flush or compaction,
 * scans the deleted range {@value #SCANS} times (each scan finds nothing) and the whole key space
 * once (which must find exactly the keys left). It reports the time of the deletion, the median
 * time of one scan of the deleted range and the time of the full scan, as medians over the rounds
 * with the engines' order rotated each round, and the ratios: per engine, per-key tombstones over
 * range deletion (above 1: the range deletion is faster), and per mode, RocksDB over BloomStore
 * (above 1: BloomStore is faster). An untimed warm-up on fewer keys runs every engine and mode first.
 *
 * <p>Thread safety: one run per instance, on the calling thread.
 */
final class RangeDeleteBench {
    static final List<String> ENGINES = List.of(BloomStoreEngine.NAME, RocksDbEngine.NAME);
    static final List<String> MODES = List.of("range", "perkey");
    /** Scans of the deleted range per engine, mode and round; the median is reported. */
    static final int SCANS = 20;
    private static final String[] FIGURES = {"deleteMs", "deletedRangeScanMs", "fullScanMs"};

    private RangeDeleteBench() {
    }

    /** One engine's figures in one mode and round. */
    record Figures(double deleteMs, double deletedRangeScanMs, double fullScanMs) {
        double get(String figure) {
            return switch (figure) {
                case "deleteMs" -> deleteMs;
                case "deletedRangeScanMs" -> deletedRangeScanMs;
                default -> fullScanMs;
            };
        }
    }

    /**
     * Runs {@code rounds} rounds in directories under {@code root} and returns the medians by
     * engine and mode, printing each measurement and a table of medians and ratios to {@code out}.
     */
    static Map<String, Map<String, double[]>> run(Path root, BenchConfig config, EngineFactory factory, int rounds,
                                                  PrintWriter out) throws IOException {
        Map<String, List<Figures>> results = new LinkedHashMap<>();
        // An untimed warm-up of every engine and mode on a tenth of the keys (at most 50,000): the
        // first engine measured would otherwise pay the JIT for both.
        BenchConfig small = config.withKeys(Math.max(1000, Math.min(50_000, config.keys() / 10)));
        for (String engine : ENGINES) {
            for (String mode : MODES) {
                Path dir = root.resolve("deleterange-warmup-" + engine + "-" + mode);
                once(factory, engine, mode, dir, small);
                deleteRecursively(dir);
            }
        }
        for (int round = 0; round < rounds; round++) {
            List<String> order = new ArrayList<>(ENGINES);
            Collections.rotate(order, round);
            for (String engine : order) {
                for (String mode : MODES) {
                    Path dir = root.resolve("deleterange-" + engine + "-" + mode + "-" + round);
                    Figures f = once(factory, engine, mode, dir, config);
                    deleteRecursively(dir);
                    results.computeIfAbsent(engine + " " + mode, k -> new ArrayList<>()).add(f);
                    out.printf(Locale.ROOT, "deleterange round %d %s %s: delete %.1f ms, scan of the deleted range "
                            + "%.3f ms, full scan %.1f ms%n", round + 1, engine, mode, f.deleteMs(),
                            f.deletedRangeScanMs(), f.fullScanMs());
                    out.flush();
                }
            }
        }
        Map<String, Map<String, double[]>> medians = new LinkedHashMap<>();
        for (String engine : ENGINES) {
            Map<String, double[]> byMode = new LinkedHashMap<>();
            for (String mode : MODES) {
                double[] m = new double[FIGURES.length];
                for (int i = 0; i < FIGURES.length; i++) {
                    List<Double> values = new ArrayList<>();
                    for (Figures f : results.get(engine + " " + mode)) {
                        values.add(f.get(FIGURES[i]));
                    }
                    m[i] = median(values);
                }
                byMode.put(mode, m);
            }
            medians.put(engine, byMode);
        }
        int deleted = config.keys() / 2;
        out.printf(Locale.ROOT, "%ndeleterange: %d keys of %d+%d bytes, the middle %d deleted, medians of %d rounds%n",
                config.keys(), config.keySize(), config.valueSize(), deleted, rounds);
        out.printf(Locale.ROOT, "%-20s %14s %14s %14s %14s %18s %18s %18s%n", "figure (ms)", "bloom range",
                "bloom perkey", "rocks range", "rocks perkey", "bloom perkey/range", "rocks perkey/range",
                "rocks/bloom range");
        for (int i = 0; i < FIGURES.length; i++) {
            double br = medians.get("bloomstore").get("range")[i];
            double bp = medians.get("bloomstore").get("perkey")[i];
            double rr = medians.get("rocksdb").get("range")[i];
            double rp = medians.get("rocksdb").get("perkey")[i];
            out.printf(Locale.ROOT, "%-20s %14.3f %14.3f %14.3f %14.3f %18s %18s %18s%n", FIGURES[i], br, bp, rr, rp,
                    ratio(bp, br), ratio(rp, rr), ratio(rr, br));
        }
        out.printf(Locale.ROOT, "%-20s %14s %14s %14s %14s %18s %18s %18s%n", "", "", "", "", "", "", "",
                "rocks/bloom perkey");
        for (int i = 0; i < FIGURES.length; i++) {
            out.printf(Locale.ROOT, "%-20s %14s %14s %14s %14s %18s %18s %18s%n", FIGURES[i], "", "", "", "", "", "",
                    ratio(medians.get("rocksdb").get("perkey")[i], medians.get("bloomstore").get("perkey")[i]));
        }
        out.flush();
        return medians;
    }

    /** Loads, compacts, deletes the middle half in {@code mode}, and times the scans. */
    private static Figures once(EngineFactory factory, String engineName, String mode, Path dir, BenchConfig config)
            throws IOException {
        Files.createDirectories(dir);
        KeySpace keys = new KeySpace(config.keys(), config.keySize());
        ValueSource values = new ValueSource(config.valueSize(), config.seed());
        SplittableRandom random = new SplittableRandom(config.seed());
        int n = config.keys();
        int lo = n / 4;
        int hi = lo + n / 2;
        try (BenchEngine engine = factory.create(engineName)) {
            engine.open(dir, config);
            byte[][] batchKeys = new byte[Workload.BATCH_ENTRIES][];
            byte[][] batchValues = new byte[Workload.BATCH_ENTRIES][];
            for (int i = 0; i < batchKeys.length; i++) {
                batchKeys[i] = keys.newKeyBuffer();
                batchValues[i] = values.newValueBuffer();
            }
            for (int i = 0; i < n; i += batchKeys.length) {
                int count = Math.min(batchKeys.length, n - i);
                for (int j = 0; j < count; j++) {
                    keys.present(i + j, batchKeys[j]);
                    values.fill(random, batchValues[j]);
                }
                engine.putBatch(batchKeys, batchValues, count);
            }
            engine.prepareForReads();
            byte[] from = keys.newKeyBuffer();
            byte[] to = keys.newKeyBuffer();
            keys.present(lo, from);
            keys.present(hi, to);
            long started = System.nanoTime();
            if (mode.equals("range")) {
                engine.deleteRange(from, to);
            } else {
                byte[] key = keys.newKeyBuffer();
                for (int i = lo; i < hi; i++) {
                    keys.present(i, key);
                    engine.delete(key);
                }
            }
            double deleteMs = millisSince(started);
            byte[] keyBuffer = keys.newKeyBuffer();
            byte[] valueBuffer = values.newValueBuffer();
            List<Double> scans = new ArrayList<>();
            for (int s = 0; s < SCANS; s++) {
                long t = System.nanoTime();
                int found = engine.rangeScan(from, to, keyBuffer, valueBuffer);
                scans.add(millisSince(t));
                if (found != 0) {
                    throw new IllegalStateException(engineName + " " + mode + ": the deleted range still holds " + found
                            + " keys");
                }
            }
            byte[] first = keys.newKeyBuffer();
            keys.present(0, first);
            long t = System.nanoTime();
            int left = engine.rangeScan(first, null, keyBuffer, valueBuffer);
            double fullMs = millisSince(t);
            if (left != n - (hi - lo)) {
                throw new IllegalStateException(engineName + " " + mode + ": " + left + " keys left, expected "
                        + (n - (hi - lo)));
            }
            return new Figures(deleteMs, median(scans), fullMs);
        }
    }

    private static double median(List<Double> values) {
        List<Double> sorted = new ArrayList<>(values);
        Collections.sort(sorted);
        return sorted.get(sorted.size() / 2);
    }

    private static String ratio(double numerator, double denominator) {
        return denominator <= 0 ? "-" : String.format(Locale.ROOT, "%.2fx", numerator / denominator);
    }

    private static double millisSince(long nanos) {
        return (System.nanoTime() - nanos) / 1e6;
    }

    private static void deleteRecursively(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                try {
                    Files.delete(p);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }
        }
    }
}
