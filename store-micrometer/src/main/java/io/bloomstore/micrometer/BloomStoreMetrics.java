package io.bloomstore.micrometer;

import io.bloomstore.core.Store;
import io.bloomstore.core.StoreStats;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.BaseUnits;
import io.micrometer.core.instrument.binder.MeterBinder;

import java.lang.ref.WeakReference;
import java.util.Objects;
import java.util.function.ToDoubleFunction;

/**
 * Publishes a {@link Store}'s own counters to a Micrometer {@link MeterRegistry}: bind it once,
 * {@code new BloomStoreMetrics(store, Tags.of("store", "orders")).bindTo(registry)}, and every
 * meter reads the store when the registry asks — there is no polling thread and nothing is
 * counted twice. All meters carry the caller's tags:
 * <ul>
 *   <li>function counters {@code bloomstore.gets} (point lookups), {@code bloomstore.filter.negatives}
 *       (lookups a table's filter answered "absent": disk reads saved),
 *       {@code bloomstore.filter.positives} ("maybe"), {@code bloomstore.filter.true.positives}
 *       ("maybe" and the table held the key), {@code bloomstore.data.block.reads} (data blocks read
 *       from files: the disk accesses), {@code bloomstore.block.cache.hits} and {@code .misses},
 *       {@code bloomstore.flushes}, {@code bloomstore.compactions}, and
 *       {@code bloomstore.write.stalls} with tag {@code type} {@code slowdown} (writes delayed at
 *       level 0's slowdown trigger) or {@code stop} (writers waited at its stop trigger);
 *   <li>gauges {@code bloomstore.tables} and {@code bloomstore.filter.bytes} (the filter sidecars'
 *       bytes) per level, tag {@code level} {@code 0} to {@code 6}, and
 *       {@code bloomstore.filter.fpr.measured}, the filters' measured false-positive rate.
 * </ul>
 * The counters count since the store was opened, as {@link Store#stats()} does, so a reopened
 * store starts again from zero (a monitoring system sees a counter reset).
 *
 * <p>Nothing is kept after the store closes: the binder and its meters hold the store only
 * weakly, so a closed store is collected as usual. Once the store is closed (or collected) the
 * counters keep answering their last value and the gauges answer {@link Double#NaN} — what
 * Micrometer's own function meters do when their object is gone. Remove the meters from the
 * registry when a store closes for good if it should stop publishing them. One scrape reads many
 * meters, so they share one {@link StoreStats} copy for up to {@value #MAX_AGE_MILLIS} ms.
 *
 * <p>Thread safety: the meters may be read from any number of threads at once.
 */
public final class BloomStoreMetrics implements MeterBinder {
    static final long MAX_AGE_MILLIS = 100;
    private static final long MAX_AGE_NANOS = MAX_AGE_MILLIS * 1_000_000;

    private final WeakReference<Store> store;
    private final Tags tags;
    /** The last copy of the statistics, shared by the meters of one scrape; null before the first. */
    private volatile Taken last;

    /**
     * A copy of the statistics and when it was taken; once the store is found closed, {@code open}
     * is false for good and {@code stats} is the last copy taken while it was open (or null).
     */
    private record Taken(StoreStats stats, long atNanos, boolean open) {
    }

    /**
     * @param store the store to publish; held weakly
     * @param tags  tags every meter carries (for example the store's name); may be empty
     */
    public BloomStoreMetrics(Store store, Iterable<Tag> tags) {
        this.store = new WeakReference<>(Objects.requireNonNull(store, "store"));
        this.tags = Tags.of(Objects.requireNonNull(tags, "tags"));
    }

    /**
     * Registers the meters.
     *
     * @throws IllegalStateException when the store is closed or gone
     */
    @Override
    public void bindTo(MeterRegistry registry) {
        Store s = store.get();
        Taken taken = s == null ? null : taken(s);
        if (taken == null || !taken.open()) {
            throw new IllegalStateException("the store is closed: nothing to bind");
        }
        StoreStats first = taken.stats();
        counter(registry, s, "bloomstore.gets", "Point lookups", Tags.empty(), StoreStats::gets);
        counter(registry, s, "bloomstore.filter.negatives",
                "Lookups a table's filter answered absent: disk reads saved", Tags.empty(),
                StoreStats::filterNegatives);
        counter(registry, s, "bloomstore.filter.positives", "Lookups a table's filter answered maybe",
                Tags.empty(), StoreStats::filterPositives);
        counter(registry, s, "bloomstore.filter.true.positives",
                "Filter answers maybe for a key the table held", Tags.empty(), StoreStats::filterTruePositives);
        counter(registry, s, "bloomstore.data.block.reads", "Data blocks read from table files: the disk accesses",
                Tags.empty(), StoreStats::dataBlockReads);
        counter(registry, s, "bloomstore.block.cache.hits", "Data-block lookups the block cache served",
                Tags.empty(), StoreStats::blockCacheHits);
        counter(registry, s, "bloomstore.block.cache.misses", "Data-block lookups the block cache missed",
                Tags.empty(), StoreStats::blockCacheMisses);
        counter(registry, s, "bloomstore.flushes", "Memtables written as tables", Tags.empty(),
                StoreStats::flushes);
        counter(registry, s, "bloomstore.compactions", "Compactions run", Tags.empty(), StoreStats::compactions);
        counter(registry, s, "bloomstore.write.stalls", "Writes delayed at level 0's slowdown trigger",
                Tags.of("type", "slowdown"), StoreStats::writeSlowdowns);
        counter(registry, s, "bloomstore.write.stalls", "Times writers waited at level 0's stop trigger",
                Tags.of("type", "stop"), StoreStats::writeStops);
        for (StoreStats.LevelStats level : first.levels()) {
            int n = level.level();
            Tags levelTag = Tags.of("level", Integer.toString(n));
            gauge(registry, s, "bloomstore.tables", "Tables in the level", null, levelTag,
                    st -> st.levels().get(n).files());
            gauge(registry, s, "bloomstore.filter.bytes", "Bytes of the level's filter sidecars", BaseUnits.BYTES,
                    levelTag, st -> st.levels().get(n).filterFileBytes());
        }
        gauge(registry, s, "bloomstore.filter.fpr.measured",
                "Measured false-positive rate of the tables' filters since open", null, Tags.empty(),
                StoreStats::measuredFpr);
    }

    private void counter(MeterRegistry registry, Store s, String name, String description, Tags extra,
                         ToDoubleFunction<StoreStats> value) {
        FunctionCounter.builder(name, s, st -> {
                    Taken t = taken(st);
                    return t.stats() == null ? Double.NaN : value.applyAsDouble(t.stats());
                })
                .description(description)
                .tags(tags.and(extra))
                .register(registry);
    }

    private void gauge(MeterRegistry registry, Store s, String name, String description, String baseUnit,
                       Tags extra, ToDoubleFunction<StoreStats> value) {
        Gauge.builder(name, s, st -> {
                    Taken t = taken(st);
                    return t.open() ? value.applyAsDouble(t.stats()) : Double.NaN;
                })
                .description(description)
                .baseUnit(baseUnit)
                .tags(tags.and(extra))
                .register(registry);
    }

    /** A copy of the statistics at most MAX_AGE old, or the closed store's last one. */
    private Taken taken(Store s) {
        Taken t = last;
        if (t != null && (!t.open() || System.nanoTime() - t.atNanos() < MAX_AGE_NANOS)) {
            return t;
        }
        StoreStats stats = read(s);
        Taken fresh = stats != null ? new Taken(stats, System.nanoTime(), true)
                : new Taken(t == null ? null : t.stats(), 0, false);
        last = fresh;
        return fresh;
    }

    /** The store's statistics, or null when it is closed. */
    private static StoreStats read(Store s) {
        try {
            return s.stats();
        } catch (IllegalStateException closed) {
            return null;
        }
    }
}
