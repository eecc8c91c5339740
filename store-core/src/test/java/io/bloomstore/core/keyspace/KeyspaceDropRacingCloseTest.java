package io.bloomstore.core.keyspace;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bloomstore.bloom.storage.MappedBitStore;
import io.bloomstore.core.Keyspace;
import io.bloomstore.core.Store;
import io.bloomstore.core.StoreOptions;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A keyspace dropped while another thread closes the store: the drop either happens or is refused
 * with the store's "is closed" error, and either way the close lets go of every table of the
 * keyspace (its filters unmapped) and loses none of its entries when the drop was refused.
 * A drop refused by the closing store once left its keyspace out of the store's list and so out
 * of the close: its last table stayed mapped, and its descriptor open, for the life of the process.
 */
class KeyspaceDropRacingCloseTest {
    private static final long SEED = Long.getLong("bloomstore.seed", System.nanoTime());
    private static final int ROUNDS = 150;
    private static final int KEYS = 300;

    @TempDir
    Path root;

    private static byte[] key(int i) {
        return String.format("k%05d", i).getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] value(int i) {
        byte[] v = new byte[64];
        v[0] = (byte) i;
        v[1] = (byte) (i >>> 8);
        return v;
    }

    @Test
    void aDropRacingCloseLeavesNothingMappedAndLosesNothing() throws Exception {
        System.out.println("KeyspaceDropRacingCloseTest seed " + SEED);
        Random random = new Random(SEED);
        StoreOptions options = StoreOptions.builder().memtableBytes(8 * 1024).blockSize(256).build();
        long mappingsBefore = MappedBitStore.openMappings();
        int refused = 0;
        for (int round = 0; round < ROUNDS; round++) {
            Path dir = root.resolve("s" + round);
            Store store = Store.open(dir, options);
            Keyspace t = store.keyspace("t");
            for (int i = 0; i < KEYS; i++) {
                store.put(t, key(i), value(i));
            }
            store.flush();
            AtomicReference<Throwable> dropFailure = new AtomicReference<>();
            CyclicBarrier start = new CyclicBarrier(2);
            int dropDelay = random.nextInt(200_000);
            Thread dropper = new Thread(() -> {
                try {
                    start.await();
                    spin(dropDelay);
                    store.dropKeyspace("t");
                } catch (Throwable e) {
                    dropFailure.set(e);
                }
            }, "dropper");
            dropper.start();
            start.await();
            spin(random.nextInt(200_000));
            store.close();
            dropper.join(TimeUnit.SECONDS.toMillis(30));
            assertTrue(!dropper.isAlive(), "the drop still runs after the close (seed " + SEED + ")");
            Throwable failure = dropFailure.get();
            if (failure != null) {
                if (!(failure instanceof IllegalStateException) || !failure.getMessage().matches("store .* is closed")) {
                    throw new AssertionError("the drop failed otherwise than with the closed error (seed " + SEED
                            + ")", failure);
                }
                refused++;
            }
            assertEquals(mappingsBefore, MappedBitStore.openMappings(), "round " + round + " (seed " + SEED
                    + "): every filter unmapped once the store is closed; mapped now: "
                    + MappedBitStore.openMappingPaths());
            try (Store reopened = Store.open(dir, options)) {
                List<String> names = reopened.keyspaces();
                if (failure != null && failure.getMessage().matches("store .* is closed") && names.contains("t")) {
                    Keyspace kept = reopened.keyspace("t");
                    for (int i = 0; i < KEYS; i++) {
                        assertArrayEquals(value(i), reopened.get(kept, key(i)), "round " + round + " key " + i);
                    }
                } else if (failure == null) {
                    assertEquals(List.of("default"), names, "round " + round + ": a drop that returned is durable");
                }
            }
        }
        System.out.println("KeyspaceDropRacingCloseTest: " + refused + " of " + ROUNDS + " drops refused by the close");
    }

    private static void spin(long nanos) {
        long until = System.nanoTime() + nanos;
        while (System.nanoTime() < until) {
            Thread.onSpinWait();
        }
    }
}
