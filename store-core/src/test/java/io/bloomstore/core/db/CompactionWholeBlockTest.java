package io.bloomstore.core.db;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bloomstore.core.Compression;
import io.bloomstore.core.cache.BlockCache;
import io.bloomstore.core.compaction.CompactionJob;
import io.bloomstore.core.compaction.ShadowedVersions;
import io.bloomstore.core.fs.MemoryFileSystem;
import io.bloomstore.core.internal.InternalIterator;
import io.bloomstore.core.internal.ValueType;
import io.bloomstore.core.manifest.FileMetaData;
import io.bloomstore.core.stats.StoreCounters;
import io.bloomstore.core.table.TableBuilder;
import io.bloomstore.core.table.TableLookup;
import io.bloomstore.core.table.TableMetadata;
import io.bloomstore.core.table.TableOptions;
import io.bloomstore.core.table.TableReader;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * A compaction that copies whole data blocks (those no other input reaches into, every entry
 * kept, same block format) writes exactly what the entry-by-entry merge writes: the same entries
 * in the same order, split between output tables only between user keys, with every key in the
 * output's filter and every table passing {@link TableReader#verify()}. Random inputs (seed
 * 20261124): one dense "level 1" table and sparse newer ones, deletions, snapshots, bottommost or
 * not, inputs stored with the output's compression or another (which must not be copied), blocks
 * partly in the block cache (which have no stored bytes at hand), output tables cut small or large.
 */
class CompactionWholeBlockTest {

    private record Entry(byte[] key, long sequence, ValueType type, byte[] value) {
    }

    private static final Comparator<Entry> ORDER = (a, b) -> {
        int c = Arrays.compareUnsigned(a.key, b.key);
        return c != 0 ? c : Long.compare(b.sequence, a.sequence);
    };

    private static final TableOptions OUTPUT = TableOptions.defaults().withBlockSize(1024);

    @Test
    void copiedBlocksGiveTheSameTablesAsTheEntryByEntryMerge() throws Exception {
        Random random = new Random(20261124);
        MemoryFileSystem fs = new MemoryFileSystem();
        long copied = 0;
        long number = 1;
        for (int round = 0; round < 40; round++) {
            Path dir = Path.of("/whole-blocks/round-" + round);
            fs.createDirectories(dir);
            long sequence = 1;
            int keySpace = 2000 + random.nextInt(3000);
            List<List<Entry>> inputs = new ArrayList<>();
            // the dense, older table (level 1), then 1-4 sparse, newer ones (level 0)
            int tables = 2 + random.nextInt(4);
            for (int t = 0; t < tables; t++) {
                double density = t == 0 ? 0.9 : 0.002 + random.nextDouble() * 0.05;
                List<Entry> entries = new ArrayList<>();
                for (int k = 0; k < keySpace; k++) {
                    if (random.nextDouble() < density) {
                        boolean delete = random.nextInt(t == 0 ? 50 : 5) == 0;
                        byte[] value = delete ? new byte[0] : new byte[random.nextInt(300)];
                        random.nextBytes(value);
                        entries.add(new Entry(key(k), 0, delete ? ValueType.DELETION : ValueType.VALUE, value));
                    }
                }
                List<Entry> numbered = new ArrayList<>();
                for (Entry e : entries) {
                    numbered.add(new Entry(e.key, sequence++, e.type, e.value));
                }
                inputs.add(numbered);
            }
            long[] snapshots = random.nextInt(3) == 0
                    ? new long[] {1 + random.nextInt((int) sequence)} : new long[0];
            boolean bottommost = random.nextBoolean();
            long target = random.nextBoolean() ? 4096 : 1 << 20;
            BlockCache cache = new BlockCache(random.nextBoolean() ? 0 : 256 << 10);

            List<TableReader> readers = new ArrayList<>();
            List<InternalIterator> sources = new ArrayList<>();
            List<Entry> all = new ArrayList<>();
            for (List<Entry> entries : inputs) {
                if (entries.isEmpty()) {
                    continue;
                }
                TableOptions opts = OUTPUT.withCompression(random.nextInt(4) == 0 ? Compression.NONE : Compression.LZ4);
                long n = number++;
                TableBuilder b = new TableBuilder(fs, dir, n, opts);
                for (Entry e : entries) {
                    b.add(e.key, e.sequence, e.type, e.value);
                }
                b.finish();
                TableReader r = TableReader.open(fs, dir, n, opts, cache, new StoreCounters());
                if (cache.enabled() && random.nextBoolean()) {
                    // read twice, so the doorkeeper admits them: the compaction meets some blocks in the cache
                    for (int pass = 0; pass < 2; pass++) {
                        try (InternalIterator it = r.iterator()) {
                            for (it.seek(key(random.nextInt(keySpace))); it.valid(); it.next()) {
                                it.value();
                            }
                        }
                    }
                }
                readers.add(r);
                sources.add(r.iterator(false));
                all.addAll(entries);
            }
            all.sort(ORDER);
            ShadowedVersions reference = new ShadowedVersions(snapshots, bottommost);
            List<Entry> expected = all.stream().filter(e -> reference.keep(e.key, e.sequence, e.type)).toList();

            List<Long> outputNumbers = new ArrayList<>();
            CompactionJob job = new CompactionJob(null, new ShadowedVersions(snapshots, bottommost), target);
            List<FileMetaData> outputs = job.run(MergingIterator.forward(sources, null), new CompactionJob.Output() {
                @Override
                public TableBuilder newTable() throws java.io.IOException {
                    long n = 1000 + outputNumbers.size();
                    outputNumbers.add(n);
                    return new TableBuilder(fs, dir, n, OUTPUT);
                }

                @Override
                public void finished(TableMetadata table) {
                }
            });
            for (InternalIterator it : sources) {
                it.close();
            }
            copied += job.blocksCopied();

            List<Entry> actual = new ArrayList<>();
            byte[] previousLast = null;
            for (FileMetaData f : outputs) {
                try (TableReader r = TableReader.open(fs, dir, f.fileNumber(), OUTPUT, new BlockCache(0), new StoreCounters())) {
                    r.verify();
                    if (previousLast != null) {
                        assertTrue(Arrays.compareUnsigned(previousLast, f.smallestKey()) < 0,
                                "round " + round + ": a user key straddles two output tables");
                    }
                    previousLast = f.largestKey();
                    try (InternalIterator it = r.iterator(false)) {
                        for (it.seekToFirst(); it.valid(); it.next()) {
                            actual.add(new Entry(it.key(), it.sequence(), it.type(), it.value()));
                        }
                    }
                    for (Entry e : actual.subList(actual.size() - (int) r.properties().entries(), actual.size())) {
                        TableLookup l = r.get(e.key, Long.MAX_VALUE);
                        assertNotNull(l, "round " + round + ": key missing from its table's filter or blocks");
                    }
                }
            }
            assertEquals(expected.size(), actual.size(), "round " + round + ": entries");
            for (int i = 0; i < expected.size(); i++) {
                Entry x = expected.get(i);
                Entry a = actual.get(i);
                assertArrayEquals(x.key, a.key, "round " + round + " entry " + i);
                assertEquals(x.sequence, a.sequence, "round " + round + " entry " + i);
                assertEquals(x.type, a.type, "round " + round + " entry " + i);
                assertArrayEquals(x.value, a.value, "round " + round + " entry " + i);
            }
            for (TableReader r : readers) {
                r.close();
            }
        }
        assertTrue(copied > 100, "blocks copied whole over all rounds: " + copied);
    }

    /**
     * Copying whole blocks must not fragment the output: merging two inputs that alternate in runs
     * of 7 keys (5 entries a block) copies the blocks that fall inside a run, but only when the
     * block being built is empty or half full, so the output has at most 10% more blocks than the
     * same entries added one by one (seed 20261125). Writing out the block being built before
     * every copy, as compactions did, gave 1,944 blocks against 1,600 (21% more); this gives 1,657.
     */
    @Test
    void copyingWholeBlocksKeepsTheOutputBlocksFull() throws Exception {
        Random random = new Random(20261125);
        MemoryFileSystem fs = new MemoryFileSystem();
        Path dir = Path.of("/whole-blocks/interleaved");
        fs.createDirectories(dir);
        TableOptions opts = OUTPUT.withCompression(Compression.NONE);
        List<TableReader> readers = new ArrayList<>();
        List<InternalIterator> sources = new ArrayList<>();
        long sequence = 1;
        for (int t = 0; t < 2; t++) {
            TableBuilder b = new TableBuilder(fs, dir, t + 1, opts);
            for (int k = 0; k < 8000; k++) {
                if ((k / 7) % 2 == t) {
                    byte[] value = new byte[200];
                    random.nextBytes(value);
                    b.add(key(k), sequence++, ValueType.VALUE, value);
                }
            }
            b.finish();
            TableReader r = TableReader.open(fs, dir, t + 1, opts, new BlockCache(0), new StoreCounters());
            readers.add(r);
            sources.add(r.iterator(false));
        }
        CompactionJob job = new CompactionJob(null, new ShadowedVersions(new long[0], true), 1L << 30);
        List<FileMetaData> outputs = job.run(MergingIterator.forward(sources, null), new CompactionJob.Output() {
            @Override
            public TableBuilder newTable() throws java.io.IOException {
                return new TableBuilder(fs, dir, 100, opts);
            }

            @Override
            public void finished(TableMetadata table) {
            }
        });
        for (InternalIterator it : sources) {
            it.close();
        }
        for (TableReader r : readers) {
            r.close();
        }
        assertEquals(1, outputs.size());
        assertTrue(job.blocksCopied() > 100, "blocks copied whole: " + job.blocksCopied());
        try (TableReader r = TableReader.open(fs, dir, 100, opts, new BlockCache(0), new StoreCounters())) {
            r.verify();
            assertEquals(8000, r.properties().entries());
            long blocks = r.properties().dataBlocks();
            long reference = blocksAddedOneByOne(fs, dir, readers.size() + 1, opts, r);
            assertTrue(blocks <= 1.1 * reference, blocks + " data blocks against " + reference
                    + " for the same entries added one by one");
        }
    }

    /** Data blocks of a table holding {@code source}'s entries, added one by one. */
    private static long blocksAddedOneByOne(MemoryFileSystem fs, Path dir, long number, TableOptions opts,
                                            TableReader source) throws Exception {
        TableBuilder b = new TableBuilder(fs, dir, number, opts);
        try (InternalIterator it = source.iterator(false)) {
            for (it.seekToFirst(); it.valid(); it.next()) {
                b.add(it.key(), it.sequence(), it.type(), it.value());
            }
        }
        b.finish();
        try (TableReader r = TableReader.open(fs, dir, number, opts, new BlockCache(0), new StoreCounters())) {
            return r.properties().dataBlocks();
        }
    }

    private static byte[] key(int k) {
        return ByteBuffer.allocate(4).putInt(k).array();
    }
}
