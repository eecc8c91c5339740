package io.bloomstore.core.manifest;

import java.util.Arrays;

/**
 * What the manifest records about one live SSTable: its number (naming {@code NNNNNN.sst} and
 * {@code NNNNNN.filter}), the sizes of both files, its user-key range (so reads skip tables whose
 * range excludes the key), entry count and sequence range.
 *
 * <p>Thread safety: immutable (the key arrays must not be modified).
 */
public record FileMetaData(long fileNumber, long fileSize, long filterFileSize, byte[] smallestKey,
                           byte[] largestKey, long entries, long smallestSeq, long largestSeq) {

    /** Whether {@code userKey} lies within this table's key range. */
    public boolean covers(byte[] userKey) {
        return Arrays.compareUnsigned(userKey, smallestKey) >= 0 && Arrays.compareUnsigned(userKey, largestKey) <= 0;
    }

    /** Whether this table's range intersects [{@code from}, {@code to}); null bounds are open. */
    public boolean overlaps(byte[] from, byte[] to) {
        return (from == null || Arrays.compareUnsigned(largestKey, from) >= 0)
                && (to == null || Arrays.compareUnsigned(smallestKey, to) < 0);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof FileMetaData f && f.fileNumber == fileNumber && f.fileSize == fileSize
                && f.filterFileSize == filterFileSize && Arrays.equals(f.smallestKey, smallestKey)
                && Arrays.equals(f.largestKey, largestKey) && f.entries == entries
                && f.smallestSeq == smallestSeq && f.largestSeq == largestSeq;
    }

    @Override
    public int hashCode() {
        return Long.hashCode(fileNumber);
    }

    @Override
    public String toString() {
        return String.format("#%06d(%d bytes, %d entries, seq %d..%d)", fileNumber, fileSize, entries, smallestSeq,
                largestSeq);
    }
}
