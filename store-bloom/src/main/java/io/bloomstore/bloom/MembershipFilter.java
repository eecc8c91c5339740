package io.bloomstore.bloom;

import java.io.IOException;

/**
 * An approximate-membership filter: a set that answers "maybe present" or "definitely
 * absent". False positives are allowed at a bounded rate; a false negative (a key that was
 * added and is reported absent) is a bug, always.
 *
 * <p>Keys are byte arrays, hashed once by the filter's {@link HashStrategy} into a 64-bit
 * value; callers that already hold that hash (an SSTable checking several filters, say) use
 * {@link #addHash}/{@link #mightContainHash} and skip the rehash.
 *
 * <p>Thread safety: unless an implementation says otherwise, concurrent queries are safe,
 * and adds must be confined to one thread with no concurrent queries. {@link #close()}
 * releases off-heap memory or mappings; the filter must not be used afterwards.
 */
public interface MembershipFilter extends AutoCloseable {

    FilterKind kind();

    /** The filter's hash of a key, the value {@link #addHash} and {@link #mightContainHash} take. */
    long hash(byte[] key);

    /**
     * Records a key. Returns false only when the filter cannot take it (a full cuckoo
     * filter); the key is then not recorded and the caller must not rely on it.
     */
    default boolean add(byte[] key) {
        return addHash(hash(key));
    }

    /** False means the key was certainly never added. */
    default boolean mightContain(byte[] key) {
        return mightContainHash(hash(key));
    }

    boolean addHash(long hash);

    boolean mightContainHash(long hash);

    /** Number of keys added (as recorded; for merged filters an upper bound). */
    long count();

    /** Bits of storage the filter's payload occupies. */
    long bitSize();

    /** The false-positive rate the filter expects at its current count, from {@link BloomMath}. */
    double expectedFpp();

    /** Whether the filter's storage lives off the Java heap. */
    boolean isOffHeap();

    /** The header fields this filter is written with (docs/format/filter.md). */
    FilterHeader header();

    /** Writes the payload exactly as {@link FilterFile} lays it out after the header. */
    void writePayload(PayloadWriter out) throws IOException;

    @Override
    void close();
}
