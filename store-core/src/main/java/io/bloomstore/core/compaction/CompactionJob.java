package io.bloomstore.core.compaction;

import io.bloomstore.core.internal.EntryRules;
import io.bloomstore.core.internal.InternalIterator;
import io.bloomstore.core.internal.ValueType;
import io.bloomstore.core.manifest.FileMetaData;
import io.bloomstore.core.table.TableBuilder;
import io.bloomstore.core.table.TableMetadata;
import io.bloomstore.core.table.WholeBlock;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.BooleanSupplier;

/**
 * Runs one {@link Compaction}: merges the input tables' entries (a {@link Merger} over their
 * iterators) in internal order, keeps those {@link ShadowedVersions} keeps, and writes them to new
 * tables at the output level, starting a new table once the current one passes the target size —
 * but only between two user keys, so a key's versions never straddle two tables of a level (a
 * point lookup consults one table per level).
 *
 * <p>A job is cancelled (a {@link CompactionCancelledException}) when its cancel condition turns
 * true, checked before each entry, so that closing a store need not wait for a long compaction.
 * On failure or cancellation the unfinished table is abandoned (its files deleted: a closed store
 * leaves no file its version does not name). Either way the finished ones are left in
 * {@link #outputs()} for the caller: nothing is in the MANIFEST yet.
 *
 * <p>Thread safety: not thread-safe; one thread runs a job.
 */
public final class CompactionJob {

    /** Where a compaction's tables come from: a new builder for a new file number. */
    public interface Output {
        /** A builder for the next output table (its filter already chosen for the output level). */
        TableBuilder newTable() throws IOException;

        /** Called once a table is finished, before it enters the version (to open it). */
        void finished(TableMetadata table) throws IOException;
    }

    /** A merged stream of the inputs in internal order. */
    public interface Merger {
        boolean valid();

        InternalIterator current();

        void advance() throws IOException;

        /**
         * The current source's whole block ({@link InternalIterator#wholeBlock()}) when no other
         * source has a user key at or before its last: then the block's entries come next in the
         * merged order, one after another. Null otherwise.
         */
        default WholeBlock wholeBlock() {
            return null;
        }

        /** Moves past the block {@link #wholeBlock()} returned. */
        default void skipBlock() throws IOException {
            throw new UnsupportedOperationException("no whole block here");
        }
    }

    private final Compaction compaction;
    private final ShadowedVersions versions;
    private final long targetFileBytes;
    private final BooleanSupplier cancelled;
    private final List<FileMetaData> outputs = new ArrayList<>();
    /** Inside an output table's {@link TableBuilder#finish()} (its index, filter and syncs). */
    /** {@link #run} has returned or thrown. */
    private volatile boolean done;
    private long bytesWritten;
    /** The output table being written, null between tables. */
    private TableBuilder builder;
    /** The user key of the last entry added to the outputs. */
    private byte[] lastKey;
    private boolean[] kept = new boolean[64];
    private long blocksCopied;
    /** Merges, TTL and compaction filter, or null when the store has none. */
    private ValueRewriter rewriter;
    /** {@link #keepAndEmit} as the rewriter's sink. */
    private final ValueRewriter.Sink sink = new ValueRewriter.Sink() {
        @Override
        public void entry(byte[] key, long sequence, ValueType type, byte[] value, int offset, int length)
                throws IOException {
            keepAndEmit(key, sequence, type, value, offset, length);
        }
    };
    private Output currentOutput;

    public CompactionJob(Compaction compaction, ShadowedVersions versions, long targetFileBytes) {
        this(compaction, versions, targetFileBytes, () -> false);
    }

    /** A job that stops with a {@link CompactionCancelledException} once {@code cancelled} is true. */
    public CompactionJob(Compaction compaction, ShadowedVersions versions, long targetFileBytes,
                         BooleanSupplier cancelled) {
        this.compaction = compaction;
        this.versions = versions;
        this.targetFileBytes = targetFileBytes;
        this.cancelled = cancelled;
    }

    /**
     * Has this job merge operands, expire timed values and apply the compaction filter by
     * {@code rules} ({@link ValueRewriter}) as it writes {@code outputLevel}; a store without any
     * of them need not call this.
     */
    public CompactionJob rewriting(EntryRules rules, int outputLevel) {
        this.rewriter = rules != null && rules.rewritesValues() ? new ValueRewriter(rules, versions, outputLevel) : null;
        return this;
    }

    /** Merges {@code merged} into output tables; returns them (also in {@link #outputs()}). */
    public List<FileMetaData> run(Merger merged, Output output) throws IOException {
        try {
            return merge(merged, output);
        } finally {
            done = true;
        }
    }

    private List<FileMetaData> merge(Merger merged, Output output) throws IOException {
        currentOutput = output;
        ValueRewriter rewriter = this.rewriter;
        try {
            while (merged.valid()) {
                checkCancelled();
                WholeBlock whole = merged.wholeBlock();
                if (whole != null && (rewriter == null || !rewriter.rewritesAny(whole))) {
                    addWhole(whole, output);
                    merged.skipBlock();
                    continue;
                }
                InternalIterator e = merged.current();
                if (rewriter != null && rewriter.rewrites(e.type())) {
                    rewriter.rewrite(merged, sink);
                    continue;
                }
                byte[] key = e.key();
                if (versions.keep(key, e.sequence(), e.type())) {
                    emit(key, e.sequence(), e.type(), e.valueArray(), e.valueOffset(), e.valueLength(), output);
                }
                merged.advance();
            }
            if (builder != null) {
                finish(builder, output);
                builder = null;
            }
        } catch (IOException | RuntimeException e) {
            if (builder != null && !builder.isFinished()) {
                try {
                    builder.abandon();
                } catch (IOException | RuntimeException suppressed) {
                    e.addSuppressed(suppressed);
                }
            }
            throw e;
        }
        return List.copyOf(outputs);
    }

    /**
     * A block no other input reaches into: its entries come next in the merged order. When every
     * one of them is kept, the output takes the input's block format and the block being built is
     * empty or at least half full ({@link TableBuilder#copyKeepsBlocksFull}), its stored bytes are
     * copied (no decompression, no recompression; LevelDB's and RocksDB's compactions re-encode
     * every block); otherwise its kept entries are added one by one. Either way each entry passes
     * {@link ShadowedVersions#keep} exactly once, in order, as in the entry-by-entry merge.
     */
    private void addWhole(WholeBlock whole, Output output) throws IOException {
        int n = 0;
        boolean all = true;
        for (WholeBlock.Cursor c = whole.cursor(); c.valid(); c.next()) {
            if (n == kept.length) {
                kept = Arrays.copyOf(kept, 2 * n);
            }
            kept[n] = versions.keep(c.userKey(), c.sequence(), c.type());
            all &= kept[n];
            n++;
        }
        if (all && n > 0) {
            startEntry(whole.cursor().userKey(), output);
            if (builder.canTakeWholeBlock(whole) && builder.copyKeepsBlocksFull()) {
                builder.addWholeBlock(whole);
                blocksCopied++;
                lastKey = whole.lastUserKey();
                return;
            }
        }
        int i = 0;
        for (WholeBlock.Cursor c = whole.cursor(); c.valid(); c.next(), i++) {
            if (kept[i]) {
                emit(c.userKey(), c.sequence(), c.type(), c.valueArray(), c.valueOffset(), c.valueLength(), output);
            }
        }
    }

    /**
     * Readies {@link #builder} for entries starting at user key {@code key}: finishes the output
     * table if it is full and {@code key} starts a new user key (one key's versions never span two
     * tables), and opens a new one if none is open. Returns whether {@code key} starts a new user key.
     */
    private boolean startEntry(byte[] key, Output output) throws IOException {
        boolean newKey = lastKey == null || !Arrays.equals(lastKey, key);
        if (builder != null && newKey && builder.fileSize() >= targetFileBytes) {
            finish(builder, output);
            builder = null;
        }
        if (builder == null) {
            builder = output.newTable();
        }
        return newKey;
    }

    /**
     * Adds a kept entry, its value {@code value[offset, offset + length)} (a slice of the input's
     * block, copied into the output's), first finishing the output table if it is full and the
     * entry starts a new user key.
     */
    private void emit(byte[] key, long sequence, ValueType type, byte[] value, int offset, int length, Output output)
            throws IOException {
        boolean newKey = startEntry(key, output);
        builder.add(key, sequence, type, value, offset, length);
        if (newKey) {
            lastKey = key.clone();
        }
    }

    private void keepAndEmit(byte[] key, long sequence, ValueType type, byte[] value, int offset, int length)
            throws IOException {
        if (versions.keep(key, sequence, type)) {
            emit(key, sequence, type, value, offset, length, currentOutput);
        }
    }

    private void checkCancelled() throws CompactionCancelledException {
        if (cancelled.getAsBoolean()) {
            throw new CompactionCancelledException("compaction cancelled: the store is closing");
        }
    }

    /** Whether {@link #run} has returned or thrown. */
    public boolean done() {
        return done;
    }

    /** Data blocks copied whole into the outputs. */
    public long blocksCopied() {
        return blocksCopied;
    }

    private void finish(TableBuilder builder, Output output) throws IOException {
        // Finishing writes the index and filter and syncs the file: not for a closing store. Once
        // finished, the table is handed over even if a close came meanwhile: the caller then
        // deletes it with the compaction's other outputs.
        checkCancelled();
        TableMetadata t = builder.finish();
        FileMetaData meta = new FileMetaData(t.fileNumber(), t.fileSize(), t.filterFileSize(), t.smallestUserKey(),
                t.largestUserKey(), t.entries(), t.smallestSeq(), t.largestSeq());
        outputs.add(meta);
        bytesWritten += t.fileSize() + t.filterFileSize();
        output.finished(t);
    }

    public Compaction compaction() {
        return compaction;
    }

    /** Tables finished so far. */
    public List<FileMetaData> outputs() {
        return List.copyOf(outputs);
    }

    /** Bytes of the finished output tables and their filters. */
    public long bytesWritten() {
        return bytesWritten;
    }

    /** Entries dropped as shadowed or as obsolete tombstones. */
    public long entriesDropped() {
        return versions.dropped();
    }
}
