package io.bloomstore.core.table;

import io.bloomstore.core.Compression;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.bloomstore.bloom.FilterKind;
import io.bloomstore.bloom.FilterSet;
import io.bloomstore.bloom.Filters;
import io.bloomstore.bloom.RangeFilter;
import io.bloomstore.core.PrefixExtractor;
import io.bloomstore.core.RangeFilterOptions;
import io.bloomstore.core.cache.BlockCache;
import io.bloomstore.core.fs.LocalFileSystem;
import io.bloomstore.core.internal.InternalIterator;
import io.bloomstore.core.internal.ValueType;
import io.bloomstore.core.stats.StoreCounters;

/**
 * Golden SSTables under {@code testdata/golden/sstable/}, written by this class, so that any
 * change of the table or filter format is deliberate: the current reader must read them, and
 * the current writer must still produce the uncompressed one byte for byte.
 * <ul>
 *   <li>{@code 000001.sst} + {@code 000001.filter}: LZ4, standard Bloom filter at 10 bits/key,
 *       256-byte blocks.
 *   <li>{@code 000002.sst}: no compression, no filter, 256-byte blocks.
 *   <li>{@code 000003.sst} + {@code 000003.filter}: no compression, standard Bloom filter at 10
 *       bits/key and a prefix filter of {@code PrefixExtractor.fixed(10)} (20 prefixes
 *       {@code golden-000} .. {@code golden-019}) and a range filter (16 bits per key, ranges of
 *       2^8, over the one 8-byte head {@code golden-0}): the filter sidecar in format version 2, a
 *       filter set of all three roles. {@code 000001.filter} stays in version 1, so readers of old sidecars are tested too.
 * </ul>
 * Regenerate after an intended format change (and bump the format version) with
 * {@code mvn -pl store-core -am test -Dtest=GoldenTableTest -Dsurefire.failIfNoSpecifiedTests=false
 * -Dbloomstore.regenerateGolden=true}, then review the diff.
 */
class GoldenTableTest {
    private static final Path GOLDEN = Path.of(System.getProperty("bloomstore.testdata", "../testdata"))
            .resolve("golden").resolve("sstable");
    private static final TableOptions LZ4_BLOOM = TableOptions.defaults().withBlockSize(256)
            .withFilter(FilterKind.BLOOM, 10);
    private static final TableOptions PLAIN = TableOptions.defaults().withBlockSize(256)
            .withCompression(Compression.NONE).withoutFilter();
    private static final PrefixExtractor PREFIX = PrefixExtractor.fixed(10);
    private static final TableOptions PLAIN_PREFIX = PLAIN.withFilter(FilterKind.BLOOM, 10).withPrefixExtractor(PREFIX)
            .withRangeFilter(new RangeFilterOptions(16, 8));

    @TempDir
    Path tmp;

    /** The golden contents: 200 keys, every tenth with two versions, every seventh else a tombstone. */
    static List<TableFixture.Entry> contents() {
        List<TableFixture.Entry> list = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            byte[] key = String.format("golden-%04d", i).getBytes(StandardCharsets.UTF_8);
            if (i % 10 == 0) {
                list.add(new TableFixture.Entry(key, 1000 + i, ValueType.VALUE, bytes("new-" + i)));
                list.add(new TableFixture.Entry(key, i + 1, ValueType.VALUE, bytes("old-" + i)));
            } else if (i % 7 == 0) {
                list.add(new TableFixture.Entry(key, i + 1, ValueType.DELETION, new byte[0]));
            } else {
                list.add(new TableFixture.Entry(key, i + 1, ValueType.VALUE, bytes(("value-" + i + ";").repeat(1 + i % 5))));
            }
        }
        return list;
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static void write(Path dir, long number, TableOptions opts) throws IOException {
        TableBuilder b = new TableBuilder(LocalFileSystem.INSTANCE, dir, number, opts);
        for (TableFixture.Entry e : contents()) {
            b.add(e.key(), e.seq(), e.type(), e.value());
        }
        b.finish();
    }

    @BeforeAll
    static void regenerateWhenAsked() throws IOException {
        if (Boolean.getBoolean("bloomstore.regenerateGolden")) {
            Files.createDirectories(GOLDEN);
            write(GOLDEN, 1, LZ4_BLOOM);
            write(GOLDEN, 2, PLAIN);
            write(GOLDEN, 3, PLAIN_PREFIX);
        }
    }

    @Test
    void goldenTablesReadBackExactly() throws IOException {
        assertTrue(Files.exists(GOLDEN.resolve("000001.sst")), "golden files missing under " + GOLDEN);
        check(1, LZ4_BLOOM, FilterKind.BLOOM);
        check(2, PLAIN, null);
        check(3, PLAIN_PREFIX, FilterKind.BLOOM);
    }

    @Test
    void theGoldenFilterSetAnswersForEveryPrefixAndTheOldSidecarHasNoPrefixFilter() throws IOException {
        StoreCounters counters = new StoreCounters();
        try (TableReader t = TableReader.open(LocalFileSystem.INSTANCE, GOLDEN, 3, PLAIN_PREFIX,
                BlockCache.disabled(), counters);
             TableReader old = TableReader.open(LocalFileSystem.INSTANCE, GOLDEN, 1, LZ4_BLOOM,
                     BlockCache.disabled(), counters)) {
            assertEquals(3, FilterSet.verify(GOLDEN.resolve("000003.filter")).size());
            long head = RangeFilter.keyValue(bytes("golden-0"));
            assertTrue(t.mayContainRange(head, head));
            assertTrue(t.mayContainRange(head - 100, head + 100));
            assertFalse(t.mayContainRange(head + 1, head + 200), "the range just past the only head is ruled out");
            assertTrue(t.mayContainRange(head + 1, head + 300), "past 2^8 values the filter cannot tell");
            assertEquals(3, counters.rangeChecked().sum());
            assertEquals(1, counters.rangeUseful().sum());
            assertEquals(PREFIX, t.prefixExtractor());
            for (int p = 0; p < 20; p++) {
                byte[] prefix = bytes(String.format("golden-%03d", p));
                assertTrue(t.mayContainPrefix(prefix, Filters.hash(prefix), PREFIX), "prefix " + p);
            }
            int absent = 0;
            for (int p = 20; p < 1000; p++) {
                byte[] prefix = bytes(String.format("golden-%03d", p));
                absent += t.mayContainPrefix(prefix, Filters.hash(prefix), PREFIX) ? 0 : 1;
            }
            // 20 prefixes at 10 bits each: about 1% FPR in theory.
            assertTrue(absent > 930, "absent prefixes ruled out: " + absent + " of 980");
            assertEquals(1000, counters.prefixChecked().sum());
            assertEquals(absent, counters.prefixUseful().sum());
            assertFalse(t.hasPrefixFilter(PrefixExtractor.fixed(9)), "another extractor's filter is not used");
            assertNull(old.prefixExtractor());
            assertEquals(0, old.filterSectionBytes(FilterSet.Role.PREFIX));
            assertEquals(Files.size(GOLDEN.resolve("000001.filter")), old.filterSectionBytes(FilterSet.Role.KEY));
        }
    }

    private void check(long number, TableOptions opts, FilterKind kind) throws IOException {
        StoreCounters counters = new StoreCounters();
        List<TableFixture.Entry> want = contents();
        try (TableReader t = TableReader.open(LocalFileSystem.INSTANCE, GOLDEN, number, opts, BlockCache.disabled(),
                counters)) {
            t.verify();
            assertEquals(kind, t.filterKind());
            TableProperties p = t.properties();
            assertEquals(want.size(), p.entries());
            assertEquals(1, p.smallestSeq());
            assertEquals(1190, p.largestSeq());
            assertEquals(opts.compression(), p.compression());
            assertEquals(kind == null ? 0 : 200, p.filterKeys());
            try (InternalIterator it = t.iterator()) {
                int i = 0;
                for (it.seekToFirst(); it.valid(); it.next()) {
                    TableFixture.Entry e = want.get(i++);
                    assertArrayEquals(e.key(), it.key());
                    assertEquals(e.seq(), it.sequence());
                    assertEquals(e.type(), it.type());
                    assertArrayEquals(e.value(), it.value());
                }
                assertEquals(want.size(), i);
            }
            assertArrayEquals(bytes("old-30"), t.get(bytes("golden-0030"), 500).value());
            assertEquals(ValueType.DELETION, t.get(bytes("golden-0007"), 500).type());
            assertNull(t.get(bytes("golden-0030"), 30));
            assertNull(t.get(bytes("golden-0200"), Long.MAX_VALUE));
            assertNull(t.get(bytes("golden-0100x"), Long.MAX_VALUE));
        }
    }

    @Test
    void theWriterStillProducesTheUncompressedGoldenTableByteForByte() throws IOException {
        write(tmp, 2, PLAIN);
        assertArrayEquals(Files.readAllBytes(GOLDEN.resolve("000002.sst")), Files.readAllBytes(tmp.resolve("000002.sst")),
                "table format changed: regenerate the golden files deliberately (see class Javadoc)");
        assertFalse(Files.exists(tmp.resolve("000002.filter")));
    }

    @Test
    void theWriterStillProducesTheGoldenFilterSetByteForByte() throws IOException {
        write(tmp, 3, PLAIN_PREFIX);
        assertArrayEquals(Files.readAllBytes(GOLDEN.resolve("000003.sst")), Files.readAllBytes(tmp.resolve("000003.sst")),
                "table format changed: regenerate the golden files deliberately (see class Javadoc)");
        assertArrayEquals(Files.readAllBytes(GOLDEN.resolve("000003.filter")),
                Files.readAllBytes(tmp.resolve("000003.filter")),
                "filter set format changed: regenerate the golden files deliberately (see class Javadoc)");
    }
}
