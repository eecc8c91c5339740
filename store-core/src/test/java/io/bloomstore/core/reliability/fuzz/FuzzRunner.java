package io.bloomstore.core.reliability.fuzz;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;

/**
 * Runs a {@link FuzzTarget}: first every input of its regression corpus
 * ({@code testdata/fuzz/<name>/*.bin}), then {@code cases} inputs from its {@link Mutator}, every
 * other one with its checksums repaired ({@link FuzzTarget#repair}) where the file kind has any,
 * so that damage reaches the parsing behind them. An input passes when the harness returns (the
 * seed's content read back exactly; for a repaired input, anything) or throws an
 * {@link IOException} whose message names the file. It fails on any other throwable (a
 * {@link RuntimeException}, an {@link AssertionError} for a wrong value, an
 * {@link OutOfMemoryError}), on a heap allocation above {@code 16 × input + 4 MiB} (the reader
 * must size what it allocates by the file, not by a length field), or when it runs for more
 * than 10 s (a hang). Each distinct failure (by exception type and place) is saved to
 * {@code target/fuzz-failures/<name>/} for the corpus, named {@code <sha256>-exact.bin} or
 * {@code <sha256>-repaired.bin} by how it is to be read.
 *
 * <p>Thread safety: not thread-safe.
 */
final class FuzzRunner {
    private static final long HANG_SECONDS = 10;
    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    /** What a run did: inputs read, how many the reader refused, and the distinct failures. */
    record Result(String target, long corpusInputs, long cases, long refused, Map<String, String> failures) {
        @Override
        public String toString() {
            return String.format("%-16s corpus %3d, cases %8d, refused %8d (%.1f%%), failures %d%s", target,
                    corpusInputs, cases, refused, 100.0 * refused / Math.max(1, corpusInputs + cases), failures.size(),
                    failures.isEmpty() ? "" : ": " + failures.values());
        }
    }

    private final ExecutorService worker = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "fuzz-worker");
        t.setDaemon(true);
        return t;
    });
    private final Path corpusRoot;
    private final Path failureRoot;

    FuzzRunner(Path corpusRoot, Path failureRoot) {
        this.corpusRoot = corpusRoot;
        this.failureRoot = failureRoot;
    }

    Result run(FuzzTarget target, long cases, long seed) throws Exception {
        Map<String, String> failures = new LinkedHashMap<>();
        long[] refused = {0};
        // The seed itself must read back clean; it also loads the reader's classes before allocation is measured.
        String clean = check(target, target.seed(), true, refused, false);
        if (clean != null) {
            throw new AssertionError(target.name() + ": the seed itself fails: " + clean);
        }
        List<Path> corpus = corpus(target.name());
        for (Path p : corpus) {
            byte[] input = Files.readAllBytes(p);
            String failure = check(target, input, p.getFileName().toString().endsWith("-exact.bin"), refused, true);
            if (failure != null) {
                failures.put(failure, p.getFileName() + ": " + failure);
            }
        }
        Mutator mutator = new Mutator(seed);
        for (long i = 0; i < cases; i++) {
            byte[] input = mutator.mutate(target.seed());
            boolean exact = true;
            if (i % 2 == 1) {
                byte[] repaired = target.repair(input);
                if (repaired != null) {
                    input = repaired;
                    exact = false;
                }
            }
            String failure = check(target, input, exact, refused, true);
            if (failure != null && !failures.containsKey(failure)) {
                Path saved = save(target.name(), input, exact);
                failures.put(failure, "case " + i + " of seed " + seed + " (" + saved + "): " + failure);
            }
        }
        return new Result(target.name(), corpus.size(), cases, refused[0], failures);
    }

    private List<Path> corpus(String name) throws IOException {
        Path dir = corpusRoot.resolve(name);
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(p -> p.toString().endsWith(".bin")).sorted().toList();
        }
    }

    /** Null when the input passed, else the failure's signature. */
    private String check(FuzzTarget target, byte[] input, boolean exact, long[] refused, boolean bounded)
            throws Exception {
        Future<String> f = worker.submit(() -> {
            long before = THREADS.getCurrentThreadAllocatedBytes();
            try {
                target.run(input, exact);
            } catch (IOException e) {
                String message = String.valueOf(e.getMessage());
                if (!message.contains(target.fileName())) {
                    return signature(e) + " does not name " + target.fileName() + ": " + message;
                }
                refused[0]++;
            } catch (Throwable t) {
                return signature(t) + ": " + t;
            }
            long allocated = THREADS.getCurrentThreadAllocatedBytes() - before;
            long limit = 16L * input.length + (4 << 20);
            if (bounded && allocated > limit) {
                return "allocated " + allocated + " bytes for an input of " + input.length;
            }
            return null;
        });
        try {
            return f.get(HANG_SECONDS, TimeUnit.SECONDS);
        } catch (TimeoutException e) {
            save(target.name(), input, exact);
            throw new AssertionError(target.name() + ": an input ran for more than " + HANG_SECONDS
                    + " s (saved under " + failureRoot + ")");
        } catch (ExecutionException e) {
            throw new AssertionError(e.getCause());
        }
    }

    /** The exception's type and the first frame of BloomStore code that threw it. */
    private static String signature(Throwable t) {
        for (StackTraceElement e : t.getStackTrace()) {
            if (e.getClassName().startsWith("io.bloomstore") && !e.getClassName().contains(".fuzz.")) {
                return t.getClass().getSimpleName() + " at " + e.getClassName() + "." + e.getMethodName() + ":"
                        + e.getLineNumber();
            }
        }
        return t.getClass().getSimpleName();
    }

    private Path save(String name, byte[] input, boolean exact) throws IOException {
        // Not a CRC: a file whose checksums were repaired has the same CRC32C as many others.
        byte[] digest;
        try {
            digest = MessageDigest.getInstance("SHA-256").digest(input);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
        Path dir = failureRoot.resolve(name);
        Files.createDirectories(dir);
        Path p = dir.resolve(HexFormat.of().formatHex(digest, 0, 6) + (exact ? "-exact.bin" : "-repaired.bin"));
        Files.write(p, input);
        return p;
    }

    /** Ends the worker thread. */
    void close() {
        worker.shutdownNow();
    }

    static List<Result> failed(List<Result> results) {
        List<Result> out = new ArrayList<>();
        for (Result r : results) {
            if (!r.failures().isEmpty()) {
                out.add(r);
            }
        }
        return out;
    }
}
