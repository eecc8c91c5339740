package io.bloomstore.cli.store;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.concurrent.Callable;

import io.bloomstore.cli.Main;
import io.bloomstore.core.Store;
import io.bloomstore.core.StoreOptions;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * What every store command shares: the store directory ({@code --data} after the command name,
 * else the global {@code bloomstore --data DIR}, else {@value Main#DEFAULT_DATA_DIR}), opening
 * the store with default {@link StoreOptions} through {@link StoreAccess} (with {@code maxOpenFiles}
 * from {@code --max-open-files}, else fitted to the process's descriptor limit by
 * {@link OpenFilesLimit}), and the output stream.
 *
 * <p>Thread safety: one instance per invocation.
 */
abstract class StoreCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = "--data", paramLabel = "DIR",
            description = "Store directory (default: the --data given before the command, else "
                    + Main.DEFAULT_DATA_DIR + " in the working directory).")
    Path data;

    @Option(names = "--max-open-files", paramLabel = "N",
            description = "Descriptors the store may hold open: table files beyond it are closed least recently"
                    + " used first and reopened on demand; -1 keeps every table open (default: half of this"
                    + " process's open-file limit, at most 1000).")
    Integer maxOpenFiles;

    /** The store directory this command works on. */
    Path dataDir() {
        return data != null ? data : ((Main) spec.root().userObject()).dataDir();
    }

    /** Opens the store; {@code create} for commands that may create it. */
    Store open(boolean create) throws IOException {
        return StoreAccess.open(dataDir(), options(), create);
    }

    /** The store options of this command: the defaults with its {@code maxOpenFiles}. */
    StoreOptions options() {
        int limit = maxOpenFiles != null ? maxOpenFiles : OpenFilesLimit.forThisProcess();
        try {
            return StoreOptions.builder().maxOpenFiles(limit).build();
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--max-open-files: " + e.getMessage());
        }
    }

    PrintWriter out() {
        return spec.commandLine().getOut();
    }
}
