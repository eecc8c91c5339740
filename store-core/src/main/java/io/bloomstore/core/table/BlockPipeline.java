package io.bloomstore.core.table;

import io.bloomstore.core.Compression;
import io.bloomstore.core.fs.WritableFile;
import io.bloomstore.core.internal.Futures;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.concurrent.Callable;
import java.util.concurrent.Executor;
import java.util.concurrent.FutureTask;

/**
 * A table builder's data blocks compressed and checksummed on other threads while the builder's
 * thread adds the next entries, then written in their order, as RocksDB's
 * {@code CompressionOptions::parallel_threads} does for an SST: a bulk load's writer spent about a
 * quarter of its time in LZ4. Blocks go over in batches of {@value #BLOCKS_PER_BATCH}; at most
 * {@value #MAX_PENDING} batches wait, past that the oldest is written, and a batch no pool thread
 * has started yet is encoded on the builder's thread instead of waited for, so a busy pool never
 * makes the table much slower to build than encoding in line. The bytes written are exactly those
 * of an in-line build ({@code BlockPipelineTest}). A block's array and its compressed copy's go
 * back to the builder once written ({@link #spare}): copying each block out of the builder and
 * allocating its compressed copy were an eighth of a bulk load's writing thread.
 *
 * <p>Thread safety: the builder's thread only; the encoding tasks touch nothing but their own block.
 */
final class BlockPipeline {
    /** Blocks handed to a thread in one task: a task per 4 KiB block cost more in hand-offs than its LZ4 saved. */
    static final int BLOCKS_PER_BATCH = 16;
    /** Batches waiting for their encoding or their turn to be written. */
    static final int MAX_PENDING = 4;

    private final Executor executor;
    private final ArrayDeque<Batch> pending = new ArrayDeque<>();
    /** The batch being filled, not handed over yet. */
    private Batch filling;
    /** The raw bytes of the blocks waiting: {@link TableBuilder#fileSize()} counts them. */
    private long pendingBytes;
    /** Arrays of blocks written, for the builder to build in and the encodings to compress into. */
    private final ArrayDeque<byte[]> spares = new ArrayDeque<>();
    /** At most this many spare arrays are kept: as many as the batches waiting can hold, twice (block and copy). */
    private static final int MAX_SPARES = 2 * BLOCKS_PER_BATCH * (MAX_PENDING + 2);

    BlockPipeline(Executor executor) {
        this.executor = executor;
    }

    /**
     * An array a written block left (null when there is none): the builder builds its next block in
     * it, or gives it back for a block's compressed copy.
     */
    byte[] spare() {
        return spares.pollFirst();
    }

    private void keepSpare(byte[] a) {
        if (spares.size() < MAX_SPARES) {
            spares.addLast(a);
        }
    }

    /**
     * A finished block, {@code contents[0..length)} (the array is the pipeline's from now on), and
     * the index key it is filed under.
     */
    void add(byte[] contents, int length, byte[] indexKey, Compression compression) {
        if (filling == null) {
            filling = new Batch(new Encode(compression));
        }
        filling.encode.add(contents, length, indexKey, compression == Compression.NONE ? null : spare());
        pendingBytes += length;
        if (filling.encode.count == BLOCKS_PER_BATCH) {
            handOver();
        }
    }

    private void handOver() {
        Batch b = filling;
        filling = null;
        pending.addLast(b);
        try {
            executor.execute(b);
        } catch (java.util.concurrent.RejectedExecutionException e) {
            // The pool is shut down (its resources were closed): the batch is encoded here instead.
            b.run();
        }
    }

    /**
     * Writes the batches at the head whose encoding is done, and more (encoding them here when no
     * thread has started them) until at most {@code keepAtMost} wait; indexes each block.
     */
    void write(WritableFile out, BlockBuilder index, int keepAtMost) throws IOException {
        while (!pending.isEmpty()) {
            Batch head = pending.peekFirst();
            if (!head.isDone()) {
                if (pending.size() <= keepAtMost) {
                    return;
                }
                head.run(); // a no-op when a pool thread runs it already; the await below then waits
            }
            Throwable failed = Futures.await(head);
            if (failed != null) {
                Futures.rethrow(failed, "block compression failed: " + failed);
            }
            Encode e = head.encode;
            for (int i = 0; i < e.count; i++) {
                BlockEncoder.Encoded r = e.results[i];
                BlockHandle h = BlockEncoder.writeEncoded(out, r);
                index.add(e.indexKeys[i], h.encode());
                pendingBytes -= e.lengths[i];
                // Written: the block's array and the compressed copy's (used or not) are spare now.
                keepSpare(e.contents[i]);
                if (e.scratch[i] != null) {
                    keepSpare(e.scratch[i]);
                }
            }
            pending.removeFirst();
        }
    }

    /** Writes every block waiting, the batch being filled too (before the table's tail, or a block copied whole). */
    void writeAll(WritableFile out, BlockBuilder index) throws IOException {
        if (filling != null) {
            handOver();
        }
        write(out, index, 0);
    }

    long pendingBytes() {
        return pendingBytes;
    }

    /** Drops the blocks waiting (the table is abandoned); running encodings finish on their own. */
    void cancel() {
        for (Batch b : pending) {
            b.cancel(false);
        }
        pending.clear();
        filling = null;
        pendingBytes = 0;
    }

    /** The encoding of a batch of blocks. */
    private static final class Encode implements Callable<Void> {
        private final Compression compression;
        final byte[][] contents = new byte[BLOCKS_PER_BATCH][];
        final int[] lengths = new int[BLOCKS_PER_BATCH];
        final byte[][] indexKeys = new byte[BLOCKS_PER_BATCH][];
        /** An array to compress each block into, or null (a new one is made if it is too small). */
        final byte[][] scratch = new byte[BLOCKS_PER_BATCH][];
        final BlockEncoder.Encoded[] results = new BlockEncoder.Encoded[BLOCKS_PER_BATCH];
        int count;

        Encode(Compression compression) {
            this.compression = compression;
        }

        void add(byte[] block, int length, byte[] indexKey, byte[] spare) {
            contents[count] = block;
            lengths[count] = length;
            indexKeys[count] = indexKey;
            scratch[count] = spare;
            count++;
        }

        @Override
        public Void call() {
            for (int i = 0; i < count; i++) {
                results[i] = BlockEncoder.encode(contents[i], lengths[i], compression, scratch[i]);
            }
            return null;
        }
    }

    /** A batch handed over: its encoding task, whose completion publishes the results. */
    private static final class Batch extends FutureTask<Void> {
        final Encode encode;

        Batch(Encode encode) {
            super(encode);
            this.encode = encode;
        }
    }
}
