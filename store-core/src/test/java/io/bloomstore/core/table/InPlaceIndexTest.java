package io.bloomstore.core.table;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Random;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.bloomstore.bloom.CorruptionException;
import io.bloomstore.core.fs.LocalFileSystem;

/**
 * The index block searched in place ({@link InPlaceIndex}, a table's first lookups) answers every
 * search exactly as the decoded index ({@link TableIndex}) does, and reports a damaged entry it
 * probes as a {@link CorruptionException}, never an exception of another kind or a wrong block.
 */
class InPlaceIndexTest {
    @TempDir
    Path dir;

    private record Parts(byte[] file, Block index, TableProperties props) {
    }

    private Parts write(Random rnd) throws Exception {
        TableFixture f = TableFixture.random(rnd, 3000);
        f.write(LocalFileSystem.INSTANCE, dir, 5, TableOptions.defaults().withBlockSize(512).withoutFilter());
        Path path = dir.resolve("000005.sst");
        byte[] file = Files.readAllBytes(path);
        Footer footer = Footer.decode(Arrays.copyOfRange(file, file.length - Footer.BYTES, file.length), path,
                file.length);
        BlockHandle ph = footer.properties();
        BlockHandle ih = footer.index();
        TableProperties props = TableProperties.decode(BlockCodec.decode(ByteBuffer.wrap(file, (int) ph.offset(),
                (int) ph.storedSize()).slice(), path, ph.offset()), path, ph.offset());
        byte[] index = BlockCodec.decode(ByteBuffer.wrap(file, (int) ih.offset(), (int) ih.storedSize()).slice(),
                path, ih.offset());
        return new Parts(file, new Block(index, path, ih.offset()), props);
    }

    @Test
    void answersEverySearchAsTheDecodedIndex() throws Exception {
        long seed = System.nanoTime();
        System.out.println("InPlaceIndexTest seed " + seed);
        Random rnd = new Random(seed);
        Parts p = write(rnd);
        InPlaceIndex inPlace = InPlaceIndex.of(p.index, p.props.dataBlocks(), p.props.dataSize(),
                p.props.largestUserKey());
        TableIndex decoded = TableIndex.decode(p.index, p.props.dataBlocks(), p.props.dataSize());
        try {
            assertTrue(decoded.blockCount() > 50, "blocks: " + decoded.blockCount());
            assertEquals(decoded.blockCount(), inPlace.blockCount());
            for (int b = 0; b < decoded.blockCount(); b++) {
                assertEquals(decoded.handle(b), inPlace.handle(b), "block " + b);
                // Each block's own last key, and keys just around it, find the same block.
                byte[] last = decoded.lastKey(b);
                assertEquals(decoded.findBlock(last), inPlace.findBlock(last), "last key of block " + b);
                byte[] after = InternalKeys.seekKey(Arrays.copyOf(last, last.length - InternalKeys.TRAILER_BYTES), 0);
                assertEquals(decoded.findBlock(after), inPlace.findBlock(after), "after block " + b);
            }
            for (int i = 0; i < 5000; i++) {
                byte[] target = InternalKeys.seekKey(TableFixture.randomKey(rnd), InternalKeys.MAX_SEQUENCE);
                assertEquals(decoded.findBlock(target), inPlace.findBlock(target), "seed " + seed);
            }
        } finally {
            decoded.close();
        }
    }

    @Test
    void aDamagedEntryIsACorruptionWhenProbed() throws Exception {
        Random rnd = new Random(7);
        Parts p = write(rnd);
        Block index = p.index;
        InPlaceIndex.of(index, p.props.dataBlocks(), p.props.dataSize(), p.props.largestUserKey());
        assertThrows(CorruptionException.class, () -> InPlaceIndex.of(index, p.props.dataBlocks() + 1,
                p.props.dataSize(), p.props.largestUserKey()), "entry count against the properties");
        assertThrows(CorruptionException.class, () -> InPlaceIndex.of(index, p.props.dataBlocks(),
                p.props.dataSize() + 1, p.props.largestUserKey()), "the last block must end the data region");
        // Entry 3's header claims a key longer than the entries hold: malformed, wherever a search probes it.
        byte[] damaged = index.data.clone();
        int at = index.restartPoint(3);
        damaged[at + 1] = (byte) 0x7F;
        Block bad = new Block(damaged, index.file, index.fileOffset);
        InPlaceIndex inPlace = InPlaceIndex.of(bad, p.props.dataBlocks(), p.props.dataSize(),
                p.props.largestUserKey());
        CorruptionException e = assertThrows(CorruptionException.class, () -> inPlace.handle(3));
        assertTrue(e.getMessage().contains("index entry 3"), e.getMessage());
        // A handle that is not two whole varints is refused, not followed.
        byte[] far = index.data.clone();
        int[] pos = {index.restartPoint(0)};
        Varint.read32(far, pos, index.restartsOffset);
        int keyLength = Varint.read32(far, pos, index.restartsOffset);
        int valueLength = Varint.read32(far, pos, index.restartsOffset);
        Arrays.fill(far, pos[0] + keyLength, pos[0] + keyLength + valueLength, (byte) 0x80);
        InPlaceIndex farIndex = InPlaceIndex.of(new Block(far, index.file, index.fileOffset), p.props.dataBlocks(),
                p.props.dataSize(), p.props.largestUserKey());
        assertThrows(CorruptionException.class, () -> farIndex.handle(0));
    }
}
