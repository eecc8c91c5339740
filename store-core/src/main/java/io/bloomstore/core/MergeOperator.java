package io.bloomstore.core;

import java.util.List;

/**
 * Combines a key's merge operands ({@link Store#merge}) with its existing value, as RocksDB's
 * {@code MergeOperator} does: a write that needs no read of the key (a counter's increment, an
 * append to a list). The store keeps the operands as they are written and combines them when the
 * key is read ({@link Store#get}, iterators) and when compaction meets them, so both methods must
 * be pure functions of their arguments, and the same at every open of the store.
 *
 * <p>Semantics (RocksDB's): the operands of a key combine with its newest value or tombstone
 * below them at the reader's snapshot; after a delete, or with no value at all, {@code existing}
 * is null. A {@link Store#put} replaces everything before it, operands included.
 *
 * <p>Thread safety: called from any reading or compacting thread at once; implementations must be
 * thread-safe (stateless ones are).
 */
public interface MergeOperator {

    /** A name for logs and errors, e.g. {@code "int64Add"}. */
    String name();

    /**
     * The key's value after applying {@code operands} to {@code existing}.
     *
     * @param key      the user key (do not modify)
     * @param existing the value below the operands, or null when there is none (absent or deleted)
     * @param operands the operands, oldest first (do not modify)
     * @return the merged value, never null
     * @throws IllegalArgumentException when an operand or the existing value cannot be merged; a
     *         read of the key then throws it, and compaction keeps the operands unmerged
     */
    byte[] fullMerge(byte[] key, byte[] existing, List<byte[]> operands);

    /**
     * One operand equivalent to {@code operands} (oldest first), or null when they cannot be
     * combined without the value below them. Compaction calls it to shrink a run of operands that
     * no snapshot separates. The default combines nothing.
     */
    default byte[] partialMerge(byte[] key, List<byte[]> operands) {
        return null;
    }

    /**
     * Checks an operand when it is written, so that a malformed one is refused by {@link Store#merge}
     * rather than found by a later read. The default accepts every operand.
     *
     * @throws IllegalArgumentException when the operand cannot be merged
     */
    default void checkOperand(byte[] key, byte[] operand) {
    }
}
