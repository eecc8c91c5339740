package io.bloomstore.core.table;

import io.bloomstore.bloom.CorruptionException;

/**
 * What a point lookup needs of a table's index: the block that may hold a key, and where each
 * block is. Two forms answer it: the decoded, off-heap {@link TableIndex}, and the index block
 * searched where it lies ({@link InPlaceIndex}) for a table's first few lookups.
 *
 * <p>Thread safety: implementations are safe for concurrent reads.
 */
interface IndexView {
    /** The number of data blocks. */
    int blockCount();

    /** The first block whose last key is ≥ {@code target}, or {@link #blockCount()} when none is. */
    int findBlock(byte[] target) throws CorruptionException;

    /** Where block {@code block} lies in the table file. */
    BlockHandle handle(int block) throws CorruptionException;
}
