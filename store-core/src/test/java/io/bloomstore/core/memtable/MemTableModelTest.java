package io.bloomstore.core.memtable;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bloomstore.core.internal.InternalIterator;
import io.bloomstore.core.internal.ValueType;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The arena skip-list memtable against a model (a {@link TreeMap} in internal order): the same
 * entries forward and backward, the same answers to seeks and snapshot lookups, with keys from one
 * byte to 64 KiB (records that fill arena chunks) and many versions per key; and readers running
 * during inserts always see a sorted list of intact entries, find every entry published before
 * they looked, and never see a torn one; each with and without the memtable's whole-key filter.
 * Randomised; the seed is printed.
 */
class MemTableModelTest {
    private static final long SEED = Long.getLong("memtable.seed", System.nanoTime());

    /** Model key: user key ascending (unsigned), then sequence descending. */
    private record Entry(byte[] key, long sequence) {
    }

    private static final Comparator<Entry> ORDER = (a, b) -> {
        int c = Arrays.compareUnsigned(a.key, b.key);
        return c != 0 ? c : Long.compare(b.sequence, a.sequence);
    };

    /** A value derived from key and sequence, so a reader can check any entry it meets. */
    private static byte[] valueOf(byte[] key, long sequence, int length) {
        byte[] v = new byte[length];
        ByteBuffer.wrap(v).putLong(0, sequence ^ Arrays.hashCode(key));
        return v;
    }

    private static boolean intact(InternalIterator it) {
        byte[] v = it.value();
        if (it.type() == ValueType.DELETION) {
            return v.length == 0;
        }
        return v.length >= 8 && ByteBuffer.wrap(v).getLong(0) == (it.sequence() ^ Arrays.hashCode(it.key()));
    }

    private static byte[] randomKey(Random rnd) {
        int kind = rnd.nextInt(100);
        int length = kind < 2 ? 1 + rnd.nextInt(65536) : kind < 10 ? 1 : 1 + rnd.nextInt(12);
        byte[] k = new byte[length];
        for (int i = 0; i < length; i++) {
            // A small alphabet with high bytes: many shared prefixes and unsigned comparisons.
            k[i] = (byte) (0x7e + rnd.nextInt(4));
        }
        return k;
    }

    /**
     * Without a whole-key filter, and with one of 16 KiB for the test's 20,000-60,000 keys (2-6.5
     * bits per key, so that it answers "maybe" for many absent keys too).
     */
    private static MemTable memtable(double filterRatio) {
        return filterRatio == 0 ? new MemTable(1) : new MemTable(1, 1 << 20, filterRatio);
    }

    @ParameterizedTest
    @ValueSource(doubles = {0, 1.0 / 64})
    void agreesWithModel(double filterRatio) throws Exception {
        System.out.println("MemTableModelTest.agreesWithModel seed " + SEED);
        Random rnd = new Random(SEED);
        MemTable mem = memtable(filterRatio);
        NavigableMap<Entry, byte[]> model = new TreeMap<>(ORDER);
        List<byte[]> keys = new ArrayList<>();
        long sequence = 0;
        for (int i = 0; i < 20_000; i++) {
            byte[] key = !keys.isEmpty() && rnd.nextInt(3) == 0 ? keys.get(rnd.nextInt(keys.size())) : randomKey(rnd);
            keys.add(key);
            sequence += 1 + rnd.nextInt(3);
            boolean delete = rnd.nextInt(10) == 0;
            byte[] value = delete ? new byte[0] : valueOf(key, sequence, 8 + rnd.nextInt(64));
            mem.add(key.clone(), sequence, delete ? ValueType.DELETION : ValueType.VALUE, value);
            model.put(new Entry(key, sequence), value);
        }
        assertEquals(model.size(), mem.entries());

        List<Entry> forward = new ArrayList<>();
        try (InternalIterator it = mem.iterator()) {
            for (it.seekToFirst(); it.valid(); it.next()) {
                forward.add(new Entry(it.key(), it.sequence()));
                assertTrue(intact(it));
            }
        }
        List<Entry> expected = new ArrayList<>(model.keySet());
        assertEntries(expected, forward);

        List<Entry> backward = new ArrayList<>();
        try (InternalIterator it = mem.iterator()) {
            for (it.seekToLast(); it.valid(); it.prev()) {
                backward.add(0, new Entry(it.key(), it.sequence()));
            }
        }
        assertEntries(expected, backward);

        try (InternalIterator it = mem.iterator()) {
            for (int i = 0; i < 2_000; i++) {
                byte[] probe = rnd.nextBoolean() ? keys.get(rnd.nextInt(keys.size())) : randomKey(rnd);
                Map.Entry<Entry, byte[]> ceiling = model.ceilingEntry(new Entry(probe, Long.MAX_VALUE));
                it.seek(probe);
                assertAt(ceiling, it);
                Map.Entry<Entry, byte[]> floor = model.floorEntry(new Entry(probe, Long.MIN_VALUE));
                it.seekForPrev(probe);
                assertAt(floor, it);

                long snapshot = rnd.nextInt((int) sequence + 2);
                Map.Entry<Entry, byte[]> newest = model.ceilingEntry(new Entry(probe, snapshot));
                Map.Entry<InternalKey, byte[]> got = mem.get(probe, snapshot);
                if (newest == null || !Arrays.equals(newest.getKey().key, probe)) {
                    assertNull(got);
                } else {
                    assertNotNull(got);
                    assertEquals(newest.getKey().sequence, got.getKey().sequence());
                    assertArrayEquals(newest.getValue(), got.getValue());
                }
            }
        }
    }

    @Test
    void equalKeyAndSequenceReplacesTheValue() {
        MemTable mem = new MemTable(1);
        mem.add(new byte[] {1}, 5, ValueType.VALUE, new byte[] {1});
        mem.add(new byte[] {1}, 5, ValueType.VALUE, new byte[] {2});
        assertEquals(1, mem.entries());
        assertArrayEquals(new byte[] {2}, mem.get(new byte[] {1}, 9).getValue());
    }

    @ParameterizedTest
    @ValueSource(doubles = {0, 1.0 / 64})
    void readersDuringInsertsSeeSortedIntactEntries(double filterRatio) throws Exception {
        System.out.println("MemTableModelTest.readersDuringInsertsSeeSortedIntactEntries seed " + SEED);
        MemTable mem = memtable(filterRatio);
        int total = 60_000;
        byte[][] inserted = new byte[total][];
        AtomicInteger published = new AtomicInteger();
        AtomicBoolean done = new AtomicBoolean();
        List<Throwable> failures = new CopyOnWriteArrayList<>();
        AtomicInteger walks = new AtomicInteger();
        List<Thread> readers = new ArrayList<>();
        for (int r = 0; r < 2; r++) {
            long readerSeed = SEED + r + 1;
            Thread t = new Thread(() -> {
                Random rnd = new Random(readerSeed);
                try {
                    while (!done.get()) {
                        int seen = published.get();
                        try (InternalIterator it = mem.iterator()) {
                            Entry last = null;
                            int count = 0;
                            for (it.seekToFirst(); it.valid(); it.next()) {
                                Entry e = new Entry(it.key(), it.sequence());
                                if (last != null && ORDER.compare(last, e) >= 0) {
                                    throw new AssertionError("out of order after " + count + " entries");
                                }
                                if (!intact(it)) {
                                    throw new AssertionError("torn entry at sequence " + e.sequence);
                                }
                                last = e;
                                count++;
                            }
                            if (count < seen) {
                                throw new AssertionError("walk saw " + count + " entries, " + seen + " were published");
                            }
                        }
                        for (int i = 0; i < 200 && seen > 0; i++) {
                            int index = rnd.nextInt(seen);
                            Map.Entry<InternalKey, byte[]> got = mem.get(inserted[index], Long.MAX_VALUE);
                            if (got == null || got.getKey().sequence() < index + 1) {
                                throw new AssertionError("published entry " + (index + 1) + " not found");
                            }
                        }
                        walks.incrementAndGet();
                    }
                } catch (Throwable e) {
                    failures.add(e);
                }
            });
            t.start();
            readers.add(t);
        }
        Random rnd = new Random(SEED);
        for (int i = 0; i < total; i++) {
            byte[] key = new byte[1 + rnd.nextInt(24)];
            rnd.nextBytes(key);
            long sequence = i + 1;
            inserted[i] = key;
            mem.add(key.clone(), sequence, ValueType.VALUE, valueOf(key, sequence, 8 + rnd.nextInt(100)));
            published.set(i + 1);
        }
        done.set(true);
        for (Thread t : readers) {
            t.join();
        }
        assertTrue(failures.isEmpty(), () -> "seed " + SEED + ": " + failures.get(0));
        assertTrue(walks.get() > 0, "readers ran");
        assertEquals(total, mem.entries());
        assertFalse(mem.isEmpty());
    }

    private static void assertEntries(List<Entry> expected, List<Entry> actual) {
        assertEquals(expected.size(), actual.size(), "seed " + SEED);
        for (int i = 0; i < expected.size(); i++) {
            assertArrayEquals(expected.get(i).key, actual.get(i).key, "seed " + SEED + " entry " + i);
            assertEquals(expected.get(i).sequence, actual.get(i).sequence, "seed " + SEED + " entry " + i);
        }
    }

    private static void assertAt(Map.Entry<Entry, byte[]> expected, InternalIterator it) {
        if (expected == null) {
            assertFalse(it.valid(), "seed " + SEED);
        } else {
            assertTrue(it.valid(), "seed " + SEED);
            assertArrayEquals(expected.getKey().key, it.key(), "seed " + SEED);
            assertEquals(expected.getKey().sequence, it.sequence(), "seed " + SEED);
            assertArrayEquals(expected.getValue(), it.value(), "seed " + SEED);
        }
    }
}
