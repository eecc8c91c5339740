package io.bloomstore.cli.store;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import io.bloomstore.cli.CliException;
import io.bloomstore.cli.ExitCodes;
import io.bloomstore.cli.Json;
import io.bloomstore.cli.Main;
import io.bloomstore.cli.Units;
import io.bloomstore.core.IngestReport;
import io.bloomstore.core.Store;
import io.bloomstore.core.StoreOptions;
import io.bloomstore.core.TableWriter;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code bloomstore ingest FILE}: a bulk load of KEY&lt;TAB&gt;VALUE lines (the format {@code load}
 * reads, in any order) that bypasses the write path: the lines are sorted (an external merge sort
 * within {@code --memory}; of equal keys the last line wins, as with {@code load}), written as
 * tables with their filters by {@link TableWriter} into a scratch directory beside the store, and
 * linked in by {@link Store#ingest}, all or nothing: key ranges new to the store as they are, tables
 * overlapping what the store holds rewritten as the newest versions. A bad line is exit 5 with
 * nothing ingested.
 *
 * <p>Thread safety: one instance per invocation.
 */
@Command(name = "ingest", mixinStandardHelpOptions = true,
        description = "Bulk-load KEY<TAB>VALUE lines (any order) as sorted tables linked into the store: no WAL"
                + " or memtable; tables over keys the store holds are rewritten as their newest versions.")
public final class IngestCommand extends StoreCommand {

    @Parameters(index = "0", paramLabel = "FILE", description = "KEY<TAB>VALUE lines, '-' for stdin.")
    String file;

    @Option(names = "--hex", description = "Keys and values in the file are hex digits.")
    boolean hex;

    @Option(names = "--memory", paramLabel = "MIB", defaultValue = "64",
            description = "Heap for sorting, in MiB: beyond it sorted runs go to scratch files (default 64).")
    long memoryMib;

    @Option(names = "--table-mib", paramLabel = "MIB", defaultValue = "64",
            description = "Start a new table after this many MiB of keys and values (default 64).")
    long tableMib;

    @Option(names = "--json", description = "Print JSON with the report's names.")
    boolean json;

    @Override
    public Integer call() throws IOException {
        if (memoryMib < 1 || tableMib < 1) {
            throw new IllegalArgumentException("--memory and --table-mib must be at least 1");
        }
        long started = System.nanoTime();
        try (Store store = open(true)) {
            Path parent = dataDir().toAbsolutePath().getParent();
            // Beside the store, on its file system, so that the tables are linked rather than copied.
            Path scratch = Files.createTempDirectory(parent, ".bloomstore-ingest-");
            try {
                return ingest(store, scratch, started);
            } finally {
                deleteTree(scratch);
            }
        }
    }

    private int ingest(Store store, Path scratch, long started) throws IOException {
        long lines;
        long keys;
        int runs;
        List<Path> tables = new ArrayList<>();
        long sortedAt;
        try (ExternalSorter sorter = new ExternalSorter(scratch, memoryMib << 20)) {
            lines = read(store.options(), sorter);
            runs = sorter.runs();
            sortedAt = System.nanoTime();
            TableSplitter splitter = new TableSplitter(scratch, store.options(), tableMib << 20, tables);
            keys = sorter.merge(splitter);
            splitter.finish();
        }
        long writtenAt = System.nanoTime();
        IngestReport r = tables.isEmpty() ? new IngestReport(0, 0, 0, List.of(), 0, false) : ingestInto(store, tables);
        long done = System.nanoTime();
        Map<String, Object> j = new LinkedHashMap<>();
        j.put("store", dataDir().toString());
        j.put("lines", lines);
        j.put("keys", keys);
        j.put("tables", r.files());
        j.put("levels", r.levels());
        j.put("bytes", r.bytes());
        j.put("sortRuns", runs);
        j.put("readAndSortMillis", (sortedAt - started) / 1_000_000);
        j.put("writeTablesMillis", (writtenAt - sortedAt) / 1_000_000);
        j.put("ingestMillis", (done - writtenAt) / 1_000_000);
        j.put("millis", (done - started) / 1_000_000);
        if (json) {
            out().println(Json.write(j));
        } else {
            out().println("ingested " + Units.count(lines) + " lines (" + Units.count(keys) + " keys) from " + file
                    + " into " + dataDir() + ": " + r.files() + " tables at levels " + r.levels() + ", "
                    + Units.bytes(r.bytes()) + "; read and sorted in " + j.get("readAndSortMillis") + " ms (" + runs
                    + " runs on disk), tables written in " + j.get("writeTablesMillis") + " ms, linked in "
                    + j.get("ingestMillis") + " ms");
        }
        out().flush();
        return ExitCodes.OK;
    }

    /** Reads and checks every line into the sorter; returns the lines read. */
    private long read(StoreOptions options, ExternalSorter sorter) throws IOException {
        ByteText text = ByteText.of(hex);
        long line = 0;
        long pairs = 0;
        try (InputStream in = input()) {
            BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT).onUnmappableCharacter(CodingErrorAction.REPORT)));
            while (true) {
                String s;
                try {
                    s = reader.readLine();
                } catch (CharacterCodingException e) {
                    throw badLine(line + 1, "not UTF-8 text (write other bytes as \\xNN)");
                }
                if (s == null) {
                    return pairs;
                }
                line++;
                if (s.isEmpty()) {
                    continue;
                }
                byte[][] kv;
                try {
                    kv = TsvRecord.parse(s, text, options.maxKeyBytes(), options.maxValueBytes());
                } catch (IllegalArgumentException e) {
                    throw badLine(line, e.getMessage());
                }
                sorter.add(kv[0], kv[1]);
                pairs++;
            }
        }
    }

    private InputStream input() throws IOException {
        if (file.equals("-")) {
            return ((Main) spec.root().userObject()).stdin();
        }
        Path path = Path.of(file);
        if (Files.isDirectory(path)) {
            throw new CliException(ExitCodes.IO, file + " is a directory, not a file of KEY<TAB>VALUE lines");
        }
        return Files.newInputStream(path);
    }

    private CliException badLine(long line, String problem) {
        return new CliException(ExitCodes.FORMAT, (file.equals("-") ? "stdin" : file) + " line " + line + ": "
                + problem + "; nothing ingested");
    }

    private static void deleteTree(Path dir) throws IOException {
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path f : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(f);
            }
        }
    }

    /** Writes the merged pairs into tables of about {@code tableBytes} of keys and values each. */
    private static final class TableSplitter implements ExternalSorter.Sink {
        private final Path scratch;
        private final StoreOptions options;
        private final long tableBytes;
        private final List<Path> tables;
        private TableWriter writer;
        /** The previous table, finished on the resources' threads while this one is written. */
        private java.util.concurrent.CompletableFuture<io.bloomstore.core.TableWriterResult> finishing;
        private long bytes;

        TableSplitter(Path scratch, StoreOptions options, long tableBytes, List<Path> tables) {
            this.scratch = scratch;
            this.options = options;
            this.tableBytes = tableBytes;
            this.tables = tables;
        }

        @Override
        public void accept(byte[] key, byte[] value) throws IOException {
            if (writer == null) {
                Path t = scratch.resolve(String.format("table-%05d.sst", tables.size()));
                writer = TableWriter.create(t, options);
                tables.add(t);
                bytes = 0;
            }
            writer.put(key, value);
            bytes += key.length + value.length;
            if (bytes >= tableBytes) {
                // At most one table finishing beside the one being written.
                awaitFinishing();
                finishing = writer.finishAsync();
                writer = null;
            }
        }

        void finish() throws IOException {
            if (writer != null) {
                writer.finish();
                writer = null;
            }
            awaitFinishing();
        }

        private void awaitFinishing() throws IOException {
            if (finishing != null) {
                java.util.concurrent.CompletableFuture<io.bloomstore.core.TableWriterResult> f = finishing;
                finishing = null;
                TableWriter.await(f);
            }
        }
    }

    /** Ingests into the keyspace of {@code --keyspace} (made if the store has none by that name), else the default one. */
    private IngestReport ingestInto(Store store, List<Path> tables) throws IOException {
        io.bloomstore.core.Keyspace ks = KeyspaceChoice.of(store, dataDir(), keyspace(), true);
        return ks == null ? store.ingest(tables) : store.ingest(ks, tables);
    }
}
