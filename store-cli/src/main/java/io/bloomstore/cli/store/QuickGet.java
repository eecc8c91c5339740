package io.bloomstore.cli.store;

import java.io.PrintWriter;
import java.nio.file.Path;

import io.bloomstore.cli.ExitCodes;
import io.bloomstore.cli.Failures;
import io.bloomstore.cli.Main;
import io.bloomstore.core.Store;
import io.bloomstore.core.StoreOptions;

/**
 * The one-key {@code get} without picocli: {@code [--verbose] [--data DIR] get [--data DIR] [--hex]
 * KEY}, the command a script runs most, answered exactly as {@link GetCommand} answers it (same
 * output, same one-line errors, same exit codes) but without building picocli's model, which cost a
 * one-shot get some 190 ms of its 460: picocli's classes are Java 5 class files, which class-data
 * sharing cannot hold, so every start loads and verifies them. Any other form — another option,
 * {@code --help}, several keys, a key starting with {@code -} — is left to picocli
 * ({@link #tryRun} returns -1), so nothing is parsed here that picocli would parse differently.
 *
 * <p>Thread safety: stateless.
 */
public final class QuickGet {
    /** Returned by {@link #tryRun} when the arguments are not a plain one-key get. */
    public static final int NOT_HANDLED = -1;

    private QuickGet() {
    }

    /**
     * Runs {@code args} when they are a plain one-key get, writing to {@code out} and {@code err};
     * the exit code, or {@link #NOT_HANDLED}.
     */
    public static int tryRun(String[] args, PrintWriter out, PrintWriter err) {
        String data = null;
        boolean verbose = false;
        boolean hex = false;
        String key = null;
        boolean seenGet = false;
        int[] dataGiven = new int[2];
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if (a.equals("--data") && i + 1 < args.length) {
                data = args[++i];
                dataGiven[seenGet ? 1 : 0]++;
            } else if (a.startsWith("--data=")) {
                data = a.substring("--data=".length());
                dataGiven[seenGet ? 1 : 0]++;
            } else if (!seenGet && a.equals("--verbose") && !verbose) {
                verbose = true;
            } else if (!seenGet && a.equals("get")) {
                seenGet = true;
            } else if (seenGet && a.equals("--hex") && !hex) {
                hex = true;
            } else if (seenGet && key == null && !a.startsWith("-")) {
                key = a;
            } else {
                return NOT_HANDLED;
            }
        }
        if (!seenGet || key == null || data != null && data.isEmpty() || dataGiven[0] > 1 || dataGiven[1] > 1) {
            return NOT_HANDLED;
        }
        try {
            ByteText text = ByteText.of(hex);
            byte[] k = text.decode(key);
            Path dir = data != null ? Path.of(data) : Path.of(Main.DEFAULT_DATA_DIR);
            StoreOptions options = StoreOptions.builder().maxOpenFiles(OpenFilesLimit.forThisProcess())
                    .blockCacheBytes(0).build();
            byte[] value;
            try (Store store = StoreAccess.openReadOnly(dir, options)) {
                value = store.get(k);
            }
            if (value == null) {
                return ExitCodes.NOT_FOUND;
            }
            out.println(text.encode(value));
            out.flush();
            return ExitCodes.OK;
        } catch (Exception e) {
            err.println("bloomstore: " + Failures.message(e));
            if (verbose) {
                e.printStackTrace(err);
            }
            err.flush();
            return Failures.exitCode(e);
        }
    }
}
