package io.bloomstore.core.datamodel;

import static io.bloomstore.core.datamodel.MergeOperatorTest.b;
import static io.bloomstore.core.datamodel.MergeOperatorTest.str;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.bloomstore.core.CompactionFilter;
import io.bloomstore.core.MergeOperators;
import io.bloomstore.core.ReadOptions;
import io.bloomstore.core.Snapshot;
import io.bloomstore.core.Store;
import io.bloomstore.core.StoreIterator;
import io.bloomstore.core.StoreOptions;
import io.bloomstore.core.fs.MemoryFileSystem;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** TTL (a controllable clock) and compaction filters. */
class TtlAndFilterTest {
    private final MemoryFileSystem fs = new MemoryFileSystem();
    private final Path dir = Path.of("/ttl/store");
    private final MutableClock clock = new MutableClock(5_000_000);

    private StoreOptions.Builder ttl(long ms) {
        return StoreOptions.builder().ttl(Duration.ofMillis(ms)).clock(clock);
    }

    @Test
    void valuesExpireForReadsAndCompactionRemovesThem() throws Exception {
        try (Store s = Store.open(fs, dir, ttl(1000).build())) {
            for (int i = 0; i < 100; i++) {
                s.put(b("old" + i), b("v" + i));
            }
            clock.advance(600);
            for (int i = 0; i < 100; i++) {
                s.put(b("new" + i), b("w" + i));
            }
            s.flush();
            assertEquals("v7", str(s.get(b("old7"))));
            clock.advance(400);
            assertNull(s.get(b("old7")), "expired at exactly the TTL");
            assertEquals("w7", str(s.get(b("new7"))));
            try (StoreIterator it = s.iterator(null, null)) {
                int n = 0;
                while (it.hasNext()) {
                    assertFalse(str(it.next().key()).startsWith("old"));
                    n++;
                }
                assertEquals(100, n);
            }
            s.compact();
            long entries = s.stats().levels().stream().mapToLong(l -> l.entries()).sum();
            assertEquals(100, entries, "compaction to the bottom level removed the expired values");
            clock.advance(600);
            s.compact();
            assertEquals(0, s.stats().levels().stream().mapToLong(l -> l.entries()).sum());
        }
    }

    @Test
    void aStoreOpenedWithoutTtlReadsTimedValuesAndNeverExpiresThem() throws Exception {
        try (Store s = Store.open(fs, dir, ttl(1000).build())) {
            s.put(b("k"), b("value"));
            s.flush();
            s.put(b("m"), b("memtable"));
        }
        clock.advance(10_000);
        try (Store s = Store.open(fs, dir, StoreOptions.builder().clock(clock).build())) {
            assertEquals("value", str(s.get(b("k"))));
            assertEquals("memtable", str(s.get(b("m"))));
            s.compact();
            assertEquals("value", str(s.get(b("k"))));
        }
        try (Store s = Store.open(fs, dir, ttl(1000).build())) {
            assertNull(s.get(b("k")), "with the TTL back, the write time still counts");
        }
    }

    @Test
    void ttlAndMergeOperatorAreRefusedTogether() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ttl(1000).mergeOperator(MergeOperators.int64Add()).build());
        assertEquals(true, e.getMessage().contains("not both"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> StoreOptions.builder().ttl(Duration.ZERO).build());
    }

    /** Removes values starting with "tmp", upper-cases values starting with "up". */
    private static final CompactionFilter FILTER = new CompactionFilter() {
        @Override
        public Decision filter(int level, byte[] key, byte[] value) {
            String v = str(value);
            if (v.startsWith("tmp")) {
                return Decision.REMOVE;
            }
            if (v.startsWith("up")) {
                return Decision.change(b(v.toUpperCase()));
            }
            return Decision.KEEP;
        }
    };

    @Test
    void filterRemovesAndChangesValuesWithoutResurrectingOlderOnes() throws Exception {
        StoreOptions options = StoreOptions.builder().compactionFilter(FILTER).build();
        try (Store s = Store.open(fs, dir, options)) {
            s.put(b("a"), b("kept"));
            s.put(b("b"), b("old"));
            s.compact();
            s.put(b("b"), b("tmp-new"));
            s.put(b("c"), b("up-me"));
            assertEquals("tmp-new", str(s.get(b("b"))), "reads do not filter");
            s.flush();
            // A compaction of level 0 only, above the old "b": the removal must hide it.
            s.compact();
            assertNull(s.get(b("b")), "a removed value leaves a tombstone over the older one");
            assertEquals("UP-ME", str(s.get(b("c"))));
            assertEquals("kept", str(s.get(b("a"))));
        }
    }

    @Test
    void filterSparesValuesASnapshotSees() throws Exception {
        StoreOptions options = StoreOptions.builder().compactionFilter(FILTER).build();
        try (Store s = Store.open(fs, dir, options)) {
            s.put(b("k"), b("tmp-1"));
            try (Snapshot snap = s.snapshot()) {
                s.compact();
                assertEquals("tmp-1", str(s.get(b("k"), ReadOptions.at(snap))));
                assertEquals("tmp-1", str(s.get(b("k"))));
            }
            s.put(b("other"), b("x"));
            s.compact();
            assertNull(s.get(b("k")), "once no snapshot sees it the filter removes it");
            assertEquals(Arrays.toString(b("x")), Arrays.toString(s.get(b("other"))));
        }
    }
}
