package io.bloomstore.cli.store;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;

import io.bloomstore.cli.ExitCodes;
import io.bloomstore.cli.Json;
import io.bloomstore.cli.Units;
import io.bloomstore.core.KeyValue;
import io.bloomstore.core.Keyspace;
import io.bloomstore.core.PrefixExtractor;
import io.bloomstore.core.Store;
import io.bloomstore.core.StoreIterator;
import io.bloomstore.core.StoreOptions;
import io.bloomstore.core.StoreStats;
import io.bloomstore.core.WriteOptions;

/**
 * What the short store commands do once their arguments are parsed — {@code get} of one key,
 * {@code put}, {@code delete}, {@code scan}, {@code stats} and {@code flush} — shared by their
 * picocli commands and by the picocli-free path of a one-shot command ({@link QuickCommands}), so
 * both answer alike. Names no picocli type: the JVM would load picocli's classes to check the
 * signatures of a class that did, also for the quick path.
 *
 * <p>Thread safety: stateless.
 */
final class StoreActions {
    private StoreActions() {
    }

    /** {@code get KEY}: prints the value, or nothing and {@link ExitCodes#NOT_FOUND} when absent. */
    static int get(Path dir, StoreOptions options, String keyspace, boolean hex, String key, PrintWriter out,
                   PrintWriter err) throws IOException {
        ByteText text = ByteText.of(hex);
        byte[] k = text.decode(key);
        byte[] value;
        // One lookup reads at most one block: a block cache would only cost its set-up.
        try (Store store = StoreAccess.openReadOnly(dir, options.toBuilder().blockCacheBytes(0).build(), err)) {
            Keyspace ks = KeyspaceChoice.of(store, dir, keyspace, false);
            value = ks == null ? store.get(k) : store.get(ks, k);
        }
        if (value == null) {
            return ExitCodes.NOT_FOUND;
        }
        out.println(text.encode(value));
        out.flush();
        return ExitCodes.OK;
    }

    /**
     * The options of a short writing command ({@code put}, {@code delete}, {@code flush}): no
     * background compaction. The command closes the store milliseconds after its one write, and a
     * close abandons a running compaction, so one started there never finishes (80 one-shot puts
     * on a new store left 9 level-0 tables, the trigger being 4); it only took the command's
     * processor time: with a compaction due on a 1M-key store, 60–80 ms of a put's wall time and
     * 115–125 ms of its processor time. {@code compact}, {@code load} and any long-running open
     * compact.
     */
    static StoreOptions withoutCompaction(StoreOptions options) {
        return options.toBuilder().autoCompaction(false).build();
    }

    /** {@code put KEY VALUE}: creates the store if the directory is missing or empty; prints nothing. */
    static int put(Path dir, StoreOptions options, String keyspace, boolean hex, boolean sync, String key,
                   String value) throws IOException {
        ByteText text = ByteText.of(hex);
        byte[] k = text.decode(key);
        byte[] v = text.decode(value);
        try (Store store = StoreAccess.open(dir, withoutCompaction(options), true)) {
            Keyspace ks = KeyspaceChoice.of(store, dir, keyspace, true);
            WriteOptions w = sync ? WriteOptions.SYNC : WriteOptions.DEFAULT;
            if (ks == null) {
                store.put(k, v, w);
            } else {
                store.put(ks, k, v, w);
            }
        }
        return ExitCodes.OK;
    }

    /** {@code delete KEY}: prints nothing. */
    static int delete(Path dir, StoreOptions options, String keyspace, boolean hex, boolean sync, String key)
            throws IOException {
        byte[] k = ByteText.of(hex).decode(key);
        try (Store store = StoreAccess.open(dir, withoutCompaction(options), false)) {
            Keyspace ks = KeyspaceChoice.of(store, dir, keyspace, false);
            WriteOptions w = sync ? WriteOptions.SYNC : WriteOptions.DEFAULT;
            if (ks == null) {
                store.delete(k, w);
            } else {
                store.delete(ks, k, w);
            }
        }
        return ExitCodes.OK;
    }

    /** {@code delete-range FROM TO}: prints nothing. */
    static int deleteRange(Path dir, StoreOptions options, String keyspace, boolean hex, boolean sync, String from,
                           String to) throws IOException {
        ByteText text = ByteText.of(hex);
        byte[] lo = text.decode(from);
        byte[] hi = text.decode(to);
        try (Store store = StoreAccess.open(dir, withoutCompaction(options), false)) {
            Keyspace ks = KeyspaceChoice.of(store, dir, keyspace, false);
            WriteOptions w = sync ? WriteOptions.SYNC : WriteOptions.DEFAULT;
            if (ks == null) {
                store.deleteRange(lo, hi, w);
            } else {
                store.write(new io.bloomstore.core.WriteBatch().deleteRange(ks, lo, hi), w);
            }
        }
        return ExitCodes.OK;
    }

    /**
     * {@code scan}: {@code KEY<TAB>VALUE} lines of [{@code from}, {@code to}) or of one
     * {@code prefix}, at most {@code limit} (null: all), descending when {@code reverse}.
     */
    static int scan(Path dir, StoreOptions options, String keyspace, String from, String to, String prefix,
                    Long limit, boolean reverse, boolean hex, PrintWriter out, PrintWriter err) throws IOException {
        if (limit != null && limit < 0) {
            throw new IllegalArgumentException("--limit must not be negative, got " + limit);
        }
        ByteText text = ByteText.of(hex);
        if (prefix != null && (from != null || to != null)) {
            throw new IllegalArgumentException("--prefix cannot be combined with --from or --to");
        }
        byte[] lo = from == null ? null : text.decode(from);
        byte[] hi = to == null ? null : text.decode(to);
        if (prefix != null) {
            lo = text.decode(prefix);
            hi = PrefixExtractor.successor(lo);
        }
        long max = limit == null ? Long.MAX_VALUE : limit;
        try (Store store = StoreAccess.openReadOnly(dir, options, err);
             StoreIterator it = iterator(store, KeyspaceChoice.of(store, dir, keyspace, false), lo, hi,
                     prefix != null, reverse)) {
            for (long n = 0; n < max && it.hasNext(); n++) {
                KeyValue kv = it.next();
                out.print(text.encode(kv.key()));
                out.print('\t');
                out.print(text.encode(kv.value()));
                out.print('\n');
            }
        } finally {
            out.flush();
        }
        return ExitCodes.OK;
    }

    private static StoreIterator iterator(Store store, Keyspace ks, byte[] lo, byte[] hi, boolean prefix,
                                          boolean reverse) {
        if (ks == null) {
            return reverse ? store.reverseIterator(lo, hi) : prefix ? store.prefixIterator(lo) : store.iterator(lo, hi);
        }
        return reverse ? store.reverseIterator(ks, lo, hi) : prefix ? store.prefixIterator(ks, lo)
                : store.iterator(ks, lo, hi);
    }

    /** {@code stats}: the report of {@link StatsReport}, as text or JSON. */
    static int stats(Path dir, StoreOptions options, String keyspace, boolean json, PrintWriter out,
                     PrintWriter err) throws IOException {
        StoreStats s;
        StoreOptions opened;
        java.util.List<String> keyspaces;
        try (Store store = StoreAccess.openReadOnly(dir, options, err)) {
            Keyspace ks = KeyspaceChoice.of(store, dir, keyspace, false);
            s = ks == null ? store.stats() : store.stats(ks);
            opened = store.options();
            keyspaces = store.keyspaces();
        }
        String shown = keyspace == null ? Keyspace.DEFAULT_NAME : keyspace;
        if (json) {
            java.util.Map<String, Object> report = StatsReport.jsonObject(dir, s, opened);
            report.put("keyspace", shown);
            report.put("keyspaces", keyspaces);
            out.println(Json.write(report));
        } else {
            out.println("keyspaces: " + String.join(", ", keyspaces) + " (shown: " + shown + ")");
            StatsReport.printText(out, dir, s, opened);
        }
        out.flush();
        return ExitCodes.OK;
    }

    /** {@code flush}: writes the memtable to a table and prints the tables the store now has. */
    static int flush(Path dir, StoreOptions options, PrintWriter out) throws IOException {
        StoreStats stats;
        try (Store store = StoreAccess.open(dir, withoutCompaction(options), false)) {
            store.flush();
            stats = store.stats();
        }
        long bytes = 0;
        for (StoreStats.LevelStats l : stats.levels()) {
            bytes += l.tableBytes();
        }
        out.println("flushed " + dir + ": " + Units.count(stats.totalFiles()) + " tables, "
                + Units.bytes(bytes) + ", filters " + Units.bytes(stats.filterBytes()));
        out.flush();
        return ExitCodes.OK;
    }
}
