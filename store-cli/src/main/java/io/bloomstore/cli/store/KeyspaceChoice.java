package io.bloomstore.cli.store;

import java.io.IOException;
import java.nio.file.Path;

import io.bloomstore.cli.CliException;
import io.bloomstore.cli.ExitCodes;
import io.bloomstore.core.Keyspace;
import io.bloomstore.core.Store;

/**
 * The keyspace of {@code --keyspace NAME} in an open store: null for the default keyspace (no
 * option), the keyspace itself when the store has it, created by a writing command that may
 * create it ({@code put}, {@code load}), and otherwise a usage error naming the keyspaces there are.
 *
 * <p>Thread safety: stateless.
 */
final class KeyspaceChoice {
    private KeyspaceChoice() {
    }

    static Keyspace of(Store store, Path dir, String name, boolean create) throws IOException {
        if (name == null || name.equals(Keyspace.DEFAULT_NAME)) {
            return null;
        }
        if (!create && !store.keyspaces().contains(name)) {
            throw new CliException(ExitCodes.USAGE, "--keyspace " + name + ": no such keyspace in " + dir
                    + " (keyspaces: " + String.join(", ", store.keyspaces()) + ")");
        }
        try {
            return store.keyspace(name);
        } catch (IllegalArgumentException e) {
            throw new CliException(ExitCodes.USAGE, "--keyspace: " + e.getMessage());
        }
    }
}
