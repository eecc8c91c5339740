package io.bloomstore.core.table;

import io.bloomstore.core.internal.ValueType;

/**
 * The newest entry a table holds for a user key at a snapshot: a value or a tombstone.
 *
 * <p>Thread safety: immutable (the value array must not be modified).
 *
 * @param type     {@link ValueType#VALUE} or {@link ValueType#DELETION}
 * @param sequence the entry's sequence number
 * @param value    the value; empty for a deletion
 */
public record TableLookup(ValueType type, long sequence, byte[] value) {
}
