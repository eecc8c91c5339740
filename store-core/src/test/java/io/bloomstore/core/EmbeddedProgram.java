package io.bloomstore.core;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * The child program of {@link NoJvmFlagsTest}: what a service embedding the store does, run in a
 * JVM started without any flag. {@code EmbeddedProgram DIR} opens a store in {@code DIR}, writes,
 * flushes, closes, reopens and reads present and absent keys through the tables' filters, then
 * prints {@code filter-memory LABEL} and {@code ok GETS NEGATIVES}; any failure exits non-zero
 * with the stack trace on standard error.
 *
 * <p>Thread safety: a program.
 */
public final class EmbeddedProgram {
    static final int KEYS = 3_000;

    private EmbeddedProgram() {
    }

    public static void main(String[] args) throws Exception {
        Path dir = Path.of(args[0]);
        StoreOptions options = StoreOptions.builder().memtableBytes(64 * 1024).build();
        try (Store store = Store.open(dir, options)) {
            for (int i = 0; i < KEYS; i++) {
                store.put(key(i), value(i));
            }
            store.flush();
            store.delete(key(0));
        }
        try (Store store = Store.open(dir, options)) {
            if (store.get(key(0)) != null) {
                throw new AssertionError("deleted key came back");
            }
            for (int i = 1; i < KEYS; i++) {
                byte[] v = store.get(key(i));
                if (v == null || !new String(v, StandardCharsets.UTF_8).equals("value-" + i)) {
                    throw new AssertionError("wrong value for key " + i);
                }
            }
            for (int i = 0; i < KEYS; i++) {
                if (store.get(absentKey(i)) != null) {
                    throw new AssertionError("absent key " + i + " found");
                }
            }
            StoreStats stats = store.stats();
            if (stats.totalFiles() == 0) {
                throw new AssertionError("no table was written");
            }
            System.out.println("filter-memory " + stats.filterMemory());
            System.out.println("ok " + stats.gets() + " " + stats.filterNegatives());
        }
    }

    private static byte[] key(int i) {
        return String.format("key-%08d", i).getBytes(StandardCharsets.UTF_8);
    }

    /** Sorts between present keys, so lookups reach the tables' filters. */
    private static byte[] absentKey(int i) {
        return String.format("key-%08d-absent", i).getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] value(int i) {
        return ("value-" + i).getBytes(StandardCharsets.UTF_8);
    }
}
