package io.bloomstore.core;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * The child program of {@link ReadOnlyOpenTest}: {@code ReadOnlyHolder DIR KEY} opens the store in
 * {@code DIR} read-only, prints {@code open VALUE} (the key's value, or {@code -}), then keeps the
 * store open until its standard input ends; {@code locked} and exit code 3 when a writer holds the
 * store.
 *
 * <p>Thread safety: a program.
 */
public final class ReadOnlyHolder {
    private ReadOnlyHolder() {
    }

    public static void main(String[] args) throws Exception {
        Store store;
        try {
            store = Store.openReadOnly(Path.of(args[0]));
        } catch (LockedException e) {
            System.out.println("locked");
            System.out.flush();
            System.exit(3);
            return;
        }
        try (store) {
            byte[] v = store.get(args[1].getBytes(StandardCharsets.UTF_8));
            System.out.println("open " + (v == null ? "-" : new String(v, StandardCharsets.UTF_8)));
            System.out.flush();
            while (System.in.read() >= 0) {
                // Holds the store open until the parent closes our standard input.
            }
        }
    }
}
