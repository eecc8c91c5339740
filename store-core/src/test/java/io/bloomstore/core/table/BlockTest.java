package io.bloomstore.core.table;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import io.bloomstore.bloom.CorruptionException;
import io.bloomstore.core.internal.ValueType;

class BlockTest {
    private static final Path FILE = Path.of("block-test.sst");

    private static byte[] ikey(String user, long seq) {
        return InternalKeys.encode(user.getBytes(StandardCharsets.UTF_8), seq, ValueType.VALUE);
    }

    private static Block build(List<byte[]> keys, int restartInterval) throws CorruptionException {
        BlockBuilder b = new BlockBuilder(restartInterval);
        for (byte[] k : keys) {
            b.add(k, value(k));
        }
        return new Block(b.finish(), FILE, 0);
    }

    private static byte[] value(byte[] key) {
        return ("v" + key.length + ":" + key[0]).getBytes(StandardCharsets.UTF_8);
    }

    /** Sorted distinct internal keys sharing long prefixes. */
    private static List<byte[]> keys(int n) {
        List<byte[]> keys = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            keys.add(ikey(String.format("customer-%06d", i * 3), 5));
        }
        return keys;
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2, 16})
    void forwardAndBackwardIterationReturnEveryEntry(int restartInterval) throws Exception {
        List<byte[]> keys = keys(100);
        Block block = build(keys, restartInterval);
        assertEquals((100 + restartInterval - 1) / restartInterval, block.restartCount);
        BlockIterator it = block.iterator();
        int i = 0;
        for (it.seekToFirst(); it.valid(); it.next()) {
            assertArrayEquals(keys.get(i), it.key());
            assertArrayEquals(value(keys.get(i)), it.value());
            i++;
        }
        assertEquals(keys.size(), i);
        for (it.seekToLast(); it.valid(); it.prev()) {
            assertArrayEquals(keys.get(--i), it.key());
        }
        assertEquals(0, i);
    }

    @Test
    void prefixCompressionStoresSharedPrefixesOnce() throws Exception {
        List<byte[]> keys = keys(160);
        long raw = keys.stream().mapToLong(k -> k.length).sum();
        Block compressed = build(keys, 16);
        Block whole = build(keys, 1);
        assertTrue(compressed.sizeBytes() < whole.sizeBytes() - raw / 2,
                "restart interval 16 block " + compressed.sizeBytes() + " bytes vs interval 1 " + whole.sizeBytes());
    }

    @Test
    void seekFindsFirstKeyAtLeastTargetAndSeekForPrevTheLastAtMost() throws Exception {
        List<byte[]> keys = keys(100);
        Block block = build(keys, 16);
        BlockIterator it = block.iterator();
        for (int i = 0; i < 300; i++) {
            byte[] target = ikey(String.format("customer-%06d", i), 5);
            it.seek(target);
            int expectedNext = (i + 2) / 3;
            if (expectedNext < keys.size()) {
                assertArrayEquals(keys.get(expectedNext), it.key(), "seek " + i);
            } else {
                assertFalse(it.valid());
            }
            it.seekForPrev(target);
            assertArrayEquals(keys.get(i / 3), it.key(), "seekForPrev " + i);
        }
        it.seekForPrev(ikey("a", 5));
        assertFalse(it.valid());
        it.seek(ikey("z", 5));
        assertFalse(it.valid());
    }

    @Test
    void newerSequencesOfOneUserKeySortFirst() throws Exception {
        List<byte[]> keys = List.of(ikey("k", 9), ikey("k", 7), ikey("k", 3), ikey("l", 1));
        Block block = build(keys, 2);
        BlockIterator it = block.iterator();
        it.seek(InternalKeys.seekKey("k".getBytes(StandardCharsets.UTF_8), 8));
        assertArrayEquals(keys.get(1), it.key());
        it.seek(InternalKeys.seekKey("k".getBytes(StandardCharsets.UTF_8), 3));
        assertArrayEquals(keys.get(2), it.key());
        it.prev();
        assertArrayEquals(keys.get(1), it.key());
    }

    @Test
    void garbageBlocksFailWithCorruptionNotUncheckedExceptions() {
        long seed = System.nanoTime();
        System.out.println("BlockTest garbage seed " + seed);
        Random rnd = new Random(seed);
        byte[] good = new BlockBuilder(4).finish();
        for (int round = 0; round < 2000; round++) {
            byte[] data = new byte[rnd.nextInt(80)];
            rnd.nextBytes(data);
            if (data.length >= 4 && rnd.nextBoolean()) {
                // A plausible restart count makes the parser go further into the garbage.
                data[data.length - 4] = (byte) (1 + rnd.nextInt(3));
                data[data.length - 3] = 0;
                data[data.length - 2] = 0;
                data[data.length - 1] = 0;
            }
            try {
                BlockIterator it = new Block(data, FILE, 0).iterator();
                for (it.seekToFirst(); it.valid(); it.next()) {
                    it.value();
                }
                it.seekToLast();
                it.seek(ikey("m", 1));
                it.seekForPrev(ikey("m", 1));
            } catch (CorruptionException expected) {
                assertEquals(FILE, expected.file());
            }
        }
        assertThrows(CorruptionException.class, () -> new Block(good, FILE, 0));
    }
}
