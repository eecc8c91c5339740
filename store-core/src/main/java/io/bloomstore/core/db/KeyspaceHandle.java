package io.bloomstore.core.db;

import io.bloomstore.core.Keyspace;

/**
 * A {@link Keyspace} of an open store: the state of the keyspace it names, so that an operation
 * finds its memtable and tables without a lookup by name.
 *
 * <p>Thread safety: immutable (the state's dropped flag is volatile).
 */
final class KeyspaceHandle implements Keyspace {
    final DbState state;

    KeyspaceHandle(DbState state) {
        this.state = state;
    }

    @Override
    public String name() {
        return state.keyspaceName;
    }

    @Override
    public int id() {
        return state.keyspaceId;
    }

    /**
     * The state of {@code keyspace} in the store whose root state is {@code root}.
     *
     * @throws IllegalArgumentException when the handle is null or of another store (or of an
     *         earlier open of this one)
     * @throws IllegalStateException when the keyspace was dropped
     */
    static DbState stateIn(DbState root, Keyspace keyspace) {
        if (keyspace == null) {
            throw new IllegalArgumentException("keyspace must not be null (the methods without one use the default"
                    + " keyspace)");
        }
        if (!(keyspace instanceof KeyspaceHandle h) || h.state.root != root.root) {
            throw new IllegalArgumentException("keyspace " + keyspace.name() + " is not a keyspace of the store in "
                    + root.dir + " as open now (handles belong to the store instance that gave them)");
        }
        h.state.checkNotDropped();
        return h.state;
    }

    @Override
    public String toString() {
        return "Keyspace[" + state.keyspaceName + "]";
    }
}
