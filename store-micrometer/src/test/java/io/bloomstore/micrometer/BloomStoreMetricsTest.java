package io.bloomstore.micrometer;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bloomstore.core.Store;
import io.bloomstore.core.StoreStats;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

import java.io.IOException;
import java.lang.ref.WeakReference;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The binder against a real store: every meter reads what {@link Store#stats()} reads. */
class BloomStoreMetricsTest {
    private static final int KEYS = 2_000;

    @TempDir
    Path dir;

    @Test
    void metersReadTheStoresCounters() throws Exception {
        MeterRegistry registry = new SimpleMeterRegistry();
        try (Store store = Store.open(dir)) {
            new BloomStoreMetrics(store, Tags.of("store", "orders")).bindTo(registry);

            Set<String> names = new TreeSet<>();
            registry.getMeters().forEach(m -> names.add(m.getId().getName()));
            assertEquals(new TreeSet<>(List.of("bloomstore.gets", "bloomstore.filter.negatives",
                    "bloomstore.filter.positives", "bloomstore.filter.true.positives", "bloomstore.data.block.reads",
                    "bloomstore.block.cache.hits", "bloomstore.block.cache.misses", "bloomstore.flushes",
                    "bloomstore.compactions", "bloomstore.write.stalls", "bloomstore.tables",
                    "bloomstore.filter.bytes", "bloomstore.filter.fpr.measured")), names);
            for (Meter m : registry.getMeters()) {
                assertEquals("orders", m.getId().getTag("store"), m.getId().toString());
            }

            for (int i = 0; i < KEYS; i++) {
                store.put(key(i), ("value" + i).getBytes(UTF_8));
            }
            store.flush();
            for (int i = 0; i < 1_000; i++) {
                assertNull(store.get((new String(key(i), UTF_8) + "x").getBytes(UTF_8)), "absent key");
            }
            for (int i = 0; i < 500; i++) {
                store.get(key(i * 3));
            }
            StoreStats st = settledStats(store);
            assertEquals(1_500, count(registry, "bloomstore.gets"));
            assertEquals(st.filterNegatives(), count(registry, "bloomstore.filter.negatives"));
            assertTrue(st.filterNegatives() >= 980, "negatives " + st.filterNegatives() + " of 1,000 absent keys");
            assertEquals(st.filterPositives(), count(registry, "bloomstore.filter.positives"));
            assertEquals(500, count(registry, "bloomstore.filter.true.positives"));
            assertEquals(st.dataBlockReads(), count(registry, "bloomstore.data.block.reads"));
            assertTrue(st.dataBlockReads() > 0);
            assertEquals(st.blockCacheHits(), count(registry, "bloomstore.block.cache.hits"));
            assertEquals(st.blockCacheMisses(), count(registry, "bloomstore.block.cache.misses"));
            assertEquals(1, count(registry, "bloomstore.flushes"));
            assertEquals(0, registry.get("bloomstore.write.stalls").tag("type", "slowdown").functionCounter().count());
            assertEquals(0, registry.get("bloomstore.write.stalls").tag("type", "stop").functionCounter().count());
            assertEquals(1, level(registry, "bloomstore.tables", 0));
            assertEquals(st.levels().get(0).filterFileBytes(), level(registry, "bloomstore.filter.bytes", 0));
            assertTrue(st.levels().get(0).filterFileBytes() > KEYS, "a filter of about 10 bits per key");
            assertEquals(st.measuredFpr(), registry.get("bloomstore.filter.fpr.measured").gauge().value());

            store.compact();
            st = settledStats(store);
            assertEquals(st.compactions(), count(registry, "bloomstore.compactions"));
            assertTrue(st.compactions() >= 1);
            assertEquals(0, level(registry, "bloomstore.tables", 0));
            double deeper = 0;
            for (int level = 1; level < st.levels().size(); level++) {
                deeper += level(registry, "bloomstore.tables", level);
            }
            assertEquals(st.totalFiles(), deeper);
            assertEquals(1_500, count(registry, "bloomstore.gets"));
        }
        Thread.sleep(BloomStoreMetrics.MAX_AGE_MILLIS + 50);
        // Closed: counters keep their last value, gauges have none.
        assertEquals(1_500, count(registry, "bloomstore.gets"));
        assertTrue(count(registry, "bloomstore.compactions") >= 1);
        for (Meter m : registry.getMeters()) {
            if (m.getId().getType() == Meter.Type.GAUGE) {
                assertTrue(Double.isNaN(m.measure().iterator().next().getValue()), m.getId() + " after close");
            }
        }
    }

    @Test
    void aClosedStoreCannotBeBound() throws IOException {
        Store store = Store.open(dir);
        store.close();
        BloomStoreMetrics metrics = new BloomStoreMetrics(store, Tags.empty());
        assertThrows(IllegalStateException.class, () -> metrics.bindTo(new SimpleMeterRegistry()));
    }

    @Test
    void theRegistryDoesNotKeepAClosedStore() throws Exception {
        MeterRegistry registry = new SimpleMeterRegistry();
        WeakReference<Store> ref = openBindAndClose(registry);
        for (int i = 0; i < 50 && ref.get() != null; i++) {
            System.gc();
            Thread.sleep(20);
        }
        assertNull(ref.get(), "the store is still reachable after close");
        assertEquals(1, count(registry, "bloomstore.gets"), "a counter keeps its last value");
        assertTrue(Double.isNaN(level(registry, "bloomstore.tables", 0)));
    }

    private WeakReference<Store> openBindAndClose(MeterRegistry registry) throws IOException, InterruptedException {
        Store store = Store.open(dir);
        new BloomStoreMetrics(store, Tags.empty()).bindTo(registry);
        store.put(key(1), key(1));
        store.get(key(1));
        settledStats(store);
        assertEquals(1, count(registry, "bloomstore.gets"));
        store.close();
        return new WeakReference<>(store);
    }

    /** The store's statistics, once the meters' shared copy is older than its maximum age. */
    private static StoreStats settledStats(Store store) throws InterruptedException {
        Thread.sleep(BloomStoreMetrics.MAX_AGE_MILLIS + 20);
        return store.stats();
    }

    private static double count(MeterRegistry registry, String name) {
        return registry.get(name).functionCounter().count();
    }

    private static double level(MeterRegistry registry, String name, int level) {
        return registry.get(name).tag("level", Integer.toString(level)).gauge().value();
    }

    private static byte[] key(int i) {
        return String.format("key%06d", i).getBytes(UTF_8);
    }
}
