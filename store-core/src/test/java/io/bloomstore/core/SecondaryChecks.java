package io.bloomstore.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;

/**
 * The history the secondary tests write and how they check a view of it: write {@code i} (from 0,
 * one writer) sets key {@code "k" + (i % keys)} to {@link #value(long)}, so the state after write
 * {@code c} is known for every {@code c}. A view is a consistent prefix when, with {@code c} the
 * newest write it shows, every key holds exactly what it held after write {@code c}: no hole, no
 * value the key never had, nothing from beyond {@code c}.
 *
 * <p>Thread safety: stateless.
 */
final class SecondaryChecks {
    private SecondaryChecks() {
    }

    static byte[] key(long i, int keys) {
        return ("k" + (i % keys)).getBytes(StandardCharsets.UTF_8);
    }

    /** Write {@code i}'s value: its number, then padding (so flushes and compactions come often). */
    static byte[] value(long i) {
        return (i + ":" + "x".repeat(100)).getBytes(StandardCharsets.UTF_8);
    }

    /**
     * Checks that {@code store}'s view is a consistent prefix holding at least writes
     * {@code 0..atLeast}; returns the newest write it shows (-1 when none).
     */
    static long checkPrefix(Store store, int keys, long atLeast) {
        Map<String, Long> seen = new HashMap<>();
        long newest = -1;
        try (StoreIterator it = store.iterator(null, null)) {
            while (it.hasNext()) {
                KeyValue kv = it.next();
                String v = new String(kv.value(), StandardCharsets.UTF_8);
                long i = Long.parseLong(v.substring(0, v.indexOf(':')));
                String k = new String(kv.key(), StandardCharsets.UTF_8);
                if (!k.equals("k" + (i % keys)) || !java.util.Arrays.equals(kv.value(), value(i))) {
                    fail("key " + k + " holds " + v + ", which no write gave it");
                }
                seen.put(k, i);
                newest = Math.max(newest, i);
            }
        }
        assertTrue(newest >= atLeast, "the view shows writes up to " + newest + ", but " + atLeast
                + " was acknowledged with sync before it was made");
        for (int k = 0; k < keys; k++) {
            // The last write to key k at or before `newest`.
            long last = newest - Math.floorMod(newest - k, keys);
            Long got = seen.get("k" + k);
            if (last < 0) {
                assertEquals(null, got, "k" + k + " before its first write");
            } else {
                assertEquals(Long.valueOf(last), got, "k" + k + " in a view whose newest write is " + newest);
            }
        }
        return newest;
    }
}
