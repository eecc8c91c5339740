package io.bloomstore.core.wal;

import io.bloomstore.bloom.CorruptionException;
import io.bloomstore.core.Keyspace;
import io.bloomstore.core.WriteBatch;
import io.bloomstore.core.internal.ValueType;
import java.nio.file.Path;
import java.util.function.IntPredicate;

/**
 * Encodes a {@link WriteBatch} as one WAL record and decodes it again:
 * {@code sequence(fixed64) count(fixed32) (type(1) key(varint len + bytes) [value(varint len + bytes)])^count}
 * (type 0 a delete, 1 a put, 2 a merge operand, 3 a range deletion with key = from and value = to,
 * 4 a timed put whose value ends with its write time; with the flag 0x80 set, a varint keyspace
 * number follows the type byte: the operation is in that keyspace, not the default one), where operation {@code i} gets sequence
 * number {@code sequence + i}. Format: {@code docs/format/wal.md}.
 *
 * <p>Thread safety: stateless.
 */
public final class BatchCodec {

    /** Receives a decoded record's entries. */
    public interface EntryHandler {
        void entry(byte[] key, long sequence, ValueType type, byte[] value);

        /**
         * An entry of keyspace {@code keyspace} (0 for the default keyspace). By default, entries of
         * other keyspaces are passed over: a reader that knows only the default keyspace sees what
         * it knows; readers of every keyspace (recovery, a secondary's view) override this.
         */
        default void entry(int keyspace, byte[] key, long sequence, ValueType type, byte[] value) {
            if (keyspace == 0) {
                entry(key, sequence, type, value);
            }
        }
    }

    /** The flag on an operation's type byte that says a keyspace number (varint) follows it. */
    static final int KEYSPACE_FLAG = 0x80;

    private static final byte[] EMPTY = new byte[0];
    /** A seal record's size: sequence and a zero count. */
    private static final int SEAL_BYTES = 12;

    private BatchCodec() {
    }

    public static byte[] encode(WriteBatch batch, long firstSequence) {
        RecordBuffer out = new RecordBuffer((int) Math.min(Integer.MAX_VALUE - 64, batch.approximateBytes() + 16));
        encode(batch, firstSequence, -1, out);
        return out.toByteArray();
    }

    /**
     * Appends the record of {@code batch} to {@code out} (the write path reuses one buffer for every
     * batch); with {@code stamp} ≥ 0 (a store with a TTL) its puts are timed values written at
     * {@code stamp}.
     */
    public static void encode(WriteBatch batch, long firstSequence, long stamp, RecordBuffer out) {
        encode(batch, firstSequence, stamp, null, -1, out);
    }

    /**
     * As {@link #encode(WriteBatch, long, long, RecordBuffer)}, with the puts of a keyspace other
     * than the default one timed at {@code now} when {@code timedKeyspaces} holds for its number
     * (keyspaces have TTLs of their own); {@code timedKeyspaces} null when none has a TTL.
     */
    public static void encode(WriteBatch batch, long firstSequence, long stamp, IntPredicate timedKeyspaces,
                              long now, RecordBuffer out) {
        out.putFixed64(firstSequence).putFixed32(batch.count());
        batch.forEach(new WriteBatch.Handler() {
            private int keyspace;
            private long keyspaceStamp = stamp;

            @Override
            public void keyspace(Keyspace k) {
                keyspace = k == null ? 0 : k.id();
                keyspaceStamp = keyspace == 0 ? stamp
                        : timedKeyspaces != null && timedKeyspaces.test(keyspace) ? now : -1;
            }

            private RecordBuffer type(ValueType type) {
                if (keyspace == 0) {
                    return out.putByte(type.code());
                }
                return out.putByte(type.code() | KEYSPACE_FLAG).putVarint(keyspace);
            }

            @Override
            public void put(byte[] key, byte[] value) {
                if (keyspaceStamp >= 0) {
                    type(ValueType.TIMED_VALUE).putBytes(key).putStampedBytes(value, keyspaceStamp);
                } else {
                    type(ValueType.VALUE).putBytes(key).putBytes(value);
                }
            }

            @Override
            public void delete(byte[] key) {
                type(ValueType.DELETION).putBytes(key);
            }

            @Override
            public void merge(byte[] key, byte[] operand) {
                type(ValueType.MERGE).putBytes(key).putBytes(operand);
            }

            @Override
            public void deleteRange(byte[] from, byte[] to) {
                type(ValueType.RANGE_DELETION).putBytes(from).putBytes(to);
            }
        });
    }

    /**
     * Appends the record of a one-operation batch, a put of {@code key} and {@code value} or, with
     * {@code value} null, a delete of {@code key}: the same bytes {@link #encode(WriteBatch, long, long, RecordBuffer)}
     * writes for such a batch.
     */
    public static void encodeOne(byte[] key, byte[] value, long sequence, RecordBuffer out) {
        encodeOne(key, value == null ? ValueType.DELETION : ValueType.VALUE, value, sequence, -1, out);
    }

    /**
     * Appends the record of a one-operation batch of {@code type}: a put (a timed value written at
     * {@code stamp} when {@code stamp} ≥ 0), a merge of the operand {@code value}, or a delete.
     */
    public static void encodeOne(byte[] key, ValueType type, byte[] value, long sequence, long stamp, RecordBuffer out) {
        out.putFixed64(sequence).putFixed32(1);
        if (type == ValueType.DELETION) {
            out.putByte(ValueType.DELETION.code()).putBytes(key);
        } else if (type == ValueType.MERGE) {
            out.putByte(ValueType.MERGE.code()).putBytes(key).putBytes(value);
        } else if (stamp >= 0) {
            out.putByte(ValueType.TIMED_VALUE.code()).putBytes(key).putStampedBytes(value, stamp);
        } else {
            out.putByte(ValueType.VALUE.code()).putBytes(key).putBytes(value);
        }
    }

    /**
     * Appends a seal record: a batch of no operations at {@code sequence}, which takes no sequence
     * number (the next batch starts at {@code sequence} too). Written into a WAL segment once every
     * older segment is synced: recovery reads a torn tail in an older segment as damage only when a
     * later segment holds one ({@code docs/format/wal.md}, "Sealing").
     */
    public static void encodeSeal(long sequence, RecordBuffer out) {
        out.putFixed64(sequence).putFixed32(0);
    }

    /** Whether a record (already read whole, CRCs checked) is a seal record: a batch of no operations. */
    public static boolean isSeal(byte[] record) {
        return record.length == SEAL_BYTES && record[8] == 0 && record[9] == 0 && record[10] == 0 && record[11] == 0;
    }

    /**
     * Decodes one record, calling the handler per entry; returns the sequence number of its last
     * entry (or {@code first - 1} for an empty batch).
     */
    public static long decode(byte[] record, Path file, long recordOffset, EntryHandler handler)
            throws CorruptionException {
        RecordParser in = new RecordParser(record, file, recordOffset);
        long sequence = in.getFixed64();
        int count = in.getFixed32();
        if (count < 0) {
            throw in.corrupt("negative operation count " + count);
        }
        for (int i = 0; i < count; i++) {
            int code = in.getByte() & 0xff;
            int keyspace = 0;
            if ((code & KEYSPACE_FLAG) != 0) {
                code &= ~KEYSPACE_FLAG;
                long id = in.getVarint();
                if (id == 0 || id > Integer.MAX_VALUE) {
                    throw in.corrupt("operation in keyspace number " + id);
                }
                keyspace = (int) id;
            }
            byte[] key = in.getBytes();
            if (code == ValueType.VALUE.code()) {
                handler.entry(keyspace, key, sequence + i, ValueType.VALUE, in.getBytes());
            } else if (code == ValueType.DELETION.code()) {
                handler.entry(keyspace, key, sequence + i, ValueType.DELETION, EMPTY);
            } else if (code == ValueType.MERGE.code()) {
                handler.entry(keyspace, key, sequence + i, ValueType.MERGE, in.getBytes());
            } else if (code == ValueType.TIMED_VALUE.code()) {
                byte[] value = in.getBytes();
                if (value.length < 8) {
                    throw in.corrupt("a timed value of " + value.length + " bytes holds no write time");
                }
                handler.entry(keyspace, key, sequence + i, ValueType.TIMED_VALUE, value);
            } else if (code == ValueType.RANGE_DELETION.code()) {
                byte[] end = in.getBytes();
                if (java.util.Arrays.compareUnsigned(key, end) >= 0) {
                    throw in.corrupt("range deletion whose start is not below its end");
                }
                handler.entry(keyspace, key, sequence + i, ValueType.RANGE_DELETION, end);
            } else {
                throw in.corrupt("unknown operation type " + code);
            }
        }
        if (in.hasRemaining()) {
            throw in.corrupt("bytes after the last of " + count + " operations");
        }
        return sequence + count - 1;
    }
}
