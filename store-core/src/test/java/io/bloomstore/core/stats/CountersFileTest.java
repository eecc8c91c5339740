package io.bloomstore.core.stats;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.bloomstore.bloom.CorruptionException;
import io.bloomstore.core.CumulativeStats;
import io.bloomstore.core.fs.LocalFileSystem;
import io.bloomstore.core.manifest.FileNames;

/** The COUNTERS file (docs/format/counters.md): sums across opens, kept names, every damage detected. */
class CountersFileTest {
    @TempDir
    Path dir;

    @Test
    void sumsAddUpAcrossOpens() throws Exception {
        StoreCounters first = new StoreCounters();
        CountersFile f1 = CountersFile.open(LocalFileSystem.INSTANCE, dir, first);
        assertEquals(0, f1.snapshot().gets(), "a missing file counts as zeros");
        first.gets().add(5);
        first.filterNegatives().add(3);
        first.writeStops().add(1);
        f1.save();

        StoreCounters second = new StoreCounters();
        CountersFile f2 = CountersFile.open(LocalFileSystem.INSTANCE, dir, second);
        second.gets().add(2);
        CumulativeStats c = f2.snapshot();
        assertEquals(7, c.gets());
        assertEquals(3, c.filterNegatives());
        assertEquals(1, c.writeStops());
        f2.save();
        assertEquals(7, CountersFile.read(LocalFileSystem.INSTANCE, dir.resolve(FileNames.COUNTERS)).get("gets"));
    }

    @Test
    void namesThisVersionDoesNotKnowAreKept() throws Exception {
        Map<String, Long> newer = new LinkedHashMap<>();
        newer.put("gets", 10L);
        newer.put("someFutureCounter", 99L);
        write(CountersFile.encode(newer));
        StoreCounters live = new StoreCounters();
        CountersFile f = CountersFile.open(LocalFileSystem.INSTANCE, dir, live);
        live.gets().increment();
        f.save();
        Map<String, Long> read = CountersFile.read(LocalFileSystem.INSTANCE, dir.resolve(FileNames.COUNTERS));
        assertEquals(11L, read.get("gets"));
        assertEquals(99L, read.get("someFutureCounter"));
        assertEquals(0L, read.get("compactions"));
    }

    @Test
    void everyFlippedByteIsDetectedAndTheSumsRestart() throws Exception {
        Map<String, Long> counters = new LinkedHashMap<>();
        counters.put("gets", 12345L);
        counters.put("filterNegatives", 678L);
        byte[] good = bytes(CountersFile.encode(counters));
        for (int i = 0; i < good.length; i++) {
            byte[] bad = good.clone();
            bad[i] ^= 0x10;
            write(ByteBuffer.wrap(bad));
            assertThrows(CorruptionException.class,
                    () -> CountersFile.read(LocalFileSystem.INSTANCE, dir.resolve(FileNames.COUNTERS)), "byte " + i);
            assertEquals(0, CountersFile.open(LocalFileSystem.INSTANCE, dir, new StoreCounters()).snapshot().gets(),
                    "a damaged file must not keep the store from opening");
        }
        byte[] shortened = java.util.Arrays.copyOf(good, good.length - 1);
        write(ByteBuffer.wrap(shortened));
        assertThrows(CorruptionException.class,
                () -> CountersFile.read(LocalFileSystem.INSTANCE, dir.resolve(FileNames.COUNTERS)));
    }

    private void write(ByteBuffer b) throws Exception {
        Files.write(dir.resolve(FileNames.COUNTERS), bytes(b));
    }

    private static byte[] bytes(ByteBuffer b) {
        byte[] out = new byte[b.remaining()];
        b.duplicate().get(out);
        return out;
    }
}
