package io.bloomstore.core.keyspace;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bloomstore.bloom.storage.MappedBitStore;
import io.bloomstore.core.Keyspace;
import io.bloomstore.core.Store;
import io.bloomstore.core.StoreOptions;
import io.bloomstore.core.TableWriter;
import io.bloomstore.core.fs.FaultInjectionFileSystem;
import io.bloomstore.core.fs.LocalFileSystem;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An ingest into a keyspace that is dropped while the ingest stages its tables (held here at
 * its read of the staged table): the ingest is refused with the dropped keyspace's error, its
 * staged files are deleted, and the store goes on taking writes. It once logged its edit anyway;
 * the MANIFEST refused an edit of a keyspace that no longer exists, and the whole store turned
 * read-only until a reopen.
 */
class KeyspaceDropIngestTest {
    @TempDir
    Path tmp;

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void anIngestIntoAKeyspaceDroppedMeanwhileIsRefusedAndTheStoreGoesOn() throws Exception {
        Path table = tmp.resolve("t.sst");
        try (TableWriter w = TableWriter.create(table)) {
            for (int i = 0; i < 100; i++) {
                w.put(b(String.format("i%03d", i)), b("v" + i));
            }
            w.finish();
        }
        Path dir = tmp.resolve("store");
        FaultInjectionFileSystem fs = new FaultInjectionFileSystem(LocalFileSystem.INSTANCE, 1);
        CountDownLatch staging = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        fs.beforeRead(p -> {
            if (Thread.currentThread().getName().equals("ingester") && p.startsWith(dir)
                    && p.toString().endsWith(".sst")) {
                staging.countDown();
                try {
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        });
        long mappingsBefore = MappedBitStore.openMappings();
        StoreOptions options = StoreOptions.builder().build();
        Store store = Store.open(fs, dir, options);
        Keyspace bulk = store.keyspace("bulk");
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread ingester = new Thread(() -> {
            try {
                store.ingest(bulk, List.of(table));
            } catch (Throwable e) {
                failure.set(e);
            }
        }, "ingester");
        ingester.start();
        assertTrue(staging.await(30, TimeUnit.SECONDS), "the ingest is staging its table");
        store.dropKeyspace("bulk");
        release.countDown();
        ingester.join(TimeUnit.SECONDS.toMillis(30));

        Throwable refused = failure.get();
        assertTrue(refused instanceof IllegalStateException && refused.getMessage().matches("keyspace bulk .* was dropped"),
                "the ingest is refused with the dropped keyspace's error: " + refused);
        store.put(b("after"), b("the refused ingest"));
        assertEquals(List.of("default"), store.keyspaces());
        store.close();
        assertEquals(mappingsBefore, MappedBitStore.openMappings(), "every filter unmapped once the store is closed");
        try (Stream<Path> files = Files.list(dir)) {
            assertEquals(List.of(), files.filter(p -> p.toString().endsWith(".sst")).toList(),
                    "the staged table is deleted");
        }
        assertTrue(Files.exists(table), "the source table is left alone");
        try (Store reopened = Store.open(dir, options)) {
            assertEquals(List.of("default"), reopened.keyspaces());
            assertArrayEquals(b("the refused ingest"), reopened.get(b("after")));
        }
    }
}
