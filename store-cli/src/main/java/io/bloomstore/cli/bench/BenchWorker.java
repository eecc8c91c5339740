package io.bloomstore.cli.bench;

import java.io.IOException;
import java.util.SplittableRandom;
import me.tongfei.progressbar.ProgressBar;

/**
 * One thread's share of a workload ({@link BenchRunner}): operations {@code first .. first + count - 1}
 * on one engine, each timed, with the keys, values and choices of the run ({@link BenchOperations}).
 *
 * <p>Thread safety: one thread; the shared state it reads is {@link BenchOperations}'.
 */
final class BenchWorker {
    private static final int PROGRESS_STEP = 1024;
    private static final int CLOCK_CHECK_MASK = 255;

    /** Operations, found keys and latencies of one worker thread. */
    record Outcome(long ops, long found, LatencyHistogram latency) {
    }

    private final BenchOperations o;
    private final BenchEngine engine;
    private final Workload workload;
    private final long first;
    private final long count;
    private final long deadline;
    private final ProgressBar bar;
    private final SplittableRandom random;
    private final byte[] key;
    private final byte[] scanKey;
    private final byte[] value;
    private final byte[] prefix;
    private final byte[] from;
    private final byte[] to;
    /** fillbatch's batch, made on its first key; {@code batched} of its entries are filled. */
    private byte[][] batchKeys;
    private byte[][] batchValues;
    private int batched;

    BenchWorker(BenchOperations o, BenchEngine engine, Workload workload, int thread, long first, long count,
                long deadline, ProgressBar bar) {
        this.o = o;
        this.engine = engine;
        this.workload = workload;
        this.first = first;
        this.count = count;
        this.deadline = deadline;
        this.bar = bar;
        this.random = new SplittableRandom(o.config.seed() * 1_000_003L + workload.ordinal() * 1009L + thread);
        this.key = o.keySpace.newKeyBuffer();
        this.scanKey = o.keySpace.newKeyBuffer();
        this.value = o.values.newValueBuffer();
        boolean prefixes = o.scans.hasPrefixes();
        this.prefix = prefixes ? o.keySpace.newPrefixBuffer() : null;
        this.from = prefixes ? o.keySpace.newBoundBuffer() : null;
        this.to = prefixes ? o.keySpace.newBoundBuffer() : null;
    }

    Outcome run() throws IOException {
        LatencyHistogram latency = new LatencyHistogram();
        long found = 0;
        long done = 0;
        int[] order = workload == Workload.FILLRANDOM ? o.randomOrder() : null;
        while (done < count) {
            long op = first + done;
            boolean hit;
            long t0 = System.nanoTime();
            switch (workload) {
                case FILLSEQ -> hit = write((int) op);
                case FILLRANDOM -> hit = write(order[(int) op]);
                case FILLBATCH -> hit = writeBatched((int) op, done + 1 == count);
                case READRANDOM, READWHILEWRITING -> hit = lookup(false);
                case READMISSING -> hit = lookup(true);
                case READMIXED -> hit = lookup(random.nextDouble() < o.config.missingFraction());
                case SEEKRANDOM -> hit = seek();
                case UPDATERANDOM -> hit = update();
                case READLATEST -> hit = random.nextInt(100) < 5 ? insertLatest() : lookupLatest();
                case PREFIXSCAN, PREFIXMISSING -> hit = prefixScan(workload == Workload.PREFIXMISSING);
                case RANGESCAN, RANGEMISSING -> hit = rangeScan(workload == Workload.RANGEMISSING);
                default -> throw new IllegalStateException("no operation for " + workload);
            }
            latency.record(System.nanoTime() - t0);
            if (hit) {
                found++;
            }
            done++;
            if ((done & (PROGRESS_STEP - 1)) == 0) {
                bar.stepBy(PROGRESS_STEP);
            }
            if ((done & CLOCK_CHECK_MASK) == 0 && System.nanoTime() > deadline) {
                break;
            }
        }
        bar.stepBy(done & (PROGRESS_STEP - 1));
        return new Outcome(done, found, latency);
    }

    /** Adds key {@code index} to the batch; writes the batch when it is full or {@code last}. */
    private boolean writeBatched(int index, boolean last) throws IOException {
        if (batchKeys == null) {
            batchKeys = new byte[Workload.BATCH_ENTRIES][];
            batchValues = new byte[Workload.BATCH_ENTRIES][];
            for (int i = 0; i < batchKeys.length; i++) {
                batchKeys[i] = o.keySpace.newKeyBuffer();
                batchValues[i] = o.values.newValueBuffer();
            }
        }
        o.keySpace.present(index, batchKeys[batched]);
        o.values.fill(random, batchValues[batched]);
        batched++;
        if (batched == batchKeys.length || last) {
            engine.putBatch(batchKeys, batchValues, batched);
            batched = 0;
        }
        return true;
    }

    private boolean write(int index) throws IOException {
        o.keySpace.present(index, key);
        o.values.fill(random, value);
        engine.put(key, value);
        return true;
    }

    private boolean lookup(boolean missing) throws IOException {
        int index = nextIndex();
        if (missing) {
            o.keySpace.missing(index, key);
        } else {
            o.keySpace.present(index, key);
        }
        return engine.get(key, value) != BenchEngine.NOT_FOUND;
    }

    /**
     * The loaded key a lookup or update asks for: by {@code --distribution}; for {@code latest},
     * the key loaded that many places before the last (in the fill's order).
     */
    private int nextIndex() {
        if (o.config.distribution() != BenchConfig.Distribution.LATEST) {
            return o.chooser.next(random);
        }
        return byRecency(o.chooser.recency(random));
    }

    /** The loaded key {@code back} places before the last loaded one (clamped to the first). */
    private int byRecency(long back) {
        int position = (int) Math.max(0, o.keySpace.keys() - 1 - back);
        return o.filledRandomly ? o.randomOrder()[position] : position;
    }

    /** readlatest's insert: a new key, which becomes the newest once written. */
    private boolean insertLatest() throws IOException {
        o.keySpace.inserted(o.latestReserved.getAndIncrement(), key);
        o.values.fill(random, value);
        engine.put(key, value);
        o.latestInserted.incrementAndGet();
        return true;
    }

    /** readlatest's lookup: zipfian over recency, counting this run's inserts as the newest keys. */
    private boolean lookupLatest() throws IOException {
        long back = o.latestChooser.recency(random);
        long inserted = o.latestInserted.get();
        if (back < inserted) {
            o.keySpace.inserted(inserted - 1 - back, key);
        } else {
            o.keySpace.present(byRecency(back - inserted), key);
        }
        return engine.get(key, value) != BenchEngine.NOT_FOUND;
    }

    private boolean prefixScan(boolean missing) throws IOException {
        o.keySpace.prefix(random.nextInt(o.keySpace.prefixes()), missing, prefix);
        return engine.prefixScan(prefix, scanKey, value) > 0;
    }

    private boolean rangeScan(boolean justPast) throws IOException {
        o.keySpace.range(random.nextInt(o.keySpace.keys()), justPast, from, to);
        return engine.rangeScan(from, to, scanKey, value) > 0;
    }

    private boolean seek() throws IOException {
        o.keySpace.present(nextIndex(), key);
        return engine.seekScan(key, o.config.scanLength(), scanKey, value) > 0;
    }

    /** Read-modify-write: the value read (or, for a key not found, the last one) with one byte changed, written back. */
    private boolean update() throws IOException {
        o.keySpace.present(nextIndex(), key);
        boolean found = engine.get(key, value) != BenchEngine.NOT_FOUND;
        value[random.nextInt(value.length)] ^= 1;
        engine.put(key, value);
        return found;
    }
}
