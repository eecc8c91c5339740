package io.bloomstore.core;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

import io.bloomstore.bloom.storage.OffHeapBackend;

/**
 * {@link FilterMemoryAheadTest}'s child JVM: opens the store in {@code args[1]} as {@code args[0]}
 * says ({@code write}: writable, one put, no flush; {@code flush}: writable, one put and a flush,
 * then a lookup of the flushed key; {@code read-only}), prints whether the filter memory's choice
 * ahead was started after the open and after the writes, closes, prints whether it has finished,
 * and exits at once with {@link System#exit}, as a short program or a command line does.
 */
public final class FilterMemoryAheadProgram {
    private FilterMemoryAheadProgram() {
    }

    public static void main(String[] args) throws Exception {
        Path dir = Path.of(args[1]);
        String mode = args[0];
        Store store = mode.equals("read-only") ? Store.openReadOnly(dir) : Store.open(dir);
        System.out.println("after open " + started());
        if (!mode.equals("read-only")) {
            store.put(bytes("k"), bytes("v"));
            if (mode.equals("flush")) {
                store.flush();
                byte[] v = store.get(bytes("k"));
                System.out.println("get " + (v == null ? "null" : new String(v, StandardCharsets.UTF_8)));
            }
        }
        System.out.println("after writes " + started());
        store.close();
        System.out.println("after close finished " + OffHeapBackend.choiceAheadFinished() + " running " + aheadThreadAlive());
        System.out.flush();
        System.exit(0);
    }

    private static boolean started() {
        return aheadThreadAlive() || OffHeapBackend.choiceAheadFinished();
    }

    private static boolean aheadThreadAlive() {
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.getName().equals("bloomstore-filter-memory") && t.isAlive()) {
                return true;
            }
        }
        return false;
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
