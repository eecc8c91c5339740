package io.bloomstore.core.reliability;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bloomstore.bloom.FilterKind;
import io.bloomstore.core.KeyValue;
import io.bloomstore.core.ReadOptions;
import io.bloomstore.core.Store;
import io.bloomstore.core.StoreIterator;
import io.bloomstore.core.StoreOptions;
import io.bloomstore.core.WriteBatch;
import io.bloomstore.core.WriteOptions;
import java.io.IOException;
import java.nio.file.Path;
import java.util.NoSuchElementException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Misuse of the API beyond {@code StoreLimitsTest}: bad arguments to every operation, use after
 * close of every operation, iterators used after their own close and a store closed under an open
 * iterator. Each gets a clear {@link IllegalArgumentException} or {@link IllegalStateException}
 * and loses nothing already written. (Two processes on one directory: {@code CrashTest}.)
 */
class ApiMisuseTest {
    private static final StoreOptions SMALL = StoreOptions.builder().maxKeyBytes(16).maxValueBytes(100).build();

    @TempDir
    Path dir;

    @Test
    void badArgumentsToEveryOperationChangeNothing() throws IOException {
        try (Store store = Store.open(dir, SMALL)) {
            store.put(new byte[] {1}, new byte[] {1});
            byte[] big = new byte[17];
            assertThrows(IllegalArgumentException.class, () -> store.get(big));
            assertThrows(IllegalArgumentException.class, () -> store.get(null));
            assertThrows(IllegalArgumentException.class, () -> store.delete(big));
            assertThrows(IllegalArgumentException.class, () -> store.delete(new byte[0]));
            assertThrows(IllegalArgumentException.class, () -> store.write(null, WriteOptions.DEFAULT));
            assertThrows(IllegalArgumentException.class, () -> store.write(new WriteBatch(), null));
            assertThrows(IllegalArgumentException.class, () -> store.put(new byte[] {1}, new byte[] {2}, null));
            assertThrows(IllegalArgumentException.class, () -> store.get(new byte[] {1}, null));
            assertThrows(IllegalArgumentException.class, () -> store.iterator(null, null, (ReadOptions) null));
            assertThrows(IllegalArgumentException.class, () -> new WriteBatch().put(new byte[0], new byte[] {1}));
            WriteBatch bad = new WriteBatch().delete(new byte[] {1}).put(big, new byte[] {1});
            assertThrows(IllegalArgumentException.class, () -> store.write(bad, WriteOptions.SYNC));
            assertArrayEquals(new byte[] {1}, store.get(new byte[] {1}), "a rejected batch deletes nothing");
            store.put(new byte[] {2}, new byte[0]);
            assertArrayEquals(new byte[0], store.get(new byte[] {2}), "an empty value is a value");
            store.write(new WriteBatch(), WriteOptions.SYNC);
        }
        try (Store store = Store.open(dir, SMALL)) {
            assertArrayEquals(new byte[] {1}, store.get(new byte[] {1}));
            assertArrayEquals(new byte[0], store.get(new byte[] {2}));
        }
    }

    @Test
    void filterOptionsAStoreCannotBuildAreRefusedAtBuildNotAtTheFirstFlush() {
        for (FilterKind rangeKind : new FilterKind[] {FilterKind.RANGE, FilterKind.ROSETTA}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> StoreOptions.builder().filterKind(rangeKind).build());
            assertTrue(e.getMessage().contains("rangeFilter"), e.getMessage());
        }
        for (double bad : new double[] {0, -1, Double.NaN, 65}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> StoreOptions.builder().bitsPerKey(bad).build());
            assertTrue(e.getMessage().contains("bitsPerKey"), e.getMessage());
        }
        // Without a filter the bits per key are not used, so they are not checked.
        StoreOptions.builder().filterKind(null).bitsPerKey(0).build();
    }

    @Test
    void aDelayedWriteRateBelowOneKibibytePerSecondIsRefused() {
        for (long bad : new long[] {0, -1, 1023}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> StoreOptions.builder().delayedWriteRate(bad).build());
            assertTrue(e.getMessage().contains("delayedWriteRate"), e.getMessage());
        }
        assertEquals(16L << 20, StoreOptions.defaults().delayedWriteRate());
        assertEquals(1024, StoreOptions.builder().delayedWriteRate(1024).build().toBuilder().build().delayedWriteRate());
    }

    @Test
    void everyOperationAfterCloseIsAnIllegalState() throws IOException {
        Store store = Store.open(dir, SMALL);
        store.put(new byte[] {1}, new byte[] {1});
        store.close();
        assertThrows(IllegalStateException.class, () -> store.delete(new byte[] {1}));
        assertThrows(IllegalStateException.class, () -> store.write(new WriteBatch().put(new byte[] {2},
                new byte[] {2}), WriteOptions.SYNC));
        assertThrows(IllegalStateException.class, () -> store.reverseIterator(null, null));
        assertThrows(IllegalStateException.class, () -> store.get(new byte[] {1}));
        try (Store reopened = Store.open(dir, SMALL)) {
            assertArrayEquals(new byte[] {1}, reopened.get(new byte[] {1}));
            assertNull(reopened.get(new byte[] {2}));
        }
    }

    @Test
    void iteratorAfterItsCloseIsAnIllegalState() throws IOException {
        try (Store store = Store.open(dir, SMALL)) {
            store.put(new byte[] {1}, new byte[] {1});
            StoreIterator it = store.iterator(null, null);
            it.close();
            it.close();
            assertThrows(IllegalStateException.class, it::hasNext);
            assertThrows(IllegalStateException.class, it::next);
            StoreIterator done = store.iterator(new byte[] {5}, null);
            assertFalse(done.hasNext());
            assertThrows(NoSuchElementException.class, done::next);
            done.close();
        }
    }

    @Test
    void storeClosedUnderAnOpenIteratorKeepsItsSnapshotReadable() throws IOException {
        Store store = Store.open(dir, SMALL);
        for (int i = 0; i < 50; i++) {
            store.put(new byte[] {(byte) i}, new byte[] {(byte) i});
        }
        store.flush();
        store.put(new byte[] {(byte) 50}, new byte[] {50});
        StoreIterator it = store.iterator(null, null);
        store.close();
        int n = 0;
        while (it.hasNext()) {
            KeyValue kv = it.next();
            assertEquals(n, kv.key()[0]);
            assertArrayEquals(kv.key(), kv.value());
            n++;
        }
        assertEquals(51, n, "the pinned tables and memtable stay readable until the iterator closes");
        it.close();
        try (Store reopened = Store.open(dir, SMALL)) {
            assertTrue(reopened.get(new byte[] {50}) != null);
        }
    }
}
