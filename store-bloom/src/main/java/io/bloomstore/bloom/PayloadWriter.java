package io.bloomstore.bloom;

import java.io.IOException;

import io.bloomstore.bloom.storage.BitStore;

/**
 * Receives a filter's payload as {@link FilterFile} writes it: little-endian 64-bit words
 * and raw bytes, in order.
 */
public interface PayloadWriter {

    void writeLong(long value) throws IOException;

    void writeBytes(byte[] bytes, int offset, int length) throws IOException;

    /** Writes every word of {@code words}, in order: the whole payload of most kinds. */
    default void writeWords(BitStore words) throws IOException {
        for (long w = 0, n = words.wordCount(); w < n; w++) {
            writeLong(words.getWord(w));
        }
    }
}
