package io.bloomstore.cli.bench;

import java.util.Locale;

/**
 * The workloads, named and defined as in RocksDB's db_bench. They run in declaration order
 * (but fillbatch, which runs first: {@link #runOrder()}):
 * each fill starts from an empty store, the reads run on what the last fill left,
 * updaterandom and readwhilewriting run after the pure reads because they write, and
 * {@code open} runs last: it closes the loaded store and measures reopening it in a child JVM
 * ({@link OpenProbe}). {@code open} is not part of the default set.
 *
 * <p>Thread safety: immutable.
 */
public enum Workload {
    /** Writes every key once, in ascending key order. */
    FILLSEQ(Kind.FILL),
    /** Writes every key once, in random order. */
    FILLRANDOM(Kind.FILL),
    /** Point lookups of random loaded keys: every lookup finds its key. */
    READRANDOM(Kind.READ),
    /** Point lookups of keys never written, from the interleaved missing key space. */
    READMISSING(Kind.READ),
    /** Point lookups of which a chosen fraction ({@code --missing-fraction}) is absent. */
    READMIXED(Kind.READ),
    /** A seek to a random loaded key, then a short forward scan. */
    SEEKRANDOM(Kind.READ),
    /** Every key of a random loaded prefix ({@code --prefix-bytes}, {@code --keys-per-prefix}). */
    PREFIXSCAN(Kind.READ),
    /** A scan of a random prefix no key has, between two loaded ones: finds nothing. */
    PREFIXMISSING(Kind.READ),
    /** A range of {@code --range-length} numbers in the first 8 key bytes starting at a loaded key. */
    RANGESCAN(Kind.READ),
    /** The correlated empty range: {@code --range-length} numbers starting just past a loaded key. */
    RANGEMISSING(Kind.READ),
    /** Read-modify-write of loaded keys: a lookup, one changed byte, a put of the value back. */
    UPDATERANDOM(Kind.READ),
    /**
     * YCSB's workload D: 95% lookups of recently inserted keys ({@code latest} distribution: zipfian
     * over recency, the newest most popular) and 5% inserts of new keys, which become the newest.
     */
    READLATEST(Kind.READ),
    /** readrandom on every thread while one more thread overwrites random keys. */
    READWHILEWRITING(Kind.READ),
    /** Reopening the loaded store in a fresh JVM: open time, heap, resident set, filter and index bytes. */
    OPEN(Kind.OPEN),
    /**
     * db_bench's fillbatch: every key once, in ascending order, {@value #BATCH_ENTRIES} to a batch
     * ({@link BenchEngine#putBatch}). Declared last so the other workloads keep their ordinals (their
     * random streams are seeded by them); it runs first of the fills ({@link #runOrder()}), so the
     * reads still run on the store the last fill left as before.
     */
    FILLBATCH(Kind.FILL);

    /** Entries per batch of {@link #FILLBATCH}, as db_bench's {@code entries_per_batch} for fillbatch. */
    public static final int BATCH_ENTRIES = 1000;

    /** Whether a workload loads a fresh store, works on the loaded one, or reopens it. */
    public enum Kind { FILL, READ, OPEN }

    private final Kind kind;

    Workload(Kind kind) {
        this.kind = kind;
    }

    /**
     * Whether the workload writes: a fill, updaterandom, readlatest (its inserts) or
     * readwhilewriting (each followed by a timed close).
     */
    public boolean writes() {
        return isFill() || this == UPDATERANDOM || this == READLATEST || this == READWHILEWRITING;
    }

    public boolean isFill() {
        return kind == Kind.FILL;
    }

    public boolean isOpen() {
        return kind == Kind.OPEN;
    }

    /** Whether {@code bloomstore bench} runs it when no {@code --workloads} are named. */
    public boolean isDefault() {
        return kind != Kind.OPEN && !isScan() && this != READLATEST && this != FILLBATCH;
    }

    /** The place of the workload in a run: {@link #FILLBATCH} first, then declaration order. */
    public int runOrder() {
        return this == FILLBATCH ? -1 : ordinal();
    }

    /** Whether the workload's operations are point lookups (it has a per-lookup read count). */
    public boolean isPointLookup() {
        return this == READRANDOM || this == READMISSING || this == READMIXED || this == READWHILEWRITING
                || this == UPDATERANDOM || this == READLATEST;
    }

    /** Whether the workload scans by prefix or range: it needs keys with a prefix structure, so it is not a default. */
    public boolean isScan() {
        return this == PREFIXSCAN || this == PREFIXMISSING || this == RANGESCAN || this == RANGEMISSING;
    }

    public String cliName() {
        return name().toLowerCase(Locale.ROOT);
    }

    public static Workload byCliName(String name) {
        for (Workload w : values()) {
            if (w.cliName().equalsIgnoreCase(name.trim())) {
                return w;
            }
        }
        throw new IllegalArgumentException("unknown workload '" + name + "'");
    }
}
