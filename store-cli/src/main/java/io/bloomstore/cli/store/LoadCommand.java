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

import io.bloomstore.cli.CliException;
import io.bloomstore.cli.ExitCodes;
import io.bloomstore.cli.Main;
import io.bloomstore.cli.Terminal;
import io.bloomstore.cli.Units;
import io.bloomstore.core.Store;
import io.bloomstore.core.WriteBatch;
import io.bloomstore.core.WriteOptions;
import me.tongfei.progressbar.ConsoleProgressBarConsumer;
import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code bloomstore load FILE}: writes {@code KEY<TAB>VALUE} lines (UTF-8, escaped as
 * {@link ByteText} says, or hex with {@code --hex}) into the store, creating it if needed, in
 * atomic {@link WriteBatch}es of {@code --batch} lines. Empty lines are skipped.
 *
 * <p>A bad line (no TAB or more than one, an empty or oversized key, a bad escape, bytes that
 * are not UTF-8) stops the load with {@link ExitCodes#FORMAT} and names the line; every batch
 * before the one holding it is written, nothing of that batch or after it is, and the message
 * says which lines are in the store. A file of at least {@value #PROGRESS_THRESHOLD_BYTES}
 * bytes shows a progress bar on stderr.
 *
 * <p>Thread safety: one instance per invocation.
 */
@Command(name = "load", mixinStandardHelpOptions = true,
        description = {"Load KEY<TAB>VALUE lines (scan's output format) into the store, creating it if needed.",
            "Keys and values are UTF-8 with escapes \\\\ \\t \\n \\r \\xNN (or hex with --hex)."})
public final class LoadCommand extends StoreCommand {
    static final long PROGRESS_THRESHOLD_BYTES = 16L << 20;

    @Parameters(index = "0", paramLabel = "FILE", description = "Lines to load; '-' reads stdin.")
    private String file;

    @Option(names = "--hex", description = "Keys and values in the file are hex digits.")
    private boolean hex;

    @Option(names = "--batch", paramLabel = "N", defaultValue = "1000",
            description = "Lines per atomic write batch (default: ${DEFAULT-VALUE}).")
    private int batchLines;

    @Option(names = "--sync", description = "Force each batch to the device before the next.")
    private boolean sync;

    @Option(names = "--no-progress", description = "Do not draw a progress bar on stderr (it is drawn only when the"
            + " output goes to a terminal).")
    private boolean noProgress;

    @Override
    public Integer call() throws IOException {
        if (batchLines < 1) {
            throw new IllegalArgumentException("--batch must be positive, got " + batchLines);
        }
        Progress progress = new Progress();
        try (InputStream in = input();
             Store store = open(true)) {
            BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT).onUnmappableCharacter(CodingErrorAction.REPORT)));
            load(reader, store, progress);
        }
        out().println("loaded " + Units.count(progress.loadedLines) + " lines (" + Units.count(progress.keys)
                + " entries) from " + file + " into " + dataDir());
        out().flush();
        return ExitCodes.OK;
    }

    private void load(BufferedReader reader, Store store, Progress p) throws IOException {
        ByteText text = ByteText.of(hex);
        int maxKey = store.options().maxKeyBytes();
        int maxValue = store.options().maxValueBytes();
        WriteOptions writeOptions = sync ? WriteOptions.SYNC : WriteOptions.DEFAULT;
        io.bloomstore.core.Keyspace ks = KeyspaceChoice.of(store, dataDir(), keyspace(), true);
        WriteBatch batch = new WriteBatch();
        long line = 0;
        while (true) {
            String s;
            try {
                s = reader.readLine();
            } catch (CharacterCodingException e) {
                throw badLine(line + 1, p, "not UTF-8 text (write other bytes as \\xNN)");
            }
            if (s == null) {
                break;
            }
            line++;
            if (s.isEmpty()) {
                continue;
            }
            byte[][] kv;
            try {
                kv = TsvRecord.parse(s, text, maxKey, maxValue);
            } catch (IllegalArgumentException e) {
                throw badLine(line, p, e.getMessage());
            }
            if (ks == null) {
                batch.put(kv[0], kv[1]);
            } else {
                batch.put(ks, kv[0], kv[1]);
            }
            if (batch.count() == batchLines) {
                store.write(batch, writeOptions);
                p.committed(line, batch.count());
                batch = new WriteBatch();
            }
        }
        if (batch.count() > 0) {
            store.write(batch, writeOptions);
            p.committed(line, batch.count());
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
        InputStream in = Files.newInputStream(path);
        long size = Files.size(path);
        if (noProgress || size < PROGRESS_THRESHOLD_BYTES || !Terminal.showsProgress()) {
            return in;
        }
        return ProgressBar.wrap(in, new ProgressBarBuilder().setTaskName("Loading").setInitialMax(size)
                .setUnit(" MiB", 1 << 20).setConsumer(new ConsoleProgressBarConsumer(System.err)));
    }

    private CliException badLine(long line, Progress p, String problem) {
        String where = (file.equals("-") ? "stdin" : file) + " line " + line + ": " + problem;
        String state = p.loadedLines == 0 ? "; nothing loaded"
                : "; lines 1-" + p.loadedLines + " are loaded, nothing from line " + (p.loadedLines + 1) + " on";
        return new CliException(ExitCodes.FORMAT, where + state);
    }

    /** Lines and keys written so far (complete batches only). */
    private static final class Progress {
        long loadedLines;
        long keys;

        void committed(long throughLine, int batchKeys) {
            loadedLines = throughLine;
            keys += batchKeys;
        }
    }
}
