package io.bloomstore.core.memtable;

import io.bloomstore.core.internal.ValueType;
import java.util.Arrays;
import java.util.Comparator;

/**
 * A memtable key: user key, sequence number and type. Ordered as {@link
 * io.bloomstore.core.internal.InternalIterator} requires: user keys ascending as unsigned bytes,
 * then sequence numbers descending. The type does not take part in the order (sequence numbers
 * are unique).
 *
 * <p>Thread safety: immutable (the key array must not be modified).
 */
public record InternalKey(byte[] userKey, long sequence, ValueType type) {

    public static final Comparator<InternalKey> ORDER = (a, b) -> {
        int c = Arrays.compareUnsigned(a.userKey, b.userKey);
        return c != 0 ? c : Long.compare(b.sequence, a.sequence);
    };

    /** A probe that sorts before every entry of {@code userKey} with a sequence ≤ {@code sequence}. */
    static InternalKey probe(byte[] userKey, long sequence) {
        return new InternalKey(userKey, sequence, null);
    }
}
