package io.bloomstore.core.table;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.util.SplittableRandom;

import org.junit.jupiter.api.Test;

import net.jpountz.lz4.LZ4Factory;

/**
 * {@link Lz4}: {@code java} picks lz4-java's pure-Java code, anything else the fastest; blocks
 * either compresses, the other decompresses (seed 29, text-like bytes that compress).
 */
class Lz4Test {
    @Test
    void eitherImplementationReadsTheOthersBlocks() {
        assertSame(LZ4Factory.fastestJavaInstance(), Lz4.choose("java"));
        assertSame(LZ4Factory.fastestInstance(), Lz4.choose("fastest"));
        assertSame(LZ4Factory.fastestInstance(), Lz4.choose("something else"));
        SplittableRandom r = new SplittableRandom(29);
        byte[] block = new byte[4096];
        for (int i = 0; i < block.length; i++) {
            block[i] = (byte) ('a' + r.nextInt(6));
        }
        LZ4Factory[] all = {LZ4Factory.fastestJavaInstance(), LZ4Factory.fastestInstance()};
        for (LZ4Factory writer : all) {
            byte[] packed = writer.fastCompressor().compress(block);
            for (LZ4Factory reader : all) {
                assertArrayEquals(block, reader.safeDecompressor().decompress(packed, block.length));
            }
        }
    }
}
