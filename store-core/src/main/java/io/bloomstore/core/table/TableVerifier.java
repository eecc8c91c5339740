package io.bloomstore.core.table;

import java.io.IOException;
import java.util.Arrays;

import io.bloomstore.bloom.CorruptionException;
import io.bloomstore.core.io.CountingReader;

/**
 * Reads every data block of an open table past the block cache and checks what open did not:
 * each block's CRC and decoding, that keys increase strictly across the whole table, that each
 * block ends with its index key, that every value type is known and that the entry count, the
 * sequence range and the key range match the properties.
 *
 * <p>Thread safety: one verification per instance, on one thread.
 */
final class TableVerifier {
    private final TableReader table;
    private final CountingReader reader;
    private final TableProperties props;

    TableVerifier(TableReader table, CountingReader reader, TableProperties props) {
        this.table = table;
        this.reader = reader;
        this.props = props;
    }

    void verify() throws IOException {
        TableIndex index = table.index();
        byte[] previous = null;
        long entries = 0;
        long minSeq = Long.MAX_VALUE;
        long maxSeq = -1;
        for (int b = 0; b < index.blockCount(); b++) {
            BlockHandle h = index.handle(b);
            byte[] stored = reader.readUncounted(h.offset(), (int) h.storedSize());
            Block block = new Block(BlockCodec.decode(stored, reader.name(), h.offset()), reader.name(), h.offset());
            BlockIterator it = block.iterator();
            byte[] last = null;
            for (it.seekToFirst(); it.valid(); it.next()) {
                byte[] key = it.key();
                if (previous != null && InternalKeys.compare(previous, key) >= 0) {
                    throw corrupt(h, "keys out of order at entry " + entries);
                }
                long trailer = InternalKeys.trailer(key);
                table.typeOf(trailer, h.offset());
                minSeq = Math.min(minSeq, trailer >>> 8);
                maxSeq = Math.max(maxSeq, trailer >>> 8);
                if (entries == 0 && InternalKeys.compareUserKey(key, props.smallestUserKey()) != 0) {
                    throw corrupt(h, "first key differs from the properties' smallest key");
                }
                previous = key;
                last = key;
                entries++;
            }
            if (last == null || !Arrays.equals(last, index.lastKey(b))) {
                throw corrupt(h, "block does not end with its index key");
            }
        }
        if (entries != props.entries() || minSeq != props.smallestSeq() || maxSeq != props.largestSeq()) {
            throw new CorruptionException(reader.name(), 0, "blocks hold " + entries + " entries with sequences "
                    + minSeq + ".." + maxSeq + "; properties say " + props.entries() + " entries, "
                    + props.smallestSeq() + ".." + props.largestSeq());
        }
    }

    private CorruptionException corrupt(BlockHandle h, String what) {
        return new CorruptionException(reader.name(), h.offset(), what);
    }
}
