package io.bloomstore.core;

/**
 * How a write is made durable, as RocksDB's {@code WriteOptions.sync}: with {@code sync} the WAL
 * is forced to the device before the write returns, so it survives a machine crash; without, it
 * survives a process crash (the operating system holds it) but a machine crash may lose the most
 * recent writes — never an older write while keeping a newer one.
 *
 * <p>Thread safety: immutable.
 */
public record WriteOptions(boolean sync) {
    public static final WriteOptions DEFAULT = new WriteOptions(false);
    public static final WriteOptions SYNC = new WriteOptions(true);
}
