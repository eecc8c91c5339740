package io.bloomstore.core.db;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/** Records of about 1 KiB for the write-path tests: 8-byte keys, values telling their key apart. */
final class KiBRecords {
    static final int VALUE_BYTES = 1024;

    private KiBRecords() {
    }

    static byte[] key(int i) {
        return ByteBuffer.allocate(8).putLong(i).array();
    }

    static byte[] value(int i) {
        byte[] v = new byte[VALUE_BYTES];
        Arrays.fill(v, (byte) i);
        v[0] = (byte) (i >>> 8);
        return v;
    }

    /** Waits up to a minute for {@code latch}: what a file-system hook holding a background thread back does. */
    static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await(60, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
