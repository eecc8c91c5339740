package io.bloomstore.core.wal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import io.bloomstore.core.WriteBatch;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** A single put or delete, encoded without a batch, is the record a one-operation batch makes. */
class BatchCodecTest {
    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] one(byte[] key, byte[] value, long sequence) {
        RecordBuffer out = new RecordBuffer(16);
        BatchCodec.encodeOne(key, value, sequence, out);
        return out.toByteArray();
    }

    @Test
    void aSinglePutIsTheRecordOfAOnePutBatch() {
        byte[] value = new byte[300];
        value[299] = 7;
        assertArrayEquals(BatchCodec.encode(new WriteBatch().put(bytes("key"), value), 1L << 40),
                one(bytes("key"), value, 1L << 40));
        assertArrayEquals(BatchCodec.encode(new WriteBatch().put(bytes("k"), new byte[0]), 5),
                one(bytes("k"), new byte[0], 5));
    }

    @Test
    void aSingleDeleteIsTheRecordOfAOneDeleteBatch() {
        assertArrayEquals(BatchCodec.encode(new WriteBatch().delete(bytes("gone")), 42), one(bytes("gone"), null, 42));
    }
}
