package io.bloomstore.cli.stress;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * Keys and values of {@code bloomstore stress}. A key is {@code key} and eight digits; key
 * {@code k} belongs to writer thread {@code k mod threads}, so each key's writes are ordered by one
 * thread. A value names the write that made it — {@code c<cycle>.t<thread>.o<op>.k<key>|} — and
 * is followed by filler bytes derived from that name, so whoever reads it can rebuild the exact
 * bytes: a value that does not parse, or whose bytes differ from the rebuilt ones, is torn or a
 * phantom.
 *
 * <p>Thread safety: stateless.
 */
final class StressValues {
    private static final int KEY_DIGITS = 8;

    /** The write a value names. */
    record ValueId(int cycle, int thread, long op, int key, int fillerLength) {
        @Override
        public String toString() {
            return "c" + cycle + ".t" + thread + ".o" + op + ".k" + key + "+" + fillerLength;
        }
    }

    private StressValues() {
    }

    static byte[] key(int k) {
        return String.format("key%0" + KEY_DIGITS + "d", k).getBytes(StandardCharsets.US_ASCII);
    }

    /** The number of a stress key, or -1 when {@code key} is not one. */
    static int keyIndex(byte[] key) {
        if (key.length != 3 + KEY_DIGITS || key[0] != 'k' || key[1] != 'e' || key[2] != 'y') {
            return -1;
        }
        int k = 0;
        for (int i = 3; i < key.length; i++) {
            if (key[i] < '0' || key[i] > '9') {
                return -1;
            }
            k = k * 10 + (key[i] - '0');
        }
        return k;
    }

    static byte[] value(ValueId id) {
        byte[] header = ("c" + id.cycle() + ".t" + id.thread() + ".o" + id.op() + ".k" + id.key() + "|")
                .getBytes(StandardCharsets.US_ASCII);
        byte[] v = Arrays.copyOf(header, header.length + id.fillerLength());
        SplittableRandom filler = new SplittableRandom(seed(id));
        for (int i = header.length; i < v.length; i++) {
            v[i] = (byte) ('a' + filler.nextInt(26));
        }
        return v;
    }

    private static long seed(ValueId id) {
        long h = id.cycle() * 0x9E3779B97F4A7C15L;
        h = (h ^ id.thread()) * 0xBF58476D1CE4E5B9L;
        h = (h ^ id.op()) * 0x94D049BB133111EBL;
        return h ^ id.key();
    }

    /** The write {@code value} names when its bytes are exactly that write's, else null (torn or phantom). */
    static ValueId parse(byte[] value) {
        int bar = -1;
        for (int i = 0; i < Math.min(value.length, 80); i++) {
            if (value[i] == '|') {
                bar = i;
                break;
            }
        }
        if (bar < 0) {
            return null;
        }
        String[] parts = new String(value, 0, bar, StandardCharsets.US_ASCII).split("\\.");
        if (parts.length != 4 || !parts[0].startsWith("c") || !parts[1].startsWith("t") || !parts[2].startsWith("o")
                || !parts[3].startsWith("k")) {
            return null;
        }
        ValueId id;
        try {
            id = new ValueId(Integer.parseInt(parts[0].substring(1)), Integer.parseInt(parts[1].substring(1)),
                    Long.parseLong(parts[2].substring(1)), Integer.parseInt(parts[3].substring(1)),
                    value.length - bar - 1);
        } catch (NumberFormatException e) {
            return null;
        }
        return Arrays.equals(value, value(id)) ? id : null;
    }
}
