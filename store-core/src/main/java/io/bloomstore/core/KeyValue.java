package io.bloomstore.core;

/**
 * One key and its value, as returned by a {@link StoreIterator}. Equality of records compares
 * the arrays by reference; compare contents with {@link java.util.Arrays#equals}.
 *
 * <p>Thread safety: immutable (the arrays are the caller's own copies).
 */
public record KeyValue(byte[] key, byte[] value) {
}
