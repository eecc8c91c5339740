package io.bloomstore.core.keyspace;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bloomstore.core.Keyspace;
import io.bloomstore.core.Store;
import io.bloomstore.core.StoreIterator;
import io.bloomstore.core.StoreOptions;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Readers of a keyspace while it is dropped (200 rounds, three threads each: point lookups,
 * whole scans, statistics): each read either completes or throws the dropped keyspace's error, and
 * every reader ends. A lookup that found the keyspace live when called and its view let go by the
 * drop once spun for ever, at full speed, retrying to take a view no one would replace (round 1
 * of the first run).
 */
class KeyspaceDropReadersTest {
    @TempDir
    Path dir;

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void readersOfAKeyspaceBeingDroppedEndWithTheDroppedError() throws Exception {
        StoreOptions options = StoreOptions.builder().memtableBytes(16 * 1024).build();
        try (Store store = Store.open(dir, options)) {
            for (int round = 0; round < 200; round++) {
                String name = "t" + round;
                Keyspace t = store.keyspace(name);
                for (int i = 0; i < 50; i++) {
                    store.put(t, b("k" + i), b("v" + i));
                }
                ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
                List<Thread> readers = new ArrayList<>();
                for (int r = 0; r < 3; r++) {
                    int kind = r;
                    Thread reader = new Thread(() -> {
                        while (true) {
                            try {
                                if (kind == 0) {
                                    store.get(t, b("k1"));
                                } else if (kind == 1) {
                                    try (StoreIterator it = store.iterator(t, null, null)) {
                                        while (it.hasNext()) {
                                            it.next();
                                        }
                                    }
                                } else {
                                    store.stats(t);
                                }
                            } catch (IllegalStateException e) {
                                if (!e.getMessage().matches("keyspace .* was dropped")) {
                                    failures.add(e);
                                }
                                return;
                            } catch (Throwable e) {
                                failures.add(e);
                                return;
                            }
                        }
                    }, "reader-" + r);
                    reader.setDaemon(true);
                    readers.add(reader);
                    reader.start();
                }
                Thread.sleep(1);
                store.dropKeyspace(name);
                for (Thread reader : readers) {
                    reader.join(TimeUnit.SECONDS.toMillis(10));
                    assertTrue(!reader.isAlive(), "round " + round + ": " + reader.getName()
                            + " still running 10 s after the drop: " + java.util.Arrays.toString(reader.getStackTrace()));
                }
                assertTrue(failures.isEmpty(), "round " + round + ": " + failures);
            }
        }
    }
}
