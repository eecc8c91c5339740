package io.bloomstore.cli.family;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;

import io.bloomstore.bloom.Filters;
import io.bloomstore.bloom.paradox.SelectiveCountingBloomFilter;
import io.bloomstore.bloom.sketch.CountMinSketch;
import io.bloomstore.bloom.sketch.HeavyHitters;
import io.bloomstore.bloom.storage.Storage;

/**
 * The seminar's experiment (seed 001): which structure recognises the repeated IP addresses of
 * a stream, the selective counting Bloom filter or Count-Min heavy hitters?
 *
 * <p>Workload, all from one seeded {@link Random}: a stream of {@code ips} IPv4 addresses of
 * which 20% are {@code heavy} distinct addresses repeated (evenly) and the other 80% are
 * distinct addresses seen once, shuffled. Both structures process the whole stream. Then
 * {@code ips} membership queries: the heavy addresses again (20% of the queries, same
 * multiplicities; the positives) and addresses never in the stream (80%; the negatives). The
 * one-off stream addresses are not queried, as in the seminar.
 *
 * <p>Structures: the selective counting filter with 33,280 four-bit counters, {@code hashes}
 * probes, cost ratio α and a-priori probability {@code prior}; Count-Min with 30 rows × 350
 * buckets (32-bit counters) and up to 350 heavy hitters (k = 350), which does not depend on α.
 *
 * <p>Thread safety: stateless; each run builds its own structures.
 */
public final class HeavyHittersExperiment {
    /** Experiment parameters; {@link #seminar} gives the seminar's. */
    public record Config(int ips, int heavy, long seed, int counters, int hashes, double prior, int rows,
                         int buckets, int hitters) {
        public static Config seminar(int ips, int heavy, long seed, int hashes, double prior) {
            return new Config(ips, heavy, seed, 33_280, hashes, prior, 30, 350, 350);
        }
    }

    /** A confusion matrix with its rates. */
    public record Confusion(long tp, long fp, long fn, long tn) {
        public double tpr() {
            return ratio(tp, tp + fn);
        }

        public double fpr() {
            return ratio(fp, fp + tn);
        }

        public double fnr() {
            return ratio(fn, tp + fn);
        }

        public double tnr() {
            return ratio(tn, fp + tn);
        }

        private static double ratio(long a, long b) {
            return b == 0 ? 0 : (double) a / b;
        }
    }

    /** One result row: a structure at one α, with the bits it used. */
    public record Row(String structure, double alpha, Confusion confusion, long memoryBits, String detail) {
    }

    private HeavyHittersExperiment() {
    }

    public static List<Row> run(Config c, double[] alphas) {
        if (c.ips() < 10 || c.heavy() < 1 || c.heavy() > c.ips() / 5) {
            throw new IllegalArgumentException("need at least 10 addresses and 1 ≤ heavy ≤ 20% of them; got "
                    + c.ips() + " addresses, " + c.heavy() + " heavy");
        }
        Random rnd = new Random(c.seed());
        Set<String> used = new HashSet<>();
        int repeated = c.ips() / 5;
        List<String> heavy = fresh(rnd, used, c.heavy());
        List<String> stream = new ArrayList<>(c.ips());
        for (int i = 0; i < repeated; i++) {
            stream.add(heavy.get(i % heavy.size()));
        }
        stream.addAll(fresh(rnd, used, c.ips() - repeated));
        Collections.shuffle(stream, rnd);
        List<String> queries = new ArrayList<>(c.ips());
        for (int i = 0; i < repeated; i++) {
            queries.add(heavy.get(i % heavy.size()));
        }
        queries.addAll(fresh(rnd, used, c.ips() - repeated));
        Set<String> positives = new HashSet<>(heavy);

        List<Row> rows = new ArrayList<>();
        for (double alpha : alphas) {
            try (SelectiveCountingBloomFilter f = new SelectiveCountingBloomFilter(c.counters(), c.hashes(), alpha,
                    c.prior(), Storage.HEAP)) {
                for (String ip : stream) {
                    f.offerHash(hash(ip));
                }
                Confusion conf = score(queries, positives, ip -> f.mightContainHash(hash(ip)));
                rows.add(new Row("selective counting Bloom", alpha, conf, f.bitSize(), String.format(
                        "%d counters x 4 bits, k=%d, P=%s, inserted %d, skipped %d", f.m(), f.k(), c.prior(),
                        f.inserted(), f.skipped())));
            }
        }
        try (CountMinSketch cms = CountMinSketch.withShape(c.rows(), c.buckets(), Storage.HEAP)) {
            HeavyHitters<String> hh = new HeavyHitters<>(cms, c.hitters(), HeavyHittersExperiment::hash);
            for (String ip : stream) {
                hh.offer(ip);
            }
            Confusion conf = score(queries, positives, hh::contains);
            // Counters as built (32 bits) plus each heap entry: an IPv4 address and its count, 32 bits each.
            long bits = cms.bitSize() + (long) c.hitters() * 64;
            for (double alpha : alphas) {
                rows.add(new Row("count-min heavy hitters", alpha, conf, bits, String.format(
                        "%d rows x %d buckets x 32 bits + %d entries x 64 bits, %d reported, threshold m/k=%.1f",
                        c.rows(), c.buckets(), c.hitters(), hh.size(), (double) c.ips() / c.hitters())));
            }
        }
        return rows;
    }

    private static Confusion score(List<String> queries, Set<String> positives,
                                   java.util.function.Predicate<String> answer) {
        long tp = 0;
        long fp = 0;
        long fn = 0;
        long tn = 0;
        for (String q : queries) {
            boolean yes = answer.test(q);
            if (positives.contains(q)) {
                if (yes) {
                    tp++;
                } else {
                    fn++;
                }
            } else if (yes) {
                fp++;
            } else {
                tn++;
            }
        }
        return new Confusion(tp, fp, fn, tn);
    }

    private static List<String> fresh(Random rnd, Set<String> used, int count) {
        List<String> out = new ArrayList<>(count);
        while (out.size() < count) {
            int a = rnd.nextInt();
            String ip = (a >>> 24) + "." + ((a >>> 16) & 255) + "." + ((a >>> 8) & 255) + "." + (a & 255);
            if (used.add(ip)) {
                out.add(ip);
            }
        }
        return out;
    }

    static long hash(String ip) {
        return Filters.hash(ip.getBytes(StandardCharsets.US_ASCII));
    }
}
