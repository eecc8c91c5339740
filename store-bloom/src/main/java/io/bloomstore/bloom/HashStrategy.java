package io.bloomstore.bloom;

import net.openhft.hashing.LongHashFunction;

/**
 * How a key's bytes become the one 64-bit hash from which a filter derives its probes.
 *
 * <p>The {@link #id()} is written into filter files: never renumber a constant (a test pins
 * the ids). {@link #CUSTOM} marks filters built from caller-supplied hash functions; those
 * can be written but not reopened without the same functions.
 *
 * <p>Thread safety: immutable.
 */
public enum HashStrategy {
    /** Caller-supplied functions (see {@link BloomFilter#withHashFunctions}). */
    CUSTOM(0),
    /** XXH3 64-bit, seeded. The default. */
    XXH3_64(1),
    /** xxHash64, seeded. */
    XXH64(2);

    private final int id;

    HashStrategy(int id) {
        this.id = id;
    }

    public int id() {
        return id;
    }

    /** The hash function for a seed. */
    public LongHashFunction function(long seed) {
        switch (this) {
            case XXH3_64:
                return LongHashFunction.xx3(seed);
            case XXH64:
                return LongHashFunction.xx(seed);
            default:
                throw new IllegalStateException("no built-in hash function for " + this);
        }
    }

    public static HashStrategy byId(int id) {
        for (HashStrategy s : values()) {
            if (s.id == id) {
                return s;
            }
        }
        throw new IllegalArgumentException("unknown hash strategy id " + id);
    }
}
