package io.bloomstore.core;

/**
 * A keyspace of a {@link Store}: an ordered set of keys of its own, with its own memtable,
 * tables, compaction and filter settings ({@link KeyspaceOptions}), written atomically with the
 * store's other keyspaces (one {@link WriteBatch} may span them; one WAL and one MANIFEST hold
 * them all). RocksDB calls it a column family. Obtained from {@link Store#keyspace(String)};
 * every store has the keyspace {@value #DEFAULT_NAME}, which the methods without a keyspace
 * argument use.
 *
 * <p>A handle belongs to the store instance that gave it: after that store is closed, or the
 * keyspace dropped, operations with it are refused.
 *
 * <p>Thread safety: immutable.
 */
public interface Keyspace {
    /** The name of the keyspace every store has, which the methods without a keyspace use. */
    String DEFAULT_NAME = "default";

    /** The keyspace's name. */
    String name();

    /**
     * The number the store's files know the keyspace by (the default keyspace's is 0): fixed when
     * the keyspace is created and never given to another keyspace of the store, even after a drop.
     */
    int id();
}
