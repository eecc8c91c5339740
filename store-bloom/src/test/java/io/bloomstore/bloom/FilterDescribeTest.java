package io.bloomstore.bloom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import io.bloomstore.bloom.storage.Storage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link FilterFile#describe} and {@link FilterSet#describe}: every kind's filter, described from its
 * header without reading the payload, answers the header and expected false-positive rate the
 * opened filter answers, and refuses to be probed; damage to the header is reported as by an open.
 * Keys from a seeded generator (seed 20261127).
 */
class FilterDescribeTest {
    private static final long SEED = 20261127L;
    private static final int KEYS = 5_000;

    @TempDir
    Path tmp;

    @Test
    void everyKindDescribedAnswersAsOpened() throws IOException {
        long[] hashes = hashes();
        List<MembershipFilter> built = new ArrayList<>();
        for (FilterKind kind : new FilterKind[] {FilterKind.BLOOM, FilterKind.BLOCKED_BLOOM, FilterKind.COUNTING_BLOOM,
                FilterKind.SCALABLE_BLOOM, FilterKind.CUCKOO, FilterKind.BINARY_FUSE, FilterKind.RIBBON}) {
            built.add(Filters.build(kind, 10, hashes, KEYS, Storage.HEAP));
        }
        long[] values = values();
        built.add(RangeFilter.build(values, KEYS, 12, 8, SEED, Storage.HEAP));
        built.add(RosettaFilter.build(values, KEYS, 10, 16, SEED, Storage.HEAP));
        for (MembershipFilter f : built) {
            Path file = tmp.resolve(f.kind().cliName() + ".filter");
            try (f) {
                FilterFile.write(f, file);
            }
            try (MembershipFilter opened = FilterFile.open(file);
                 MembershipFilter described = FilterFile.describe(file, 0, Files.size(file))) {
                assertEquals(opened.header(), described.header(), f.kind().cliName());
                assertEquals(opened.expectedFpp(), described.expectedFpp(), f.kind().cliName());
                assertEquals(opened.count(), described.count(), f.kind().cliName());
                assertThrows(IllegalStateException.class, () -> described.mightContainHash(hashes[0]),
                        f.kind().cliName() + ": a described filter is not probed");
            }
        }
    }

    @Test
    void aSetIsDescribedSectionBySection() throws IOException {
        long[] hashes = hashes();
        Path file = tmp.resolve("set.filter");
        try (MembershipFilter keys = Filters.build(FilterKind.RIBBON, 10, hashes, KEYS, Storage.HEAP);
             MembershipFilter prefixes = Filters.build(FilterKind.RIBBON, 10, hashes, KEYS / 10, Storage.HEAP);
             MembershipFilter ranges = RangeFilter.build(values(), KEYS, 12, 8, SEED, Storage.HEAP);
             FileChannel out = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            FilterSet.write(List.of(new FilterSet.Spec(FilterSet.Role.KEY, new byte[0], keys),
                    new FilterSet.Spec(FilterSet.Role.PREFIX, "fixed:4".getBytes(StandardCharsets.US_ASCII), prefixes),
                    new FilterSet.Spec(FilterSet.Role.RANGE, "first8".getBytes(StandardCharsets.US_ASCII), ranges)), out);
        }
        try (FilterSet opened = FilterSet.open(file, true); FilterSet described = FilterSet.describe(file)) {
            assertEquals(opened.version(), described.version());
            assertEquals(opened.sections().size(), described.sections().size());
            for (int i = 0; i < opened.sections().size(); i++) {
                FilterSet.Section o = opened.sections().get(i);
                FilterSet.Section d = described.sections().get(i);
                assertEquals(o.role(), d.role());
                assertEquals(o.offset(), d.offset());
                assertEquals(o.length(), d.length());
                assertEquals(new String(o.descriptor(), StandardCharsets.US_ASCII),
                        new String(d.descriptor(), StandardCharsets.US_ASCII));
                assertEquals(o.filter().header(), d.filter().header());
                assertEquals(o.filter().expectedFpp(), d.filter().expectedFpp());
            }
            assertInstanceOf(RangeFilter.class, described.section(FilterSet.Role.RANGE).filter());
        }
    }

    @Test
    void aDamagedHeaderIsReportedAsByAnOpen() throws IOException {
        Path file = tmp.resolve("damaged.filter");
        try (MembershipFilter f = Filters.build(FilterKind.RIBBON, 10, hashes(), KEYS, Storage.HEAP)) {
            FilterFile.write(f, file);
        }
        byte[] bytes = Files.readAllBytes(file);
        bytes[20] ^= 0x10;
        Files.write(file, bytes);
        CorruptionException e = assertThrows(CorruptionException.class, () -> FilterFile.describe(file, 0, bytes.length));
        assertEquals(assertThrows(CorruptionException.class, () -> FilterFile.open(file, false)).getMessage(),
                e.getMessage());
    }

    private static long[] hashes() {
        SplittableRandom r = new SplittableRandom(SEED);
        long[] h = new long[KEYS];
        for (int i = 0; i < KEYS; i++) {
            h[i] = r.nextLong();
        }
        return h;
    }

    private static long[] values() {
        SplittableRandom r = new SplittableRandom(SEED + 1);
        long[] v = new long[KEYS];
        for (int i = 0; i < KEYS; i++) {
            v[i] = r.nextLong();
        }
        java.util.Arrays.sort(v);
        return v;
    }
}
