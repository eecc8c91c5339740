package io.bloomstore.core;

/**
 * A rule compaction applies to values, as RocksDB's {@code CompactionFilter}: keep a value, remove
 * it, or replace it. Set with {@link StoreOptions.Builder#compactionFilter}.
 *
 * <p>When it runs: on the newest value of each key that compaction rewrites, and only when no
 * open {@link Snapshot} can see that value (a snapshot's reads never change under it). A removed
 * value becomes a tombstone at the value's sequence number (so older versions of the key stay
 * hidden), which the bottom level then drops; a replaced value keeps its sequence number. Flushes
 * do not filter, and neither do reads: until compaction reaches a key, reads return its value as
 * written. Merge operands are not filtered (their merged result is, once compaction has merged
 * it into a value).
 *
 * <p>Thread safety: called from every compaction thread at once; implementations must be
 * thread-safe.
 */
public interface CompactionFilter {

    /**
     * What to do with one value.
     *
     * @param level the level the compaction writes to
     * @param key   the user key (do not modify)
     * @param value the value (do not modify)
     */
    Decision filter(int level, byte[] key, byte[] value);

    /** A filter's answer for one value. */
    final class Decision {
        /** Keep the value as it is. */
        public static final Decision KEEP = new Decision(null);
        /** Remove the value: the key reads as deleted. */
        public static final Decision REMOVE = new Decision(null);

        private final byte[] newValue;

        private Decision(byte[] newValue) {
            this.newValue = newValue;
        }

        /** Replace the value with {@code value}. */
        public static Decision change(byte[] value) {
            if (value == null) {
                throw new IllegalArgumentException("a changed value must not be null (use REMOVE)");
            }
            return new Decision(value.clone());
        }

        /** The replacement value of a {@link #change}, else null. */
        public byte[] newValue() {
            return newValue == null ? null : newValue.clone();
        }
    }
}
