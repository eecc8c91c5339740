package io.bloomstore.bloom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.bloomstore.bloom.storage.MappedBitStore;
import io.bloomstore.bloom.storage.OffHeapBackend;
import io.bloomstore.bloom.storage.Storage;

/**
 * Opening a filter maps it: the Java heap does not grow with the filter's size. A 400 MB
 * filter (3.2·10^9 bits, built in native memory and written through {@link FilterFile})
 * opens header-only with a heap delta under {@value #MAX_HEAP_DELTA} bytes, answers from
 * the mapping, and closing it releases the mapping, through either {@link OffHeapBackend}.
 */
class FilterHeapFootprintTest {
    private static final long MAX_HEAP_DELTA = 4L << 20;
    private static final long FILTER_BYTES = 400L << 20;

    @TempDir
    Path dir;

    @Test
    void largeFilterOpensWithAFlatHeap() throws Exception {
        Path path = dir.resolve("large.bsf");
        int keys = 100_000;
        try (BloomFilter f = BloomFilter.create(FILTER_BYTES * 8, 7, Storage.NATIVE)) {
            for (int i = 0; i < keys; i++) {
                f.addHash(hashOf(i));
            }
            FilterFile.write(f, path);
        }
        assertEquals(FILTER_BYTES + FilterFile.HEADER_BYTES + FilterFile.TRAILER_BYTES, Files.size(path));

        for (OffHeapBackend backend : OffHeapBackend.values()) {
            long mappingsBefore = MappedBitStore.openMappings();
            MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
            List<MembershipFilter> open = new ArrayList<>();
            long before = usedHeap(memory);
            open.add(FilterFile.open(path, false, backend));
            open.add(FilterFile.open(path, false, backend));
            long after = usedHeap(memory);
            System.out.printf("%s: heap delta for opening two %d MB filters: %d bytes%n", backend.label(),
                    FILTER_BYTES >> 20, after - before);
            try {
                assertTrue(after - before < MAX_HEAP_DELTA, backend + ": heap grew by " + (after - before)
                        + " bytes for two " + (FILTER_BYTES >> 20) + " MB filters");
                assertEquals(mappingsBefore + 2, MappedBitStore.openMappings());
                for (MembershipFilter f : open) {
                    assertTrue(f.isOffHeap());
                    assertEquals(FILTER_BYTES * 8, f.bitSize());
                    for (int i = 0; i < keys; i++) {
                        assertTrue(f.mightContainHash(hashOf(i)), backend + ": false negative " + i);
                    }
                }
            } finally {
                for (MembershipFilter f : open) {
                    f.close();
                }
            }
            assertEquals(mappingsBefore, MappedBitStore.openMappings());
        }
    }

    private static long hashOf(int i) {
        return Probes.mix(i + 1L);
    }

    private static long usedHeap(MemoryMXBean memory) throws InterruptedException {
        for (int i = 0; i < 3; i++) {
            System.gc();
            Thread.sleep(20);
        }
        return memory.getHeapMemoryUsage().getUsed();
    }
}
