package io.bloomstore.core.rangedel;

import java.util.Arrays;

/**
 * One range deletion as written: every key in [{@code start}, {@code end}) whose version is older
 * than {@code sequence} is deleted for readers at {@code sequence} or later. The sequence number is
 * the operation's own (one per operation, as for a put), so it names the tombstone uniquely; the
 * MANIFEST removes a tombstone by it ({@code docs/format/manifest.md}).
 *
 * <p>Thread safety: immutable (the key arrays must not be modified).
 */
public record RangeTombstone(byte[] start, byte[] end, long sequence) {

    public RangeTombstone {
        if (start == null || end == null || Arrays.compareUnsigned(start, end) >= 0) {
            throw new IllegalArgumentException("a range tombstone needs start < end");
        }
    }

    /** Whether [{@code start}, {@code end}) meets [{@code smallest}, {@code largest}] (both inclusive). */
    public boolean overlaps(byte[] smallest, byte[] largest) {
        return Arrays.compareUnsigned(start, largest) <= 0 && Arrays.compareUnsigned(smallest, end) < 0;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof RangeTombstone t && t.sequence == sequence && Arrays.equals(t.start, start)
                && Arrays.equals(t.end, end);
    }

    @Override
    public int hashCode() {
        return Long.hashCode(sequence);
    }

    @Override
    public String toString() {
        return "RangeTombstone[" + Arrays.toString(start) + ", " + Arrays.toString(end) + ")@" + sequence;
    }
}
