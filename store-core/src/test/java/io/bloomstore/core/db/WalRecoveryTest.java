package io.bloomstore.core.db;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bloomstore.bloom.CorruptionException;
import io.bloomstore.core.Store;
import io.bloomstore.core.StoreOptions;
import io.bloomstore.core.StoreVerifier;
import io.bloomstore.core.VerifyReport;
import io.bloomstore.core.WalRecovery;
import io.bloomstore.core.WriteOptions;
import io.bloomstore.core.fs.FaultInjectionFileSystem;
import io.bloomstore.core.fs.MemoryFileSystem;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Recovery never leaves a hole across WAL segments: with the flush thread held back (the
 * fault-injecting file system blocks table creation) a store keeps three unflushed segments; then
 * damage to an older one, or a missing segment, keeps the store closed with a
 * {@link CorruptionException} naming file and offset, point-in-time recovery opens with exactly
 * the writes before the damage, {@code verify} reports the damage, and a machine crash tearing the
 * newest segment recovers a prefix holding every synced write.
 */
class WalRecoveryTest {
    private static final Path DIR = Path.of("/wal-recovery/store");
    private static final StoreOptions OPTIONS = StoreOptions.builder().memtableBytes(4096).build();
    private static final int KEYS = 20;

    private final CountDownLatch release = new CountDownLatch(1);

    @AfterEach
    void releaseHeldThreads() {
        release.countDown();
    }

    private static byte[] key(int i) {
        return String.format("key%04d", i).getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] value(int i) {
        byte[] v = new byte[500];
        Arrays.fill(v, (byte) ('a' + i % 26));
        return v;
    }

    /**
     * Writes keys 0..KEYS-1 with the flush thread held, so they stay in three WAL segments, then
     * crashes the machine ({@code sync} writes survive whole; others may be torn) and returns the
     * view to reopen with (hook removed) and the WAL segments, oldest first.
     */
    private FaultInjectionFileSystem unflushedSegments(MemoryFileSystem mem, boolean sync, boolean tear)
            throws IOException {
        FaultInjectionFileSystem fs = new FaultInjectionFileSystem(mem, 7).beforeCreate(p -> {
            if (p.toString().endsWith(".sst")) {
                try {
                    release.await(30, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        });
        Store store = Store.open(fs, DIR, OPTIONS);
        for (int i = 0; i < KEYS; i++) {
            store.put(key(i), value(i), sync ? WriteOptions.SYNC : WriteOptions.DEFAULT);
        }
        FaultInjectionFileSystem after = tear ? fs.crashTearing() : fs.crash();
        release.countDown();
        after.heal();
        assertEquals(3, wals(mem).size(), "three unflushed segments: " + wals(mem));
        return after;
    }

    private static List<Path> wals(MemoryFileSystem mem) throws IOException {
        return mem.list(DIR).stream().filter(n -> n.endsWith(".log")).sorted().map(DIR::resolve).toList();
    }

    @Test
    void tornTailOfAnOlderSegmentIsCorruption() throws IOException {
        MemoryFileSystem mem = new MemoryFileSystem();
        FaultInjectionFileSystem fs = unflushedSegments(mem, true, false);
        Path oldest = wals(mem).get(0);
        byte[] bytes = mem.contents(oldest);
        mem.setContents(oldest, Arrays.copyOf(bytes, bytes.length - 3));
        CorruptionException e = assertThrows(CorruptionException.class, () -> Store.open(fs, DIR, OPTIONS));
        assertEquals(oldest, e.file(), e.getMessage());
        assertTrue(e.offset() > 0 && e.offset() < bytes.length, e.getMessage());

        VerifyReport report = StoreVerifier.verify(fs, DIR);
        assertFalse(report.clean(), report.problems().toString());
        assertEquals(oldest, report.errors().get(0).file(), report.errors().toString());
    }

    @Test
    void missingMiddleSegmentIsASequenceGap() throws IOException {
        MemoryFileSystem mem = new MemoryFileSystem();
        FaultInjectionFileSystem fs = unflushedSegments(mem, true, false);
        List<Path> segments = wals(mem);
        mem.delete(segments.get(1));
        CorruptionException e = assertThrows(CorruptionException.class, () -> Store.open(fs, DIR, OPTIONS));
        assertEquals(segments.get(2), e.file(), e.getMessage());
        assertTrue(e.getMessage().contains("sequence gap"), e.getMessage());
        assertFalse(StoreVerifier.verify(fs, DIR).clean());
    }

    @Test
    void damageInTheMiddleSegmentIsCorruptionAndVerifyReportsIt() throws IOException {
        MemoryFileSystem mem = new MemoryFileSystem();
        FaultInjectionFileSystem fs = unflushedSegments(mem, true, false);
        Path middle = wals(mem).get(1);
        byte[] bytes = mem.contents(middle);
        bytes[bytes.length / 2] ^= 0x10;
        mem.setContents(middle, bytes);
        CorruptionException e = assertThrows(CorruptionException.class, () -> Store.open(fs, DIR, OPTIONS));
        assertEquals(middle, e.file(), e.getMessage());
        VerifyReport report = StoreVerifier.verify(fs, DIR);
        assertTrue(report.errors().stream().anyMatch(p -> p.file().equals(middle)), report.problems().toString());
    }

    @Test
    void pointInTimeRecoveryKeepsThePrefixBeforeTheDamageOnly() throws IOException {
        MemoryFileSystem mem = new MemoryFileSystem();
        FaultInjectionFileSystem fs = unflushedSegments(mem, true, false);
        Path oldest = wals(mem).get(0);
        byte[] bytes = mem.contents(oldest);
        mem.setContents(oldest, Arrays.copyOf(bytes, bytes.length - 3));
        StoreOptions pit = OPTIONS.toBuilder().walRecovery(WalRecovery.POINT_IN_TIME).build();
        int kept;
        try (Store store = Store.open(fs, DIR, pit)) {
            kept = 0;
            while (kept < KEYS && store.get(key(kept)) != null) {
                assertArrayEquals(value(kept), store.get(key(kept)));
                kept++;
            }
            assertTrue(kept > 0 && kept < KEYS - 2, "kept " + kept);
            for (int i = kept; i < KEYS; i++) {
                assertNull(store.get(key(i)), "key " + i + " comes after the damage (later segments included)");
            }
            String dropped = store.stats().health().walRecoveryDropped();
            assertNotNull(dropped);
            assertTrue(dropped.contains(oldest.getFileName().toString()), dropped);
            assertTrue(dropped.contains("sequences " + (kept + 1) + ".." + KEYS), dropped);
            store.put(key(1000), value(1000), WriteOptions.SYNC);
        }
        try (Store store = Store.open(fs, DIR, OPTIONS)) {
            assertNull(store.stats().health().walRecoveryDropped());
            assertArrayEquals(value(1000), store.get(key(1000)));
            assertNull(store.get(key(kept)));
        }
        assertTrue(StoreVerifier.verify(fs, DIR).clean());
    }

    /**
     * A machine crash with three unflushed segments, unsynced writes torn at a random byte. The
     * older segments are sealed (synced) on a sync thread after each switch, so the tear lands in
     * the newest segment or, when the crash comes during a seal, in the segment being sealed, and
     * recovery drops from there on: either way a prefix holding every synced write. Seeds 0..19 of
     * the tear; in some the two older segments survive whole.
     */
    @Test
    void crashTearingTheNewestOfSeveralSegmentsRecoversAPrefix() throws IOException {
        int olderWhole = 0;
        for (int seed = 0; seed < 20; seed++) {
            MemoryFileSystem mem = new MemoryFileSystem();
            CountDownLatch held = new CountDownLatch(1);
            FaultInjectionFileSystem fs = new FaultInjectionFileSystem(mem, seed).beforeCreate(p -> {
                if (p.toString().endsWith(".sst")) {
                    try {
                        held.await(30, TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
            });
            Store store = Store.open(fs, DIR, OPTIONS);
            Random rnd = new Random(seed);
            int lastSynced = -1;
            for (int i = 0; i < KEYS; i++) {
                boolean sync = rnd.nextInt(4) == 0;
                store.put(key(i), value(i), sync ? WriteOptions.SYNC : WriteOptions.DEFAULT);
                lastSynced = sync ? i : lastSynced;
            }
            // Three segments before the crash; the newest one's name may not survive it (it is
            // made durable by the previous segment's seal, like its first sync).
            assertTrue(wals(mem).size() >= 3, "seed " + seed + ": " + wals(mem));
            FaultInjectionFileSystem after = fs.crashTearing();
            held.countDown();
            after.heal();
            try (Store reopened = Store.open(after, DIR, OPTIONS)) {
                int k = 0;
                while (k < KEYS && reopened.get(key(k)) != null) {
                    k++;
                }
                for (int i = k; i < KEYS; i++) {
                    assertNull(reopened.get(key(i)), "seed " + seed + ": a hole before key " + i);
                }
                assertTrue(k > lastSynced, "seed " + seed + ": lost synced key " + lastSynced + ", kept " + k);
                olderWhole += k >= 16 ? 1 : 0;
            }
            assertTrue(StoreVerifier.verify(after, DIR).clean(), "seed " + seed);
        }
        assertTrue(olderWhole > 0, "no seed kept the two older segments whole");
    }
}
