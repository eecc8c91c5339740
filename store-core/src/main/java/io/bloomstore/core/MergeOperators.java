package io.bloomstore.core;

import java.util.Arrays;
import java.util.List;

/**
 * The built-in {@link MergeOperator}s.
 *
 * <p>Thread safety: the operators are stateless.
 */
public final class MergeOperators {
    private MergeOperators() {
    }

    /**
     * Signed 64-bit counters: every operand and value is 8 bytes, big-endian (so counters sort as
     * unsigned bytes only when non-negative); a missing value counts as 0; sums wrap on overflow
     * (two's complement, as Java's {@code long}). An operand of another length is refused by
     * {@link Store#merge}; an existing value of another length makes the read fail with an
     * {@link IllegalArgumentException} naming the key's length.
     */
    public static MergeOperator int64Add() {
        return Int64Add.INSTANCE;
    }

    /**
     * Appends each operand to the value with {@code separator} between them (none before the first
     * when there is no value): RocksDB's {@code StringAppendOperator}.
     */
    public static MergeOperator append(byte[] separator) {
        if (separator == null) {
            throw new IllegalArgumentException("separator must not be null (use an empty array for none)");
        }
        return new Append(separator.clone());
    }

    /** The 8 big-endian bytes of {@code v}: an {@link #int64Add()} operand or value. */
    public static byte[] int64(long v) {
        byte[] b = new byte[8];
        for (int i = 0; i < 8; i++) {
            b[i] = (byte) (v >>> (56 - 8 * i));
        }
        return b;
    }

    /** The number an {@link #int64Add()} value holds. */
    public static long int64(byte[] b) {
        if (b == null || b.length != 8) {
            throw new IllegalArgumentException("an int64 value is 8 bytes, not " + (b == null ? "null" : b.length));
        }
        long v = 0;
        for (int i = 0; i < 8; i++) {
            v = (v << 8) | (b[i] & 0xFF);
        }
        return v;
    }

    private static final class Int64Add implements MergeOperator {
        static final Int64Add INSTANCE = new Int64Add();

        @Override
        public String name() {
            return "int64Add";
        }

        @Override
        public byte[] fullMerge(byte[] key, byte[] existing, List<byte[]> operands) {
            long sum = existing == null ? 0 : value(existing, "existing value");
            for (byte[] op : operands) {
                sum += value(op, "operand");
            }
            return int64(sum);
        }

        @Override
        public byte[] partialMerge(byte[] key, List<byte[]> operands) {
            return fullMerge(key, null, operands);
        }

        @Override
        public void checkOperand(byte[] key, byte[] operand) {
            value(operand, "operand");
        }

        private static long value(byte[] b, String what) {
            if (b.length != 8) {
                throw new IllegalArgumentException("int64Add: the " + what + " is " + b.length
                        + " bytes, not 8 (a big-endian long: MergeOperators.int64(long))");
            }
            return int64(b);
        }

        @Override
        public String toString() {
            return name();
        }
    }

    private static final class Append implements MergeOperator {
        private final byte[] separator;

        Append(byte[] separator) {
            this.separator = separator;
        }

        @Override
        public String name() {
            return "append";
        }

        @Override
        public byte[] fullMerge(byte[] key, byte[] existing, List<byte[]> operands) {
            int n = existing == null ? 0 : existing.length + separator.length;
            for (byte[] op : operands) {
                n += op.length + separator.length;
            }
            n -= separator.length;
            byte[] out = new byte[Math.max(n, 0)];
            int at = 0;
            if (existing != null) {
                System.arraycopy(existing, 0, out, 0, existing.length);
                at = existing.length;
            }
            boolean first = existing == null;
            for (byte[] op : operands) {
                if (!first) {
                    System.arraycopy(separator, 0, out, at, separator.length);
                    at += separator.length;
                }
                first = false;
                System.arraycopy(op, 0, out, at, op.length);
                at += op.length;
            }
            return out;
        }

        @Override
        public byte[] partialMerge(byte[] key, List<byte[]> operands) {
            return fullMerge(key, null, operands);
        }

        @Override
        public String toString() {
            return "append(" + Arrays.toString(separator) + ")";
        }
    }
}
