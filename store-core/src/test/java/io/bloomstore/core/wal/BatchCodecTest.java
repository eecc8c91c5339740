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

    @Test
    void mergeAndTimedPutBytesArePinned() {
        byte[] merge = BatchCodec.encode(new WriteBatch().merge(bytes("c"), new byte[] {0, 0, 0, 0, 0, 0, 0, 5}), 7);
        assertArrayEquals(new byte[] {7, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 2, 1, 'c', 8, 0, 0, 0, 0, 0, 0, 0, 5}, merge);
        RecordBuffer out = new RecordBuffer(16);
        BatchCodec.encode(new WriteBatch().put(bytes("k"), bytes("v")).delete(bytes("d")), 9, 0x0102030405060708L, out);
        assertArrayEquals(new byte[] {9, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0,
            4, 1, 'k', 9, 'v', 1, 2, 3, 4, 5, 6, 7, 8,
            0, 1, 'd'}, out.toByteArray());
        RecordBuffer one = new RecordBuffer(16);
        BatchCodec.encodeOne(bytes("k"), io.bloomstore.core.internal.ValueType.VALUE, bytes("v"), 9, 0x0102030405060708L, one);
        byte[] batch = BatchCodec.encode(new WriteBatch().put(bytes("k"), bytes("v")), 9);
        // The same put without a stamp is type 1 and 8 bytes shorter.
        assertArrayEquals(new byte[] {9, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1, 1, 'k', 1, 'v'}, batch);
        assertArrayEquals(new byte[] {9, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 4, 1, 'k', 9, 'v', 1, 2, 3, 4, 5, 6, 7, 8},
                one.toByteArray());
    }
}
