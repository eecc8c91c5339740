package io.bloomstore.core;

import java.nio.file.Path;

/**
 * The child program of {@link SecondaryKillTest}: {@code SecondaryPrimaryProgram DIR KEYS} opens the
 * store in {@code DIR} for writing (a small memtable, so it flushes and compacts often) and writes
 * the history of {@link SecondaryChecks} without end, every 20th write with sync, printing
 * {@code synced I} after each synced write {@code I}, until it is killed.
 *
 * <p>Thread safety: a program.
 */
public final class SecondaryPrimaryProgram {
    private SecondaryPrimaryProgram() {
    }

    public static void main(String[] args) throws Exception {
        int keys = Integer.parseInt(args[1]);
        StoreOptions small = StoreOptions.builder().memtableBytes(32 << 10).targetFileBytes(32 << 10)
                .baseLevelBytes(128 << 10).build();
        Store store = Store.open(Path.of(args[0]), small);
        for (long i = 0; ; i++) {
            boolean sync = i % 20 == 19;
            store.put(SecondaryChecks.key(i, keys), SecondaryChecks.value(i),
                    sync ? WriteOptions.SYNC : WriteOptions.DEFAULT);
            if (sync) {
                System.out.println("synced " + i);
                System.out.flush();
            }
        }
    }
}
