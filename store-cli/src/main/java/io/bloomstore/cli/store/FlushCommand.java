package io.bloomstore.cli.store;

import java.io.IOException;

import picocli.CommandLine.Command;

/**
 * {@code bloomstore flush}: writes what the write-ahead log still holds into a table (with its
 * filter) and reports the tables the store now has.
 *
 * <p>Thread safety: one instance per invocation.
 */
@Command(name = "flush", mixinStandardHelpOptions = true,
        description = "Write the memtable (recovered from the WAL) to a table with its filter.")
public final class FlushCommand extends StoreCommand {

    @Override
    public Integer call() throws IOException {
        return StoreActions.flush(dataDir(), options(), out());
    }
}
