package io.bloomstore.cli.store;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

import io.bloomstore.core.CheckpointReport;
import io.bloomstore.core.IngestReport;
import io.bloomstore.core.ReadOptions;
import io.bloomstore.core.SecondaryStore;
import io.bloomstore.core.Snapshot;
import io.bloomstore.core.Store;
import io.bloomstore.core.StoreIterator;
import io.bloomstore.core.StoreOptions;
import io.bloomstore.core.StoreStats;
import io.bloomstore.core.WriteBatch;
import io.bloomstore.core.WriteOptions;

/**
 * What a reading command opens when another process holds the store for writing: a secondary
 * ({@link Store#openSecondary}) over a private temporary scratch directory beside the store
 * ({@link ScratchDirectory}: one a killed command left is removed by the next), which
 * {@link #close()} deletes after closing the secondary. Every other call is the secondary's
 * (writes refused).
 *
 * <p>Thread safety: as {@link SecondaryStore}.
 */
final class LiveStoreView implements Store {
    /** How the CLI names its scratch directories of secondary views. */
    static final String SCRATCH_PREFIX = "bloomstore-secondary-";

    private final SecondaryStore secondary;
    private final ScratchDirectory scratch;

    LiveStoreView(SecondaryStore secondary, ScratchDirectory scratch) {
        this.secondary = secondary;
        this.scratch = scratch;
    }

    /** Opens a secondary of {@code dir} over a new scratch directory, removed again if the open fails. */
    static Store open(Path dir, StoreOptions options) throws IOException {
        ScratchDirectory scratch = ScratchDirectory.create(dir, SCRATCH_PREFIX);
        try {
            return new LiveStoreView(Store.openSecondary(dir, scratch.path().resolve("scratch"), options), scratch);
        } catch (IOException | RuntimeException | Error e) {
            scratch.close();
            throw e;
        }
    }

    @Override
    public void close() throws IOException {
        try {
            secondary.close();
        } finally {
            scratch.close();
        }
    }

    @Override
    public void put(byte[] key, byte[] value) throws IOException {
        secondary.put(key, value);
    }

    @Override
    public void put(byte[] key, byte[] value, WriteOptions options) throws IOException {
        secondary.put(key, value, options);
    }

    @Override
    public void merge(byte[] key, byte[] operand) throws IOException {
        secondary.merge(key, operand);
    }

    @Override
    public void merge(byte[] key, byte[] operand, WriteOptions options) throws IOException {
        secondary.merge(key, operand, options);
    }

    @Override
    public void deleteRange(byte[] from, byte[] to) throws IOException {
        secondary.deleteRange(from, to);
    }

    @Override
    public void deleteRange(byte[] from, byte[] to, WriteOptions options) throws IOException {
        secondary.deleteRange(from, to, options);
    }

    @Override
    public void delete(byte[] key) throws IOException {
        secondary.delete(key);
    }

    @Override
    public void delete(byte[] key, WriteOptions options) throws IOException {
        secondary.delete(key, options);
    }

    @Override
    public void write(WriteBatch batch, WriteOptions options) throws IOException {
        secondary.write(batch, options);
    }

    @Override
    public byte[] get(byte[] key) throws IOException {
        return secondary.get(key);
    }

    @Override
    public byte[] get(byte[] key, ReadOptions options) throws IOException {
        return secondary.get(key, options);
    }

    @Override
    public StoreIterator iterator(byte[] from, byte[] to) {
        return secondary.iterator(from, to);
    }

    @Override
    public StoreIterator iterator(byte[] from, byte[] to, ReadOptions options) {
        return secondary.iterator(from, to, options);
    }

    @Override
    public StoreIterator prefixIterator(byte[] prefix) {
        return secondary.prefixIterator(prefix);
    }

    @Override
    public StoreIterator prefixIterator(byte[] prefix, ReadOptions options) {
        return secondary.prefixIterator(prefix, options);
    }

    @Override
    public StoreIterator reverseIterator(byte[] from, byte[] to) {
        return secondary.reverseIterator(from, to);
    }

    @Override
    public StoreIterator reverseIterator(byte[] from, byte[] to, ReadOptions options) {
        return secondary.reverseIterator(from, to, options);
    }

    @Override
    public Snapshot snapshot() {
        return secondary.snapshot();
    }

    @Override
    public void flush() throws IOException {
        secondary.flush();
    }

    @Override
    public void compact() throws IOException {
        secondary.compact();
    }

    @Override
    public void awaitCompactions() throws IOException {
        secondary.awaitCompactions();
    }

    @Override
    public CheckpointReport checkpoint(Path target) throws IOException {
        return secondary.checkpoint(target);
    }

    @Override
    public IngestReport ingest(List<Path> tables) throws IOException {
        return secondary.ingest(tables);
    }

    @Override
    public StoreStats stats() {
        return secondary.stats();
    }

    @Override
    public StoreOptions options() {
        return secondary.options();
    }

    @Override
    public List<String> keyspaces() {
        return secondary.keyspaces();
    }

    @Override
    public io.bloomstore.core.Keyspace keyspace(String name) throws IOException {
        return secondary.keyspace(name);
    }

    @Override
    public io.bloomstore.core.Keyspace keyspace(String name, io.bloomstore.core.KeyspaceOptions options)
            throws IOException {
        return secondary.keyspace(name, options);
    }

    @Override
    public byte[] get(io.bloomstore.core.Keyspace keyspace, byte[] key, ReadOptions options) throws IOException {
        return secondary.get(keyspace, key, options);
    }

    @Override
    public StoreIterator iterator(io.bloomstore.core.Keyspace keyspace, byte[] from, byte[] to, ReadOptions options) {
        return secondary.iterator(keyspace, from, to, options);
    }

    @Override
    public StoreIterator prefixIterator(io.bloomstore.core.Keyspace keyspace, byte[] prefix, ReadOptions options) {
        return secondary.prefixIterator(keyspace, prefix, options);
    }

    @Override
    public StoreIterator reverseIterator(io.bloomstore.core.Keyspace keyspace, byte[] from, byte[] to,
                                         ReadOptions options) {
        return secondary.reverseIterator(keyspace, from, to, options);
    }

    @Override
    public StoreStats stats(io.bloomstore.core.Keyspace keyspace) {
        return secondary.stats(keyspace);
    }
}
