package io.bloomstore.core;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.bloomstore.bloom.CorruptionException;

/**
 * What a failing {@link StoreIterator} throws (its Javadoc's contract): a damaged data block met
 * while iterating is an {@link UncheckedIOException} caused by a {@link CorruptionException}; the
 * iterator then keeps failing with the same cause, closes cleanly, and the store stays usable.
 */
class StoreIteratorErrorTest {
    private static final int KEYS = 2_000;

    @TempDir
    Path dir;

    @Test
    void aDamagedBlockFailsTheIteratorWithItsCause() throws Exception {
        StoreOptions options = StoreOptions.builder().compression(Compression.NONE).blockSize(1024).build();
        try (Store store = Store.open(dir, options)) {
            for (int i = 0; i < KEYS; i++) {
                store.put(key(i), ("value-" + i + "-" + "x".repeat(80)).getBytes(StandardCharsets.UTF_8));
            }
            store.flush();
        }
        Path table;
        try (Stream<Path> files = Files.list(dir)) {
            table = files.filter(p -> p.toString().endsWith(".sst")).findFirst().orElseThrow();
        }
        long damagedAt = 20_000;
        try (FileChannel ch = FileChannel.open(table, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            ByteBuffer b = ByteBuffer.allocate(1);
            ch.read(b, damagedAt);
            b.put(0, (byte) (b.get(0) ^ 0x5A));
            ch.write(b.rewind(), damagedAt);
        }
        try (Store store = Store.open(dir, options)) {
            int seen = 0;
            UncheckedIOException failure;
            try (StoreIterator it = store.iterator(null, null)) {
                failure = assertThrows(UncheckedIOException.class, () -> {
                    while (it.hasNext()) {
                        it.next();
                    }
                });
                CorruptionException cause = assertInstanceOf(CorruptionException.class, failure.getCause());
                assertTrue(cause.getMessage().contains(table.getFileName().toString()), cause.getMessage());
                UncheckedIOException again = assertThrows(UncheckedIOException.class, it::hasNext);
                assertSame(cause, again.getCause(), "the iterator keeps failing with the same cause");
                assertSame(cause, assertThrows(UncheckedIOException.class, it::next).getCause());
            }
            try (StoreIterator it = store.iterator(null, key(10))) {
                while (it.hasNext()) {
                    it.next();
                    seen++;
                }
            }
            assertEquals(10, seen, "an undamaged range still iterates");
            try (StoreIterator it = store.iterator(key(3), null)) {
                assertArrayEquals(key(3), it.next().key(), "the store stays usable");
            }
            assertThrows(CorruptionException.class, () -> {
                for (int i = 0; i < KEYS; i++) {
                    store.get(key(i));
                }
            });
        }
    }

    private static byte[] key(int i) {
        return String.format("key-%06d", i).getBytes(StandardCharsets.UTF_8);
    }
}
