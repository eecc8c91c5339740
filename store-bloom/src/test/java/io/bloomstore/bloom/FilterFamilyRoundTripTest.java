package io.bloomstore.bloom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.Random;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.bloomstore.bloom.storage.MappedBitStore;
import io.bloomstore.bloom.storage.Storage;

/** Every kind of the family written with FilterFile, opened mapped, answers as before. */
class FilterFamilyRoundTripTest {
    private static final long SEED = 5150L;

    @TempDir
    Path dir;

    @Test
    void everyNewKindRoundTripsThroughAMappedFile() throws Exception {
        System.out.println("FilterFamilyRoundTripTest seed " + SEED);
        Random rnd = new Random(SEED);
        int n = 20_000;
        long[] keys = new long[n];
        for (int i = 0; i < n; i++) {
            keys[i] = rnd.nextLong();
        }
        long[] probes = new long[2 * n];
        for (int i = 0; i < probes.length; i++) {
            probes[i] = i < n ? keys[i] : rnd.nextLong();
        }
        for (Storage storage : Storage.values()) {
            MembershipFilter[] filters = {
                Filters.build(FilterKind.COUNTING_BLOOM, 10, keys, n, storage),
                scalable(keys, storage),
                Filters.build(FilterKind.CUCKOO, 10, keys, n, storage),
                Filters.build(FilterKind.BINARY_FUSE, 10, keys, n, storage),
                Filters.build(FilterKind.BINARY_FUSE, 16, keys, n, storage),
                Filters.build(FilterKind.RIBBON, 10, keys, n, storage),
                Filters.build(FilterKind.RIBBON, 20, keys, n, storage),
            };
            for (MembershipFilter f : filters) {
                try (f) {
                    Path p = dir.resolve(storage + "-" + f.kind().cliName() + "-" + f.bitSize());
                    FilterFile.write(f, p);
                    long before = MappedBitStore.openMappings();
                    try (MembershipFilter r = FilterFile.open(p)) {
                        assertTrue(MappedBitStore.openMappings() > before);
                        assertEquals(f.kind(), r.kind());
                        assertEquals(f.count(), r.count());
                        assertEquals(f.bitSize(), r.bitSize());
                        assertEquals(f.header(), r.header());
                        assertTrue(r.isOffHeap());
                        for (long h : probes) {
                            assertEquals(f.mightContainHash(h), r.mightContainHash(h), f.kind() + " differs");
                        }
                        for (long h : keys) {
                            assertTrue(r.mightContainHash(h), f.kind() + " false negative after reopen");
                        }
                    }
                    assertEquals(before, MappedBitStore.openMappings(), "mappings not released");
                    assertEquals(f.header(), FilterFile.verify(p));
                }
            }
        }
    }

    private static MembershipFilter scalable(long[] keys, Storage storage) {
        // Start small so the file holds a chain of several stages.
        ScalableBloomFilter f = ScalableBloomFilter.create(500, 0.01, storage);
        for (long k : keys) {
            f.addHash(k);
        }
        assertTrue(f.stageCount() > 3);
        return f;
    }
}
