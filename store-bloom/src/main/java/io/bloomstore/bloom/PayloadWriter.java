package io.bloomstore.bloom;

import java.io.IOException;

/**
 * Receives a filter's payload as {@link FilterFile} writes it: little-endian 64-bit words
 * and raw bytes, in order.
 */
public interface PayloadWriter {

    void writeLong(long value) throws IOException;

    void writeBytes(byte[] bytes, int offset, int length) throws IOException;
}
