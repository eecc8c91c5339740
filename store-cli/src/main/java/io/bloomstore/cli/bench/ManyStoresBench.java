package io.bloomstore.cli.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Runs the {@code manystores} workload: {@link ManyStoresProbe} in a fresh JVM per engine and
 * round, the engines' order rotated each round, and reports each figure's median with BloomStore's
 * ratio to each other engine (time ratios as other / BloomStore, so above 1 is BloomStore faster;
 * threads and memory as BloomStore / other, so below 1 is BloomStore smaller).
 *
 * <p>Thread safety: one run per instance.
 */
final class ManyStoresBench {
    static final List<String> ENGINES = List.of("bloomstore", "rocksdb", "rocksdb-shared");
    private static final String[] FIGURES = {"openMs", "writeMs", "readMs", "closeMs", "threadsAfterWrites",
            "residentMiB", "heapMiB"};

    private ManyStoresBench() {
    }

    /** Runs {@code rounds} rounds and returns the per-engine medians, printing a table to {@code out}. */
    static Map<String, Map<String, Double>> run(Path dir, int stores, int keysPerStore, int rounds, PrintWriter out)
            throws IOException {
        Map<String, List<JsonNode>> results = new LinkedHashMap<>();
        ObjectMapper json = new ObjectMapper();
        for (int round = 0; round < rounds; round++) {
            List<String> order = new ArrayList<>(ENGINES);
            Collections.rotate(order, round);
            for (String engine : order) {
                Path work = dir.resolve("manystores-" + engine + "-" + round);
                String line = child(engine, work, stores, keysPerStore);
                results.computeIfAbsent(engine, e -> new ArrayList<>()).add(json.readTree(line));
                BenchRunner.deleteRecursively(work);
                out.printf(Locale.ROOT, "manystores round %d %s: %s%n", round + 1, engine, line);
                out.flush();
            }
        }
        Map<String, Map<String, Double>> medians = new LinkedHashMap<>();
        for (String engine : ENGINES) {
            Map<String, Double> m = new LinkedHashMap<>();
            for (String f : FIGURES) {
                List<Double> values = new ArrayList<>();
                for (JsonNode r : results.get(engine)) {
                    values.add(r.get(f).asDouble());
                }
                Collections.sort(values);
                m.put(f, values.get(values.size() / 2));
            }
            medians.put(engine, m);
        }
        out.printf(Locale.ROOT, "%nmanystores: %d stores x %d keys, medians of %d rounds%n", stores, keysPerStore, rounds);
        out.printf(Locale.ROOT, "%-20s %12s %12s %16s %24s %24s%n", "figure", "bloomstore", "rocksdb", "rocksdb-shared",
                "ratio vs rocksdb", "ratio vs rocksdb-shared");
        for (String f : FIGURES) {
            double b = medians.get("bloomstore").get(f);
            double r = medians.get("rocksdb").get(f);
            double s = medians.get("rocksdb-shared").get(f);
            boolean time = f.endsWith("Ms");
            out.printf(Locale.ROOT, "%-20s %12.1f %12.1f %16.1f %24s %24s%n", f, b, r, s, ratio(time, b, r),
                    ratio(time, b, s));
        }
        out.flush();
        return medians;
    }

    private static String ratio(boolean time, double bloom, double other) {
        if (bloom <= 0 || other <= 0) {
            return "-";
        }
        return String.format(Locale.ROOT, "%.2fx %s", time ? other / bloom : bloom / other,
                time ? "(>1 faster)" : "(<1 smaller)");
    }

    private static String child(String engine, Path work, int stores, int keys) throws IOException {
        List<String> command = ChildJvm.javaCommand(ManyStoresProbe.class);
        command.addAll(List.of(engine, work.toString(), Integer.toString(stores), Integer.toString(keys)));
        Path errors = Files.createTempFile("bloomstore-manystores", ".err");
        try {
            Process p = new ProcessBuilder(command).redirectError(errors.toFile()).start();
            String output;
            try (InputStream in = p.getInputStream()) {
                output = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            }
            if (!p.waitFor(60, TimeUnit.MINUTES)) {
                p.destroyForcibly();
                throw new IOException("manystores child for " + engine + " did not finish in 60 minutes");
            }
            for (String line : output.split("\n")) {
                if (line.startsWith(ChildJvm.RESULT_PREFIX) && p.exitValue() == 0) {
                    return line.substring(ChildJvm.RESULT_PREFIX.length());
                }
            }
            throw new IOException("manystores child for " + engine + " exited " + p.exitValue() + ": "
                    + Files.readString(errors, StandardCharsets.UTF_8).strip());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while waiting for a manystores child", e);
        } finally {
            Files.deleteIfExists(errors);
        }
    }
}
