package io.bloomstore.core.reliability.fuzz;

import java.util.Arrays;
import java.util.Random;

/**
 * A seeded, structure-blind mutator in the manner of libFuzzer's: one to four stacked edits of a
 * seed file — a flipped bit, a random or "interesting" byte or integer (0, -1, the extremes of
 * each width: the values that break length and count fields), a zeroed, random or copied range,
 * an inserted or deleted range, a truncation, appended bytes. The same seed gives the same
 * sequence of inputs, so a failing case is replayed by its seed and case number.
 *
 * <p>Thread safety: not thread-safe; one per fuzzing thread.
 */
final class Mutator {
    private static final long[] INTERESTING = {0, 1, -1, 0x7F, 0x80, 0xFF, 0x7FFF, 0x8000, 0xFFFF, 0x7FFF_FFFFL,
        0x8000_0000L, 0xFFFF_FFFFL, Long.MAX_VALUE, Long.MIN_VALUE, 64, 4096, 1 << 20};

    private final Random random;

    Mutator(long seed) {
        this.random = new Random(seed);
    }

    byte[] mutate(byte[] seed) {
        byte[] b = seed.clone();
        int edits = 1 + random.nextInt(4);
        for (int i = 0; i < edits; i++) {
            b = edit(b);
        }
        return b;
    }

    private byte[] edit(byte[] b) {
        int n = b.length;
        if (n == 0) {
            return randomBytes(1 + random.nextInt(64));
        }
        int at = random.nextInt(n);
        switch (random.nextInt(11)) {
            case 0 -> b[at] ^= (byte) (1 << random.nextInt(8));
            case 1 -> b[at] = (byte) random.nextInt(256);
            case 2 -> putInteresting(b, at);
            case 3 -> Arrays.fill(b, at, Math.min(n, at + 1 + random.nextInt(64)), (byte) 0);
            case 4 -> {
                byte[] r = randomBytes(1 + random.nextInt(32));
                System.arraycopy(r, 0, b, at, Math.min(r.length, n - at));
            }
            case 5 -> {
                int len = 1 + random.nextInt(Math.min(n, 256));
                int from = random.nextInt(n - len + 1);
                System.arraycopy(b, from, b, Math.min(at, n - len), len);
            }
            case 6 -> {
                return Arrays.copyOf(b, at);
            }
            case 7 -> {
                byte[] tail = randomBytes(1 + random.nextInt(128));
                byte[] out = Arrays.copyOf(b, n + tail.length);
                System.arraycopy(tail, 0, out, n, tail.length);
                return out;
            }
            case 8 -> {
                int len = 1 + random.nextInt(16);
                byte[] out = new byte[n + len];
                System.arraycopy(b, 0, out, 0, at);
                System.arraycopy(randomBytes(len), 0, out, at, len);
                System.arraycopy(b, at, out, at + len, n - at);
                return out;
            }
            case 9 -> {
                int len = Math.min(n - at, 1 + random.nextInt(16));
                byte[] out = new byte[n - len];
                System.arraycopy(b, 0, out, 0, at);
                System.arraycopy(b, at + len, out, at, n - at - len);
                return out;
            }
            default -> {
                // Near the end: footers, trailers and checksums live there.
                int back = Math.min(n, 1 + random.nextInt(96));
                b[n - back] = (byte) random.nextInt(256);
            }
        }
        return b;
    }

    private void putInteresting(byte[] b, int at) {
        long v = INTERESTING[random.nextInt(INTERESTING.length)];
        if (random.nextBoolean()) {
            v = -v;
        }
        int width = 1 << random.nextInt(4);
        boolean little = random.nextBoolean();
        for (int i = 0; i < width && at + i < b.length; i++) {
            int shift = 8 * (little ? i : width - 1 - i);
            b[at + i] = (byte) (v >>> shift);
        }
    }

    private byte[] randomBytes(int n) {
        byte[] r = new byte[n];
        random.nextBytes(r);
        return r;
    }
}
