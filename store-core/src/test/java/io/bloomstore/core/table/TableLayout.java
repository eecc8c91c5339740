package io.bloomstore.core.table;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

/**
 * Where a table's stored blocks lie, for tests that damage a block and then repair its CRC (the
 * fuzzer's checksum-fixing mode). Format: docs/format/sstable.md.
 *
 * <p>Thread safety: stateless.
 */
public final class TableLayout {
    private TableLayout() {
    }

    /**
     * Every stored block of the open table {@code t} whose file is {@code file}: its data blocks,
     * then the properties and index blocks, each as {offset, stored size (payload, type and CRC)}.
     */
    public static List<long[]> blocks(TableReader t, byte[] file) throws IOException {
        List<long[]> out = new ArrayList<>();
        TableIndex index = t.index();
        for (int b = 0; b < index.blockCount(); b++) {
            BlockHandle h = index.handle(b);
            out.add(new long[] {h.offset(), h.storedSize()});
        }
        ByteBuffer footer = ByteBuffer.wrap(file, file.length - Footer.BYTES, Footer.BYTES).slice()
                .order(ByteOrder.LITTLE_ENDIAN);
        out.add(new long[] {footer.getLong(16), new BlockHandle(footer.getLong(16), footer.getLong(24)).storedSize()});
        out.add(new long[] {footer.getLong(0), new BlockHandle(footer.getLong(0), footer.getLong(8)).storedSize()});
        return out;
    }
}
