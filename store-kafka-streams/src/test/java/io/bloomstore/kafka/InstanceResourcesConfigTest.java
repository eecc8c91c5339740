package io.bloomstore.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bloomstore.core.StoreOptions;
import io.bloomstore.core.StoreResources;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The stores of an application instance share one {@link StoreResources}: the JVM-wide one by
 * default, or one sized by {@code bloomstore.memory.bytes} (a quarter memtables, the rest block
 * cache) and {@code bloomstore.background.threads}.
 */
class InstanceResourcesConfigTest {
    @Test
    void withoutASizeTheStoresShareTheJvmWideResources() {
        assertSame(StoreResources.shared(), BloomStoreConfig.storeOptions(Map.of()).resources());
    }

    @Test
    void aMemorySizeGivesTheInstanceResourcesOfItsOwn() {
        StoreOptions o = BloomStoreConfig.storeOptions(Map.of(BloomStoreConfig.MEMORY_BYTES, 64L << 20,
                BloomStoreConfig.BACKGROUND_THREADS, "3"));
        StoreResources r = o.resources();
        assertNotSame(StoreResources.shared(), r);
        assertEquals(16L << 20, r.memtableBudgetBytes());
        assertEquals(48L << 20, r.blockCacheBytes());
        assertEquals(3, r.backgroundThreads());
        assertEquals(0, r.stores());
    }

    @Test
    void badSettingsAreNamed() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> BloomStoreConfig.storeOptions(Map.of(BloomStoreConfig.BACKGROUND_THREADS, "4")));
        assertTrue(e.getMessage().contains(BloomStoreConfig.MEMORY_BYTES), e.getMessage());
        e = assertThrows(IllegalArgumentException.class,
                () -> BloomStoreConfig.storeOptions(Map.of(BloomStoreConfig.MEMORY_BYTES, "1024")));
        assertTrue(e.getMessage().contains("at least 4 MiB"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class,
                () -> BloomStoreConfig.storeOptions(Map.of(BloomStoreConfig.MEMORY_BYTES, "lots")));
        assertTrue(e.getMessage().contains(BloomStoreConfig.MEMORY_BYTES), e.getMessage());
    }
}
