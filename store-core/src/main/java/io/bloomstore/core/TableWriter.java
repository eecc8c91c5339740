package io.bloomstore.core;

import io.bloomstore.core.fs.FileSystem;
import io.bloomstore.core.fs.LocalFileSystem;
import io.bloomstore.core.internal.ValueType;
import io.bloomstore.core.table.TableBuilder;
import io.bloomstore.core.table.TableFileNames;
import io.bloomstore.core.table.TableMetadata;
import io.bloomstore.core.table.TableOptions;
import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Builds a BloomStore table, with its filter, outside any store, from keys given in ascending
 * order: the first half of a bulk load ({@link Store#ingest} is the second), as RocksDB's
 * {@code SstFileWriter}. The table is the file given, its filter sidecar that name plus
 * {@code .filter}; both are written under temporary names beside it and renamed by
 * {@link #finish()}. Block size, compression and the filter (kind and bits per key) come from the
 * {@link StoreOptions} given, as a store's level-0 tables take them. Entries carry sequence number
 * 0: they are the oldest version of their keys, which is what lets {@link Store#ingest} link the
 * file in without rewriting it.
 *
 * <p>Ownership: the writer copies what it keeps; the caller may reuse its arrays once a call returns.
 * Thread safety: one thread at a time. {@link #close()} without {@link #finish()} deletes what was
 * written.
 */
public final class TableWriter implements AutoCloseable {
    private final FileSystem fs;
    private final Path file;
    private final Path dir;
    private final long tempNumber;
    private final TableBuilder builder;
    private final StoreOptions options;
    private boolean done;

    private TableWriter(FileSystem fs, Path file, StoreOptions options) throws IOException {
        this.fs = fs;
        this.file = file;
        this.options = options;
        Path parent = file.toAbsolutePath().getParent();
        this.dir = parent;
        // A number no store file beside it is likely to have; the name exists only while writing.
        this.tempNumber = 900_000_000_000L + ThreadLocalRandom.current().nextLong(99_000_000_000L);
        if (fs.exists(file)) {
            throw new IllegalArgumentException("table file " + file + " exists already");
        }
        fs.createDirectories(parent);
        // Synced in the background every bytesPerSync bytes, as a flush's table is, so finish()
        // waits for the device to take only the last stretch, the filter's sync beside it; blocks
        // compressed on the resources' compaction threads while the caller adds the next keys.
        this.builder = new TableBuilder(fs, parent, tempNumber, TableOptions.of(options),
                io.bloomstore.core.db.DbImpl.tableSyncer(), options.bytesPerSync(),
                io.bloomstore.core.db.DbImpl.blockEncoder(options));
    }

    /** A writer of the table {@code file} (which must not exist) with the default options' block, compression and filter. */
    public static TableWriter create(Path file) throws IOException {
        return create(file, StoreOptions.defaults());
    }

    /** A writer of the table {@code file} (which must not exist) with {@code options}' block size, compression and filter. */
    public static TableWriter create(Path file, StoreOptions options) throws IOException {
        return create(LocalFileSystem.INSTANCE, file, options);
    }

    /** As {@link #create(Path, StoreOptions)} through another file system, for tests. */
    public static TableWriter create(FileSystem fs, Path file, StoreOptions options) throws IOException {
        return new TableWriter(fs, file, options);
    }

    /** The filter sidecar of a table file written by a {@code TableWriter}: its name plus {@code .filter}. */
    public static Path filterOf(Path table) {
        return table.resolveSibling(table.getFileName() + ".filter");
    }

    /**
     * Adds a key and its value. REQUIRES: {@code key} sorts after every key added before (unsigned
     * bytes); otherwise {@link IllegalArgumentException}, and the writer takes no more keys.
     */
    public void put(byte[] key, byte[] value) throws IOException {
        if (value == null) {
            throw new IllegalArgumentException("value must not be null (use delete)");
        }
        if (value.length > options.maxValueBytes()) {
            throw new IllegalArgumentException("value of " + value.length + " bytes is over the maximum of "
                    + options.maxValueBytes() + " bytes (StoreOptions.maxValueBytes)");
        }
        add(key, ValueType.VALUE, value);
    }

    /** Adds a deletion of {@code key} (a tombstone that hides older versions once ingested); same order rule as {@link #put}. */
    public void delete(byte[] key) throws IOException {
        add(key, ValueType.DELETION, new byte[0]);
    }

    private void add(byte[] key, ValueType type, byte[] value) throws IOException {
        if (done) {
            throw new IllegalStateException("table writer of " + file + " is finished or closed");
        }
        if (key == null || key.length == 0) {
            throw new IllegalArgumentException("key must not be null or empty");
        }
        if (key.length > options.maxKeyBytes()) {
            throw new IllegalArgumentException("key of " + key.length + " bytes is over the maximum of "
                    + options.maxKeyBytes() + " bytes (StoreOptions.maxKeyBytes)");
        }
        if (builder.compareToLastUserKey(key) <= 0) {
            throw new IllegalArgumentException("keys must be added in strictly ascending order: "
                    + show(key) + " after " + show(builder.lastUserKey()));
        }
        builder.addNewUserKey(key, type, value);
    }

    /**
     * Finishes the table: writes its index, filter and footer, syncs both files and gives them
     * their names. Returns what the table holds.
     *
     * @throws IllegalStateException when no key was added (an empty table cannot be ingested)
     */
    public TableWriterResult finish() throws IOException {
        startFinish();
        return finishNow();
    }

    /**
     * As {@link #finish()}, on the compaction threads of the options' {@link StoreResources} (those
     * that compress its blocks): the filter's build — a quarter of a bulk load's writing thread for
     * 64 MiB tables — the index, the footer and the syncs overlap the caller's next table. The
     * future ends with what {@link #finish()} returns, or with what it throws. The writer takes no
     * more keys once this returns; {@link #close()} then leaves the files to the future.
     *
     * @throws IllegalStateException at once when no key was added, or the writer is finished or closed
     */
    public CompletableFuture<TableWriterResult> finishAsync() {
        startFinish();
        CompletableFuture<TableWriterResult> result = new CompletableFuture<>();
        Runnable task = new Runnable() {
            @Override
            public void run() {
                try {
                    result.complete(finishNow());
                } catch (Throwable t) {
                    result.completeExceptionally(t);
                }
            }
        };
        try {
            io.bloomstore.core.db.DbImpl.blockEncoder(options).execute(task);
        } catch (RejectedExecutionException e) {
            // The resources are closed: finished here instead.
            task.run();
        }
        return result;
    }

    /**
     * Waits for a {@link #finishAsync()} future and returns its result, throwing what
     * {@link #finish()} would have thrown (an {@link IOException}, a runtime exception or an error).
     */
    public static TableWriterResult await(CompletableFuture<TableWriterResult> finishing) throws IOException {
        io.bloomstore.core.internal.Futures.rethrow(io.bloomstore.core.internal.Futures.await(finishing),
                "finishing a table failed");
        return finishing.join();
    }

    /** Checks that the table may be finished and takes no more keys. */
    private void startFinish() {
        if (done) {
            throw new IllegalStateException("table writer of " + file + " is finished or closed");
        }
        if (builder.lastUserKey() == null) {
            throw new IllegalStateException("table " + file + " has no keys");
        }
        done = true;
    }

    /** The body of {@link #finish()} once {@link #startFinish()} passed. */
    private TableWriterResult finishNow() throws IOException {
        TableMetadata t;
        try {
            t = builder.finish();
        } catch (IOException | RuntimeException | Error e) {
            builder.abandon();
            throw e;
        }
        Path filter = filterOf(file);
        if (t.filterFileSize() > 0) {
            fs.rename(dir.resolve(TableFileNames.filter(tempNumber)), filter);
        }
        fs.rename(dir.resolve(TableFileNames.table(tempNumber)), file);
        fs.syncDirectory(dir);
        return new TableWriterResult(file, t.filterFileSize() > 0 ? filter : null, t.entries(), t.fileSize(),
                t.filterFileSize(), t.smallestUserKey(), t.largestUserKey());
    }

    /** Deletes what was written unless {@link #finish()} succeeded. */
    @Override
    public void close() throws IOException {
        if (!done) {
            done = true;
            builder.abandon();
        }
    }

    /** A short printable form of a key for error messages. */
    private static String show(byte[] key) {
        StringBuilder sb = new StringBuilder("'");
        for (int i = 0; i < Math.min(key.length, 40); i++) {
            int b = key[i] & 0xff;
            sb.append(b >= 0x20 && b < 0x7f ? String.valueOf((char) b) : String.format("\\x%02x", b));
        }
        return sb.append(key.length > 40 ? "...'" : "'").toString();
    }
}
