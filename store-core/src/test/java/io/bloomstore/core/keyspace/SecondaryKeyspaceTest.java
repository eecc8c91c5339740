package io.bloomstore.core.keyspace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bloomstore.core.Keyspace;
import io.bloomstore.core.ReadOptions;
import io.bloomstore.core.SecondaryStore;
import io.bloomstore.core.Snapshot;
import io.bloomstore.core.Store;
import io.bloomstore.core.StoreIterator;
import io.bloomstore.core.StoreOptions;
import io.bloomstore.core.WriteBatch;
import io.bloomstore.core.WriteOptions;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A secondary reads every keyspace of the primary, in tables and in the WAL, and follows it with
 * {@code catchUp()}: writes read on in the WAL, keyspaces created and dropped, snapshots across
 * keyspaces; it writes, creates and drops nothing.
 */
class SecondaryKeyspaceTest {
    @TempDir
    Path tmp;

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String s(byte[] v) {
        return v == null ? null : new String(v, StandardCharsets.UTF_8);
    }

    @Test
    void aSecondaryReadsAndFollowsEveryKeyspace() throws Exception {
        Path dir = tmp.resolve("primary");
        StoreOptions options = StoreOptions.builder().memtableBytes(64 * 1024).build();
        try (Store primary = Store.open(dir, options)) {
            Keyspace a = primary.keyspace("a");
            Keyspace drop = primary.keyspace("drop-me");
            for (int i = 0; i < 500; i++) {
                primary.write(new WriteBatch().put(a, b("k" + i), b("a" + i)).put(drop, b("k" + i), b("x"))
                        .put(b("k" + i), b("d" + i)), WriteOptions.DEFAULT);
            }
            primary.flush();
            primary.put(a, b("unflushed"), b("in the WAL"));
            try (SecondaryStore secondary = Store.openSecondary(dir, tmp.resolve("scratch"), options)) {
                assertEquals(List.of("default", "a", "drop-me"), secondary.keyspaces());
                Keyspace sa = secondary.keyspace("a");
                assertEquals("a7", s(secondary.get(sa, b("k7"))));
                assertEquals("d7", s(secondary.get(b("k7"))));
                assertEquals("in the WAL", s(secondary.get(sa, b("unflushed"))));
                assertEquals(501, count(secondary.iterator(sa, null, null)));
                assertThrows(IllegalArgumentException.class, () -> secondary.keyspace("missing"));
                assertThrows(IllegalStateException.class, () -> secondary.put(sa, b("k"), b("v")));
                assertThrows(IllegalStateException.class, () -> secondary.dropKeyspace("a"));

                // Read on in the WAL: writes to two keyspaces in one batch.
                Snapshot before = secondary.snapshot();
                primary.write(new WriteBatch().put(a, b("k7"), b("new")).put(b("k7"), b("new")), WriteOptions.DEFAULT);
                secondary.catchUp();
                assertEquals("new", s(secondary.get(sa, b("k7"))));
                assertEquals("new", s(secondary.get(b("k7"))));
                assertEquals("a7", s(secondary.get(sa, b("k7"), ReadOptions.at(before))), "a snapshot spans keyspaces");
                assertEquals("d7", s(secondary.get(b("k7"), ReadOptions.at(before))));
                before.close();

                // A keyspace made and one dropped by the primary.
                Keyspace c = primary.keyspace("c");
                primary.put(c, b("z"), b("zz"));
                Keyspace sd = secondary.keyspace("drop-me");
                primary.dropKeyspace("drop-me");
                secondary.catchUp();
                assertEquals(List.of("default", "a", "c"), secondary.keyspaces());
                assertEquals("zz", s(secondary.get(secondary.keyspace("c"), b("z"))));
                assertThrows(IllegalStateException.class, () -> secondary.get(sd, b("k1")));
                assertEquals("new", s(secondary.get(sa, b("k7"))), "a handle works across views");
                assertNull(secondary.get(sa, b("absent")));
                List<String> reversed = new ArrayList<>();
                try (StoreIterator it = secondary.reverseIterator(sa, b("k498"), b("k5"))) {
                    it.forEachRemaining(kv -> reversed.add(s(kv.key())));
                }
                assertEquals(List.of("k499", "k498"), reversed);
                assertTrue(secondary.stats(sa).totalFiles() >= 1);
            }
        }
    }

    private static int count(StoreIterator it) throws Exception {
        int n = 0;
        try (it) {
            while (it.hasNext()) {
                it.next();
                n++;
            }
        }
        return n;
    }
}
