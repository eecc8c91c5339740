package io.bloomstore.cli.bench;

import java.util.SplittableRandom;

/**
 * Values that compress to about half their size, as RocksDB's db_bench makes them: a 1 MiB
 * pool built from pieces in which a random printable half is repeated once, and each value
 * a slice of the pool at a random offset. Both engines thus compress (or not) the same bytes.
 *
 * <p>Thread safety: immutable after construction; {@link #fill} writes only into the caller's buffer.
 */
public final class ValueSource {
    private static final int POOL_BYTES = 1 << 20;
    private static final int PIECE = 100;

    private final byte[] pool;
    private final int valueSize;

    public ValueSource(int valueSize, long seed) {
        if (valueSize <= 0) {
            throw new IllegalArgumentException("value size must be positive: " + valueSize);
        }
        this.valueSize = valueSize;
        this.pool = new byte[Math.max(POOL_BYTES, 2 * valueSize)];
        SplittableRandom random = new SplittableRandom(seed);
        for (int start = 0; start < pool.length; start += PIECE) {
            int len = Math.min(PIECE, pool.length - start);
            int raw = Math.max(1, len / 2);
            for (int i = 0; i < len; i++) {
                pool[start + i] = i < raw ? (byte) (' ' + random.nextInt(95)) : pool[start + i - raw];
            }
        }
    }

    public byte[] newValueBuffer() {
        return new byte[valueSize];
    }

    /** Copies a value chosen by {@code random} into {@code out}. */
    public void fill(SplittableRandom random, byte[] out) {
        int offset = random.nextInt(pool.length - valueSize + 1);
        System.arraycopy(pool, offset, out, 0, valueSize);
    }
}
