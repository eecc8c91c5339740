package io.bloomstore.bloom;

import java.io.IOException;

import io.bloomstore.bloom.storage.BitStore;

/**
 * A filter file's payload as {@link FilterFile} hands it to a filter being opened: regions
 * of it can be mapped (off-heap, nothing copied) as {@link BitStore}s, and small fields read.
 * Offsets are relative to the payload's start.
 */
public interface FilterPayload {

    long length();

    /** Maps {@code wordCount} words at {@code offset} (8-byte aligned). */
    BitStore words(long offset, long wordCount) throws IOException;

    /** Reads one little-endian long at {@code offset}. */
    long readLong(long offset) throws IOException;
}
