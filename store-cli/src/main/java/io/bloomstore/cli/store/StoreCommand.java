package io.bloomstore.cli.store;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.concurrent.Callable;

import io.bloomstore.cli.Main;
import io.bloomstore.core.Store;
import io.bloomstore.core.StoreOptions;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * What every store command shares: the store directory ({@code --data} after the command name,
 * else the global {@code bloomstore --data DIR}, else {@value Main#DEFAULT_DATA_DIR}), opening
 * the store with default {@link StoreOptions} through {@link StoreAccess}, and the output stream.
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

    /** The store directory this command works on. */
    Path dataDir() {
        return data != null ? data : ((Main) spec.root().userObject()).dataDir();
    }

    /** Opens the store; {@code create} for commands that may create it. */
    Store open(boolean create) throws IOException {
        return StoreAccess.open(dataDir(), StoreOptions.defaults(), create);
    }

    PrintWriter out() {
        return spec.commandLine().getOut();
    }
}
