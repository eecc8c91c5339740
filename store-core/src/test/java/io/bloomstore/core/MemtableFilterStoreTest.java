package io.bloomstore.core;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.Random;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code StoreOptions.memtableFilterRatio}: checked when options are built, and a store whose
 * memtables keep whole-key filters answers every lookup as one whose memtables do not — with
 * values, overwrites and deletes spread over the active memtable, immutable ones waiting for
 * their flush, and tables. Seed 7.
 */
class MemtableFilterStoreTest {
    @TempDir
    Path dir;

    @Test
    void ratioIsChecked() {
        assertEquals(1.0 / 64, StoreOptions.defaults().memtableFilterRatio());
        assertEquals(0, StoreOptions.builder().memtableFilterRatio(0).build().memtableFilterRatio());
        for (double bad : new double[] {-0.01, 0.26, Double.NaN}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> StoreOptions.builder().memtableFilterRatio(bad).build());
            assertTrue(e.getMessage().startsWith("memtableFilterRatio must be between 0 and 0.25"), e.getMessage());
        }
    }

    @Test
    void storesWithAndWithoutTheFilterAgree() throws Exception {
        StoreOptions.Builder base = StoreOptions.builder().memtableBytes(64 << 10).l0Triggers(2, 20, 36);
        try (Store with = Store.open(dir.resolve("with"), base.memtableFilterRatio(1.0 / 64).build());
             Store without = Store.open(dir.resolve("without"), base.memtableFilterRatio(0).build())) {
            Random rnd = new Random(7);
            int keys = 5_000;
            for (int i = 0; i < 40_000; i++) {
                byte[] key = key(rnd.nextInt(keys));
                int op = rnd.nextInt(10);
                if (op < 6) {
                    byte[] value = ("v" + i).getBytes();
                    with.put(key, value);
                    without.put(key, value);
                } else if (op < 7) {
                    with.delete(key);
                    without.delete(key);
                } else {
                    assertArrayEquals(without.get(key), with.get(key), "key " + new String(key) + " at op " + i);
                }
            }
            for (int k = 0; k < keys * 2; k++) {
                assertArrayEquals(without.get(key(k)), with.get(key(k)), "key " + k);
            }
        }
    }

    private static byte[] key(int k) {
        return String.format("key%08d", k).getBytes();
    }
}
