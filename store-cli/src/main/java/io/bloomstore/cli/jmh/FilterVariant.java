package io.bloomstore.cli.jmh;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

import com.google.common.hash.BloomFilter;
import com.google.common.hash.Funnels;

import io.bloomstore.bloom.BloomMath;
import io.bloomstore.bloom.FilterFile;
import io.bloomstore.bloom.FilterKind;
import io.bloomstore.bloom.Filters;
import io.bloomstore.bloom.MembershipFilter;
import io.bloomstore.bloom.storage.OffHeapBackend;
import io.bloomstore.bloom.storage.Storage;

/**
 * One filter under benchmark: a BloomStore kind on heap, native or mapped storage (mapped
 * through Chronicle Bytes, or "jdkmapped" through the JDK's own mappings, the fallback of a JVM
 * without flags), or Guava's BloomFilter (the baseline) sized for the same false-positive rate. Built at
 * {@value #BITS_PER_KEY} bits per key.
 *
 * <p>Thread safety: adds confined to one thread, as the filters are.
 */
final class FilterVariant implements AutoCloseable {
    static final double BITS_PER_KEY = 10;

    private final MembershipFilter filter;
    private final BloomFilter<byte[]> guava;
    private final Path file;

    private FilterVariant(MembershipFilter filter, BloomFilter<byte[]> guava, Path file) {
        this.filter = filter;
        this.guava = guava;
        this.file = file;
    }

    /**
     * Builds {@code name} ("bloom-heap", "blocked-mapped", "bloom-jdkmapped", "guava", ...) sized for
     * {@code capacity} keys and holding the first {@code inserted} of {@code keys}. A mapped
     * variant is built natively, written to a temporary file and reopened by mapping (mapped
     * filters are read-only).
     */
    static FilterVariant build(String name, byte[][] keys, int capacity, int inserted) throws IOException {
        // Guava sizes by rate: give it the rate 10 bits per key buy a standard filter at k = 7.
        double fpr = BloomMath.fpr((long) (BITS_PER_KEY * capacity), capacity, BloomMath.optimalK(BITS_PER_KEY));
        if (name.equals("guava")) {
            BloomFilter<byte[]> g = BloomFilter.create(Funnels.byteArrayFunnel(), capacity, fpr);
            for (int i = 0; i < inserted; i++) {
                g.put(keys[i]);
            }
            return new FilterVariant(null, g, null);
        }
        String[] parts = name.split("-");
        FilterKind kind = FilterKind.byCliName(parts[0]);
        boolean mapped = parts[1].endsWith("mapped");
        OffHeapBackend backend = parts[1].equals("jdkmapped") ? OffHeapBackend.JDK : OffHeapBackend.CHRONICLE;
        Storage storage = mapped ? Storage.NATIVE : Storage.valueOf(parts[1].toUpperCase(Locale.ROOT));
        MembershipFilter f;
        if (inserted == capacity) {
            long[] hashes = new long[inserted];
            for (int i = 0; i < inserted; i++) {
                hashes[i] = Filters.hash(keys[i]);
            }
            f = Filters.build(kind, BITS_PER_KEY, hashes, inserted, storage);
        } else {
            f = Filters.create(kind, capacity, fpr, storage);
            for (int i = 0; i < inserted; i++) {
                f.add(keys[i]);
            }
        }
        if (!mapped) {
            return new FilterVariant(f, null, null);
        }
        Path file = Files.createTempFile("bloomstore-jmh-", ".bsf");
        try (f) {
            FilterFile.write(f, file);
        }
        return new FilterVariant(FilterFile.open(file, true, backend), null, file);
    }

    boolean add(byte[] key) {
        if (guava != null) {
            return guava.put(key);
        }
        return filter.add(key);
    }

    boolean mightContain(byte[] key) {
        return guava != null ? guava.mightContain(key) : filter.mightContain(key);
    }

    @Override
    public void close() throws IOException {
        if (filter != null) {
            filter.close();
        }
        if (file != null) {
            Files.deleteIfExists(file);
        }
    }
}
