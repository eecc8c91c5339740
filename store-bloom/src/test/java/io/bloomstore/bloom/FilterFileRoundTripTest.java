package io.bloomstore.bloom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.bloomstore.bloom.storage.MappedBitStore;
import io.bloomstore.bloom.storage.Storage;

class FilterFileRoundTripTest {
    @TempDir
    Path dir;

    @Test
    void mappedFilterAnswersLikeTheOneWritten() throws Exception {
        for (Storage storage : Storage.values()) {
            try (BloomFilter f = BloomFilter.create(10_000, 0.01, storage);
                 BlockedBloomFilter g = BlockedBloomFilter.create(10_000, 0.01, storage)) {
                for (int i = 0; i < 10_000; i++) {
                    f.add(key(i));
                    g.add(key(i));
                }
                Path pf = dir.resolve(storage + ".bloom");
                Path pg = dir.resolve(storage + ".blocked");
                FilterFile.write(f, pf);
                FilterFile.write(g, pg);
                long before = MappedBitStore.openMappings();
                try (MembershipFilter rf = FilterFile.open(pf); MembershipFilter rg = FilterFile.open(pg)) {
                    assertEquals(before + 2, MappedBitStore.openMappings());
                    assertTrue(rf.isOffHeap());
                    assertEquals(FilterKind.BLOOM, rf.kind());
                    assertEquals(FilterKind.BLOCKED_BLOOM, rg.kind());
                    assertEquals(f.count(), rf.count());
                    for (int i = 0; i < 20_000; i++) {
                        assertEquals(f.mightContain(key(i)), rf.mightContain(key(i)), "bloom key " + i);
                        assertEquals(g.mightContain(key(i)), rg.mightContain(key(i)), "blocked key " + i);
                    }
                }
                assertEquals(before, MappedBitStore.openMappings());
                assertEquals(f.header(), FilterFile.verify(pf), "mapping must not change the file");
            }
        }
    }

    @Test
    void falsePositiveRateNearTarget() {
        try (BloomFilter f = BloomFilter.create(100_000, 0.01, Storage.NATIVE)) {
            for (int i = 0; i < 100_000; i++) {
                f.add(key(i));
            }
            int fp = 0;
            for (int i = 100_000; i < 200_000; i++) {
                if (f.mightContain(key(i))) {
                    fp++;
                }
            }
            assertFalse(fp > 1300, "false positives " + fp);
        }
    }

    private static byte[] key(int i) {
        return ("key-" + i).getBytes(StandardCharsets.UTF_8);
    }
}
