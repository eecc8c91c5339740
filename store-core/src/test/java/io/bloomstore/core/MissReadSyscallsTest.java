package io.bloomstore.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.bloomstore.bloom.FilterKind;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The miss promise checked against a count the store does not keep: the operating system's
 * number of read system calls of this process ({@code syscr} in Linux's {@code /proc/self/io}).
 * On a flushed and compacted store with the block cache off, a batch of lookups for absent keys
 * may make at most FPR × (tables consulted) reads per lookup, plus a small tolerance, whatever
 * the store's own counters say.
 *
 * <p>Deterministic keys and hash; no randomness. 60,000 keys compacted into the bottom level,
 * 20,000 absent lookups after 2,000 untimed ones (which let each table check its filter sidecar's
 * checksums once: those whole-file reads are counted apart as {@code filterFileReads}). At
 * 10 bits/key the expected false positives are about 0.0082 × 20,000 × tables per lookup ≈ 164
 * per table consulted (σ ≈ 13). Tolerance: 1.5 × the expectation plus 100 reads for the rest of
 * the process (reading {@code /proc/self/io} itself, JVM housekeeping), i.e. well under one read
 * per 100 lookups, against the one read per lookup a store without filters makes. A control batch
 * of present keys shows the count does see the store's reads (at least 0.9 per lookup).
 *
 * <p>Skipped where {@code /proc/self/io} is absent or unreadable (not Linux).
 */
class MissReadSyscallsTest {
    private static final Path SELF_IO = Path.of("/proc/self/io");
    private static final int KEYS = 60_000;
    private static final int WARM_UP = 2_000;
    private static final int ABSENT = 20_000;
    private static final int PRESENT = 5_000;

    @TempDir
    Path tmp;

    @Test
    void missingLookupsMakeAtMostFprTimesTablesReadSyscalls() throws IOException {
        assumeTrue(readSyscalls() >= 0, "/proc/self/io with syscr is needed");
        StoreOptions options = StoreOptions.builder().filterKind(FilterKind.BLOOM).bitsPerKey(10).blockCacheBytes(0)
                .compression(Compression.NONE).memtableBytes(1L << 20).build();
        try (Store store = Store.open(tmp.resolve("store"), options)) {
            for (int i = 0; i < KEYS; i++) {
                store.put(key(i, false), key(i, false));
            }
            store.flush();
            store.compact();
            for (int i = 0; i < WARM_UP; i++) {
                assertNull(store.get(key(i, true)));
            }
            StoreStats before = store.stats();
            long syscrBefore = readSyscalls();
            for (int i = WARM_UP; i < WARM_UP + ABSENT; i++) {
                assertNull(store.get(key(i, true)));
            }
            long syscr = readSyscalls() - syscrBefore;
            StoreStats after = store.stats();

            double tablesPerLookup = (double) (after.tableLookups() - before.tableLookups()) / ABSENT;
            long falsePositives = after.filterFalsePositives() - before.filterFalsePositives();
            double allowed = 1.5 * options.configuredFpr() * tablesPerLookup * ABSENT + 100;
            System.out.printf("MissReadSyscallsTest: %d absent lookups, %.2f tables each, %d false positives, "
                            + "%d data-block reads, %d read syscalls (allowed %.0f), %d filter sidecar reads in all%n",
                    ABSENT, tablesPerLookup, falsePositives, after.dataBlockReads() - before.dataBlockReads(),
                    syscr, allowed, after.filterFileReads());
            assertTrue(tablesPerLookup >= 1, "every absent key lies in some table's range: " + tablesPerLookup);
            assertEquals(0, after.filterFileReads() - before.filterFileReads(),
                    "no filter sidecar is read again once checked");
            assertTrue(syscr <= allowed, syscr + " read syscalls for " + ABSENT + " absent lookups; allowed " + allowed);

            long presentBefore = readSyscalls();
            for (int i = 0; i < PRESENT; i++) {
                assertTrue(store.get(key(i * (KEYS / PRESENT), false)) != null);
            }
            long presentSyscr = readSyscalls() - presentBefore;
            assertTrue(presentSyscr >= 0.9 * PRESENT,
                    "the count must see data-block reads: " + presentSyscr + " for " + PRESENT + " present lookups");
        }
    }

    /** Present keys are even ordinals, absent ones odd, so every absent key sorts between two present ones. */
    private static byte[] key(int i, boolean absent) {
        return String.format("key-%09d", 2L * i + (absent ? 1 : 0)).getBytes(StandardCharsets.UTF_8);
    }

    /** This process's read system calls so far, or -1 where the OS does not say. */
    private static long readSyscalls() {
        try {
            for (String line : Files.readAllLines(SELF_IO, StandardCharsets.US_ASCII)) {
                if (line.startsWith("syscr:")) {
                    return Long.parseLong(line.substring(6).trim());
                }
            }
            return -1;
        } catch (IOException | SecurityException | NumberFormatException e) {
            return -1;
        }
    }
}
