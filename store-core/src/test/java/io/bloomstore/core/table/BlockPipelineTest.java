package io.bloomstore.core.table;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bloomstore.core.Compression;
import io.bloomstore.core.fs.LocalFileSystem;
import io.bloomstore.core.internal.ValueType;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Blocks compressed on other threads ({@link BlockPipeline}) give the table, byte for byte, that an
 * in-line build gives, whoever encodes them: a pool, the caller (for a pool that never starts a
 * task, or one that refuses tasks because it was shut down), or the executing thread itself; with
 * compressible and incompressible blocks (some stored uncompressed), with and without LZ4. An
 * abandoned build leaves no file. Randomised; the seed is printed.
 */
class BlockPipelineTest {
    private static final long SEED = Long.getLong("pipeline.seed", System.nanoTime());

    @TempDir
    Path dir;

    private long number = 1;

    /** Builds table number {@code n}; returns its number. */
    private long build(TableOptions opts, Executor encoder, long seed) throws IOException {
        long n = number++;
        TableBuilder b = new TableBuilder(LocalFileSystem.INSTANCE, dir, n, opts, null, 0, encoder);
        Random rnd = new Random(seed);
        byte[] key = new byte[16];
        for (int i = 0; i < 20_000; i++) {
            ByteBuffer.wrap(key).putLong(8, i * 3L);
            byte[] value = new byte[1 + rnd.nextInt(300)];
            if (rnd.nextInt(4) == 0) {
                rnd.nextBytes(value); // incompressible: stored as it is
            } else {
                value[0] = (byte) i;
            }
            b.add(key, i + 1, ValueType.VALUE, value);
        }
        b.finish();
        return n;
    }

    @Test
    void theTableIsTheSameWhoeverEncodesItsBlocks() throws IOException {
        String seed = "seed " + SEED + " (-Dpipeline.seed)";
        ExecutorService pool = Executors.newFixedThreadPool(2);
        List<Runnable> neverRun = new ArrayList<>();
        try {
            for (Compression c : new Compression[] {Compression.LZ4, Compression.NONE}) {
                TableOptions opts = TableOptions.defaults().withCompression(c);
                long inline = build(opts, null, SEED);
                byte[] expected = Files.readAllBytes(dir.resolve(TableFileNames.table(inline)));
                byte[] expectedFilter = Files.readAllBytes(dir.resolve(TableFileNames.filter(inline)));
                Executor rejecting = r -> {
                    throw new java.util.concurrent.RejectedExecutionException("shut down");
                };
                Executor[] encoders = {pool, neverRun::add, Runnable::run, rejecting};
                for (Executor e : encoders) {
                    long t = build(opts, e, SEED);
                    assertArrayEquals(expected, Files.readAllBytes(dir.resolve(TableFileNames.table(t))), c + ", " + seed);
                    assertArrayEquals(expectedFilter, Files.readAllBytes(dir.resolve(TableFileNames.filter(t))),
                            c + ", " + seed);
                }
            }
            assertFalse(neverRun.isEmpty(), "the caller encoded the blocks the executor held back");
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void anAbandonedBuildLeavesNothing() throws IOException {
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try {
            TableBuilder b = new TableBuilder(LocalFileSystem.INSTANCE, dir, 99, TableOptions.defaults(), null, 0, pool);
            byte[] key = new byte[16];
            for (int i = 0; i < 5_000; i++) {
                ByteBuffer.wrap(key).putLong(8, i);
                b.add(key, 1, ValueType.VALUE, new byte[100]);
            }
            assertTrue(b.fileSize() > 0, "pending blocks count in the size");
            b.abandon();
            try (var files = Files.list(dir)) {
                assertEquals(0, files.count());
            }
        } finally {
            pool.shutdownNow();
        }
    }
}
