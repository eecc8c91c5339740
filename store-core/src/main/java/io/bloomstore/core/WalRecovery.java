package io.bloomstore.core;

/**
 * What opening a store does with damage in the write-ahead log segments it replays (RocksDB's
 * {@code WALRecoveryMode}). Rules: {@code docs/format/wal.md}, "Recovery rules".
 *
 * <p>Thread safety: immutable.
 */
public enum WalRecovery {
    /**
     * The default: only a torn final record of the newest segment holding records (what a crash
     * during a write leaves) is dropped. Any other damage, and any gap in sequence numbers between
     * consecutive records or segments, is a {@link io.bloomstore.bloom.CorruptionException} naming
     * the file and offset, and the store does not open: no acknowledged write is dropped silently.
     */
    TOLERATE_TORN_TAIL,
    /**
     * RocksDB's kPointInTimeRecovery: opens with every write before the first damage or gap and
     * nothing after it (later segments included), so the store holds a consistent prefix of its
     * history. What was dropped (file, offset, sequence range) is logged at WARN and reported in
     * {@link StoreStats.Health#walRecoveryDropped()}; the dropped segments are deleted once the
     * recovered prefix is flushed.
     */
    POINT_IN_TIME
}
