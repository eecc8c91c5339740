package io.bloomstore.cli.stress;

import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bloomstore.core.Store;
import io.bloomstore.core.StoreOptions;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The stress cycle's close check on a store of many small tables: every close leaves the directory
 * still, and at least one of ten closes ends the compaction (closes 0-4 ms after its thread
 * starts; the first full compaction of these tables takes tens of milliseconds).
 */
class CloseDuringCompactionTest {
    @TempDir
    Path tmp;

    @Test
    void closeLeavesNothingWritingEvenMidCompaction() throws Exception {
        StoreOptions options = StressChild.options().toBuilder().autoCompaction(false).build();
        Path dir = tmp.resolve("store");
        try (Store s = Store.open(dir, options)) {
            byte[] value = new byte[200];
            for (int i = 0; i < 30_000; i++) {
                s.put(("key" + (i * 7919 % 30_000)).getBytes(StandardCharsets.US_ASCII), value);
            }
            s.flush();
        }
        int interrupted = 0;
        for (int round = 0; round < 10; round++) {
            CloseDuringCompaction.Result r = CloseDuringCompaction.run(dir, options, round % 5);
            assertNull(r.failure(), r.failure());
            interrupted += r.compactionInterrupted() ? 1 : 0;
        }
        assertTrue(interrupted >= 1, "no close ended a compaction");
    }
}
