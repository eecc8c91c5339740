package io.bloomstore.core.memtable;

import io.bloomstore.core.internal.ValueType;

/**
 * A memtable entry's key as {@link MemTable#get} reports it: user key, sequence number and type.
 *
 * <p>Thread safety: immutable (the key array must not be modified).
 */
public record InternalKey(byte[] userKey, long sequence, ValueType type) {
}
