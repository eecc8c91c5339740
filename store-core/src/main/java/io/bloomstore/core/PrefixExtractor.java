package io.bloomstore.core;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Locale;

/**
 * Cuts a key's prefix for the prefix filters of {@link StoreOptions.Builder#prefixExtractor}:
 * every table then also holds a filter of its keys' distinct prefixes, and a scan whose keys all
 * share one prefix ({@link Store#prefixIterator}, or {@link Store#iterator} with such bounds) skips
 * every table whose prefix filter says that prefix is absent, before reading any of its blocks
 * (RocksDB's {@code prefix_extractor} with a prefix Bloom filter).
 *
 * <ul>
 *   <li>{@link #fixed(int) fixed(n)}: the first n bytes; a key shorter than n has no prefix (it is
 *       in no prefix filter, and no filtered scan can be asked for it, since such a scan's
 *       prefix has at least n bytes).
 *   <li>{@link #upTo(byte) upTo(d)}: the bytes up to and including the first d; a key without d
 *       is its own prefix.
 * </ul>
 *
 * <p>Each table records the {@link #descriptor()} of the extractor that built its prefix filter.
 * A store reopened with another extractor (or none) treats the tables written before as having
 * no prefix filter: their scans read them as before; compaction rewrites them with the new one.
 *
 * <p>Thread safety: immutable.
 */
public final class PrefixExtractor {
    private final boolean fixed;
    private final int length;
    private final byte delimiter;

    private PrefixExtractor(boolean fixed, int length, byte delimiter) {
        this.fixed = fixed;
        this.length = length;
        this.delimiter = delimiter;
    }

    /** The first {@code bytes} bytes of a key (1 to 255). */
    public static PrefixExtractor fixed(int bytes) {
        if (bytes < 1 || bytes > 255) {
            throw new IllegalArgumentException("fixed prefix length must be between 1 and 255: " + bytes);
        }
        return new PrefixExtractor(true, bytes, (byte) 0);
    }

    /** A key's bytes up to and including the first {@code delimiter}; the whole key when it has none. */
    public static PrefixExtractor upTo(byte delimiter) {
        return new PrefixExtractor(false, 0, delimiter);
    }

    /**
     * The extractor a {@link #descriptor()} names, or null when the descriptor is not one this
     * build writes (a table's filter then counts as absent, never as wrong).
     */
    public static PrefixExtractor fromDescriptor(byte[] descriptor) {
        String d = new String(descriptor, StandardCharsets.US_ASCII);
        try {
            if (d.startsWith("fixed:")) {
                return fixed(Integer.parseInt(d.substring(6)));
            }
            if (d.startsWith("upto:") && d.length() == 7) {
                return upTo((byte) Integer.parseInt(d.substring(5), 16));
            }
        } catch (IllegalArgumentException e) {
            return null;
        }
        return null;
    }

    /** The bytes recorded in each table's prefix filter section: {@code fixed:N} or {@code upto:HH}. */
    public byte[] descriptor() {
        return toString().getBytes(StandardCharsets.US_ASCII);
    }

    /** The length of {@code key}'s prefix, or -1 when the key has none (fixed, shorter key). */
    public int prefixLength(byte[] key) {
        if (fixed) {
            return key.length >= length ? length : -1;
        }
        for (int i = 0; i < key.length; i++) {
            if (key[i] == delimiter) {
                return i + 1;
            }
        }
        return key.length;
    }

    /**
     * The length L of the leading part of {@code p} such that every key starting with
     * {@code p[0..L)} has exactly that prefix, or -1 when there is none. So keys starting with p
     * all have prefix p[0..L); and keys in any range inside [p[0..L), successor of p[0..L)) do too.
     * For a delimiter, a p without it gives -1: the keys starting with p need not share a prefix.
     */
    public int determinedPrefixLength(byte[] p) {
        if (fixed) {
            return p.length >= length ? length : -1;
        }
        for (int i = 0; i < p.length; i++) {
            if (p[i] == delimiter) {
                return i + 1;
            }
        }
        return -1;
    }

    /**
     * The one prefix every key in [{@code from}, {@code to}) has, or null when the bounds do not
     * confine the range to one prefix (either may be null: open).
     */
    public byte[] sharedPrefix(byte[] from, byte[] to) {
        if (from == null) {
            return null;
        }
        int l = determinedPrefixLength(from);
        if (l < 0) {
            return null;
        }
        byte[] prefix = Arrays.copyOf(from, l);
        byte[] end = successor(prefix);
        if (end != null && (to == null || Arrays.compareUnsigned(to, end) > 0)) {
            return null;
        }
        return prefix;
    }

    /**
     * The smallest key greater than every key starting with {@code prefix} (the prefix with its
     * last byte below 0xFF incremented and the rest cut), or null when there is none (all 0xFF).
     */
    public static byte[] successor(byte[] prefix) {
        for (int i = prefix.length - 1; i >= 0; i--) {
            if (prefix[i] != (byte) 0xFF) {
                byte[] s = Arrays.copyOf(prefix, i + 1);
                s[i]++;
                return s;
            }
        }
        return null;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof PrefixExtractor e && e.fixed == fixed && e.length == length && e.delimiter == delimiter;
    }

    @Override
    public int hashCode() {
        return fixed ? length : 1000 + delimiter;
    }

    @Override
    public String toString() {
        return fixed ? "fixed:" + length : String.format(Locale.ROOT, "upto:%02x", delimiter & 0xFF);
    }
}
