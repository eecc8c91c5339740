package io.bloomstore.cli.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import io.bloomstore.core.SecondaryStore;
import io.bloomstore.core.Store;
import io.bloomstore.core.StoreOptions;

/**
 * The secondary-open benchmark (docs/benchmarks.md, "Reading a live store"): on a store of
 * {@code --keys} keys (16-byte keys, 100-byte values) held open by a primary in this JVM, the time
 * of {@link Store#openSecondary} and of {@link SecondaryStore#catchUp()} (after the primary wrote
 * {@code --batch} keys — told apart by whether the primary's MANIFEST changed meanwhile, which makes
 * the catch-up a new view rather than a read on in the WAL — and with nothing new), and the primary's random-write throughput with and
 * without a secondary catching up every {@code --interval-ms} (a thread of this JVM), in rounds of
 * both whose order alternates (medians of {@code --rounds}, and of each round's ratio). Usage:
 * {@code java -cp bloomstore.jar io.bloomstore.cli.bench.SecondaryBench DIR [--keys N] [--rounds R]
 * [--seconds S] [--batch B] [--interval-ms I] [--unflushed U] [--memtable-mb M]}; DIR must not exist. The
 * primary is left with {@code --unflushed} writes (default {@code --keys}/50) in its WAL after the load,
 * with memtables of {@code --memtable-mb} (default: the default options').
 *
 * <p>Thread safety: a program.
 */
public final class SecondaryBench {
    private SecondaryBench() {
    }

    public static void main(String[] args) throws Exception {
        Path dir = Path.of(args[0]);
        long keys = 1_000_000;
        int rounds = 3;
        int seconds = 5;
        int batch = 10_000;
        int intervalMs = 100;
        long unflushed = -1;
        int memtableMb = 0;
        for (int i = 1; i + 1 < args.length; i += 2) {
            switch (args[i]) {
                case "--keys" -> keys = Long.parseLong(args[i + 1]);
                case "--rounds" -> rounds = Integer.parseInt(args[i + 1]);
                case "--seconds" -> seconds = Integer.parseInt(args[i + 1]);
                case "--batch" -> batch = Integer.parseInt(args[i + 1]);
                case "--interval-ms" -> intervalMs = Integer.parseInt(args[i + 1]);
                case "--unflushed" -> unflushed = Long.parseLong(args[i + 1]);
                case "--memtable-mb" -> memtableMb = Integer.parseInt(args[i + 1]);
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        if (Files.exists(dir)) {
            throw new IllegalArgumentException(dir + " exists: give a new directory");
        }
        Path scratchRoot = Files.createTempDirectory(dir.toAbsolutePath().getParent(), "secondary-bench-");
        Random random = new Random(42);
        StoreOptions options = memtableMb > 0
                ? StoreOptions.builder().memtableBytes((long) memtableMb << 20).build() : StoreOptions.defaults();
        try (Store primary = Store.open(dir, options)) {
            long t0 = System.nanoTime();
            for (long i = 0; i < keys; i++) {
                primary.put(key(i), value(random));
            }
            primary.flush();
            primary.awaitCompactions();
            // Writes left in the WAL and memtable, as a running service has them.
            for (long i = 0; i < (unflushed >= 0 ? unflushed : keys / 50); i++) {
                primary.put(key(random.nextInt((int) keys)), value(random));
            }
            System.out.printf("loaded %,d keys in %.1f s; %d tables%n", keys, (System.nanoTime() - t0) / 1e9,
                    primary.stats().totalFiles());

            List<Double> opens = new ArrayList<>();
            List<Double> catchUps = new ArrayList<>();
            List<Double> walOnly = new ArrayList<>();
            List<Double> newManifest = new ArrayList<>();
            List<Double> idleCatchUps = new ArrayList<>();
            for (int r = 0; r < 2 * rounds + 1; r++) {
                long s = System.nanoTime();
                try (SecondaryStore sec = Store.openSecondary(dir, scratchRoot.resolve("s" + r))) {
                    opens.add((System.nanoTime() - s) / 1e6);
                    sec.get(key(1));
                    String manifest = manifestState(dir);
                    for (int j = 0; j < batch; j++) {
                        primary.put(key(random.nextInt((int) keys)), value(random));
                    }
                    boolean sameManifest = manifest.equals(manifestState(dir));
                    s = System.nanoTime();
                    sec.catchUp();
                    double ms = (System.nanoTime() - s) / 1e6;
                    catchUps.add(ms);
                    (sameManifest ? walOnly : newManifest).add(ms);
                    s = System.nanoTime();
                    sec.catchUp();
                    idleCatchUps.add((System.nanoTime() - s) / 1e6);
                }
            }
            System.out.printf("openSecondary: median %.1f ms (of %d: %s)%n", Summary.median(opens), opens.size(), fmt(opens));
            System.out.printf("catchUp after %,d writes: median %.1f ms (%s)%n", batch, Summary.median(catchUps), fmt(catchUps));
            System.out.printf("  of which the MANIFEST unchanged (reads on in the WAL): median %.1f ms (of %d: %s)%n",
                    Summary.median(walOnly), walOnly.size(), fmt(walOnly));
            System.out.printf("  of which the MANIFEST changed (a flush or compaction: a new view): median %.1f ms"
                    + " (of %d: %s)%n", Summary.median(newManifest), newManifest.size(), fmt(newManifest));
            System.out.printf("catchUp, nothing new: median %.2f ms (%s)%n", Summary.median(idleCatchUps), fmt(idleCatchUps));

            List<Double> alone = new ArrayList<>();
            List<Double> beside = new ArrayList<>();
            List<Double> perCatchUp = new ArrayList<>();
            List<Double> ratios = new ArrayList<>();
            for (int r = 0; r < rounds; r++) {
                // The order alternates: the store grows and compaction debt moves during a round.
                double withoutFirst = r % 2 == 0 ? writeRate(primary, keys, seconds, random) : -1;
                AtomicBoolean stop = new AtomicBoolean();
                AtomicLong count = new AtomicLong();
                AtomicLong nanos = new AtomicLong();
                double with;
                try (SecondaryStore sec = Store.openSecondary(dir, scratchRoot.resolve("t" + r))) {
                    Thread follower = new Thread(new Follower(sec, intervalMs, stop, count, nanos), "secondary");
                    follower.start();
                    with = writeRate(primary, keys, seconds, random);
                    stop.set(true);
                    follower.join();
                }
                double without = withoutFirst >= 0 ? withoutFirst : writeRate(primary, keys, seconds, random);
                alone.add(without);
                beside.add(with);
                ratios.add(with / without);
                perCatchUp.add(nanos.get() / 1e6 / Math.max(1, count.get()));
            }
            System.out.printf("primary writes/s alone: median %,.0f (%s)%n", Summary.median(alone), fmt(alone));
            System.out.printf("primary writes/s, a secondary catching up every %d ms: median %,.0f (%s)%n", intervalMs,
                    Summary.median(beside), fmt(beside));
            System.out.printf("with/without, per round: median %.2f (%s); catchUp in those rounds: median of means"
                    + " %.1f ms (%s)%n", Summary.median(ratios), fmtRatio(ratios), Summary.median(perCatchUp), fmt(perCatchUp));
        } finally {
            deleteTree(scratchRoot);
        }
    }

    /** Catches a secondary up every interval until stopped, timing each catch-up. */
    private static final class Follower implements Runnable {
        private final SecondaryStore sec;
        private final int intervalMs;
        private final AtomicBoolean stop;
        private final AtomicLong count;
        private final AtomicLong nanos;

        Follower(SecondaryStore sec, int intervalMs, AtomicBoolean stop, AtomicLong count, AtomicLong nanos) {
            this.sec = sec;
            this.intervalMs = intervalMs;
            this.stop = stop;
            this.count = count;
            this.nanos = nanos;
        }

        @Override
        public void run() {
            try {
                while (!stop.get()) {
                    Thread.sleep(intervalMs);
                    long s = System.nanoTime();
                    sec.catchUp();
                    nanos.addAndGet(System.nanoTime() - s);
                    count.incrementAndGet();
                }
            } catch (InterruptedException | IOException e) {
                throw new IllegalStateException(e);
            }
        }
    }

    private static double writeRate(Store primary, long keys, int seconds, Random random) throws IOException {
        long end = System.nanoTime() + seconds * 1_000_000_000L;
        long n = 0;
        long start = System.nanoTime();
        while (System.nanoTime() < end) {
            for (int i = 0; i < 1000; i++) {
                primary.put(key(random.nextInt((int) keys)), value(random));
            }
            n += 1000;
        }
        return n / ((System.nanoTime() - start) / 1e9);
    }

    private static byte[] key(long i) {
        return String.format("key%013d", i).getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    }

    private static byte[] value(Random random) {
        byte[] v = new byte[100];
        random.nextBytes(v);
        return v;
    }

    /** The primary's MANIFEST name and size: a change means a flush, compaction or ingest happened. */
    private static String manifestState(Path dir) throws IOException {
        String manifest = Files.readString(dir.resolve("CURRENT")).trim();
        return manifest + ":" + Files.size(dir.resolve(manifest));
    }

    private static String fmt(List<Double> xs) {
        StringBuilder b = new StringBuilder();
        for (double x : xs) {
            b.append(b.length() == 0 ? "" : " ").append(String.format(x >= 100 ? "%.0f" : "%.1f", x));
        }
        return b.toString();
    }

    private static String fmtRatio(List<Double> xs) {
        StringBuilder b = new StringBuilder();
        for (double x : xs) {
            b.append(b.length() == 0 ? "" : " ").append(String.format("%.2f", x));
        }
        return b.toString();
    }

    private static void deleteTree(Path p) throws IOException {
        if (Files.isDirectory(p)) {
            try (var entries = Files.newDirectoryStream(p)) {
                for (Path e : entries) {
                    deleteTree(e);
                }
            }
        }
        Files.deleteIfExists(p);
    }
}
