package io.bloomstore.core.keyspace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.bloomstore.core.Keyspace;
import io.bloomstore.core.KeyspaceOptions;
import io.bloomstore.core.MergeOperators;
import io.bloomstore.core.Store;
import io.bloomstore.core.StoreOptions;
import io.bloomstore.core.WriteBatch;
import io.bloomstore.core.WriteOptions;
import io.bloomstore.core.fs.ForwardingFileSystem;
import io.bloomstore.core.fs.MemoryFileSystem;
import io.bloomstore.core.fs.WritableFile;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * One keyspace's flush lands and the other's fails, so the WAL segments stay for the second while
 * the first's tables hold the same records: a reopen must not replay the first keyspace's records
 * again. Before keyspaces recorded the segment they need (MANIFEST tag 14), a merge operand was
 * counted twice and a range tombstone made the reopen refuse the store ("adds range tombstone ...,
 * which is live already").
 */
class KeyspaceFlushedAloneTest {
    /** Fails every table file created once armed, after the first. */
    private static final class SecondTableFails extends ForwardingFileSystem {
        final AtomicInteger tables = new AtomicInteger(-1);

        SecondTableFails(MemoryFileSystem base) {
            super(base);
        }

        @Override
        public WritableFile create(Path path) throws IOException {
            if (path.getFileName().toString().endsWith(".sst") && tables.get() >= 0
                    && tables.incrementAndGet() > 1) {
                throw new IOException("injected: no room for " + path.getFileName());
            }
            return super.create(path);
        }
    }

    @Test
    void aReopenReplaysOnlyWhatEachKeyspaceLacks() throws Exception {
        MemoryFileSystem memory = new MemoryFileSystem();
        SecondTableFails fs = new SecondTableFails(memory);
        Path dir = Path.of("/alone/store");
        KeyspaceOptions counters = KeyspaceOptions.builder().mergeOperator(MergeOperators.int64Add()).build();
        StoreOptions options = StoreOptions.builder().keyspaceOptions("x", counters)
                .keyspaceOptions("y", counters).build();
        Store store = Store.open(fs, dir, options);
        Keyspace x = store.keyspace("x");
        Keyspace y = store.keyspace("y");
        store.write(new WriteBatch().put(x, b("gone"), b("1")).put(y, b("gone"), b("1")), WriteOptions.DEFAULT);
        store.write(new WriteBatch().merge(x, b("n"), MergeOperators.int64(1)).merge(y, b("n"), MergeOperators.int64(1))
                .deleteRange(x, b("a"), b("h")).deleteRange(y, b("a"), b("h")), WriteOptions.DEFAULT);
        fs.tables.set(0);
        // Both keyspaces' memtables switch; one flush writes its table, the other's fails.
        assertThrows(IOException.class, store::flush);
        try {
            store.close();
        } catch (IOException expected) {
            // the failed flush is the store's background error
        }
        fs.tables.set(-1);
        for (int round = 0; round < 2; round++) {
            try (Store reopened = Store.open(memory, dir, options)) {
                for (String name : new String[] {"x", "y"}) {
                    Keyspace k = reopened.keyspace(name);
                    assertEquals(1, MergeOperators.int64(reopened.get(k, b("n"))), name + ": the operand counted once");
                    assertNull(reopened.get(k, b("gone")), name + ": the range deletion holds");
                }
                reopened.flush();
            }
        }
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
