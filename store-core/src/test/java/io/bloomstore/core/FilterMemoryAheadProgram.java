package io.bloomstore.core;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

import io.bloomstore.bloom.storage.OffHeapBackend;

/**
 * {@link FilterMemoryAheadTest}'s child JVM: opens the store in {@code args[1]} writable or
 * read-only ({@code args[0]}: {@code write} or {@code read-only}), prints whether the filter
 * memory's choice ahead was started, closes, prints whether it has finished, and exits at once
 * with {@link System#exit}, as a short program or a command line does.
 */
public final class FilterMemoryAheadProgram {
    private FilterMemoryAheadProgram() {
    }

    public static void main(String[] args) throws Exception {
        Path dir = Path.of(args[1]);
        boolean write = args[0].equals("write");
        Store store = write ? Store.open(dir) : Store.openReadOnly(dir);
        System.out.println("started " + (aheadThreadAlive() || OffHeapBackend.choiceAheadFinished()));
        if (write) {
            store.put("k".getBytes(StandardCharsets.UTF_8), "v".getBytes(StandardCharsets.UTF_8));
        }
        store.close();
        System.out.println("finished " + OffHeapBackend.choiceAheadFinished() + " alive " + aheadThreadAlive());
        System.out.flush();
        System.exit(0);
    }

    private static boolean aheadThreadAlive() {
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.getName().equals("bloomstore-filter-memory") && t.isAlive()) {
                return true;
            }
        }
        return false;
    }
}
