package io.bloomstore.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

import javax.management.MBeanServer;
import javax.management.ObjectName;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link StoreOptions.Builder#jmxName}: the statistics are an MXBean on the platform MBean server
 * while the store is open, read live, unregistered at close; a name in use is refused.
 */
class StoreJmxTest {
    private static final MBeanServer SERVER = ManagementFactory.getPlatformMBeanServer();

    @TempDir
    Path dir;

    @Test
    void statisticsAreLiveInJmxWhileTheStoreIsOpen() throws Exception {
        ObjectName name = new ObjectName("io.bloomstore:type=Store,name=\"orders,1\"");
        assertEquals(name, io.bloomstore.core.stats.StoreStatsMBean.objectName("orders,1"),
                "names are quoted so any string works");
        StoreOptions options = StoreOptions.builder().jmxName("orders,1").build();
        try (Store store = Store.open(dir.resolve("a"), options)) {
            assertTrue(SERVER.isRegistered(name));
            assertEquals(0L, SERVER.getAttribute(name, "Gets"));
            store.put(bytes("k"), bytes("v"));
            store.flush();
            store.get(bytes("k"));
            store.get(bytes("absent"));
            assertEquals(2L, SERVER.getAttribute(name, "Gets"), "read live, not copied at open");
            assertEquals(1L, SERVER.getAttribute(name, "Flushes"));
            assertEquals(1, SERVER.getAttribute(name, "TotalFiles"));
            assertEquals(store.stats().filterNegatives(), SERVER.getAttribute(name, "FilterNegatives"));
            assertEquals(store.stats().filterMemory(), SERVER.getAttribute(name, "FilterMemory"));
            assertEquals(2L, SERVER.getAttribute(name, "CumulativeGets"));

            IllegalStateException taken = assertThrows(IllegalStateException.class,
                    () -> Store.open(dir.resolve("b"), options));
            assertTrue(taken.getMessage().contains("orders,1"), taken.getMessage());
            assertTrue(SERVER.isRegistered(name), "the first store keeps its registration");
            try (Store other = Store.open(dir.resolve("b"))) {
                assertEquals(0, other.stats().gets(), "the refused open released its directory");
            }
        }
        assertFalse(SERVER.isRegistered(name), "close unregisters");
        try (Store again = Store.open(dir.resolve("a"), options)) {
            assertTrue(SERVER.isRegistered(name), "the name is free again after close");
        }
    }

    @Test
    void withoutANameNothingIsRegistered() throws Exception {
        int before = SERVER.queryNames(new ObjectName("io.bloomstore:type=Store,*"), null).size();
        try (Store store = Store.open(dir)) {
            assertEquals(before, SERVER.queryNames(new ObjectName("io.bloomstore:type=Store,*"), null).size());
        }
        assertThrows(IllegalArgumentException.class, () -> StoreOptions.builder().jmxName(" ").build());
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
