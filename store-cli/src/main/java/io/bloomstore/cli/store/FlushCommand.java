package io.bloomstore.cli.store;

import java.io.IOException;

import io.bloomstore.cli.ExitCodes;
import io.bloomstore.cli.Units;
import io.bloomstore.core.Store;
import io.bloomstore.core.StoreStats;
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
        StoreStats stats;
        try (Store store = open(false)) {
            store.flush();
            stats = store.stats();
        }
        long bytes = stats.levels().stream().mapToLong(StoreStats.LevelStats::tableBytes).sum();
        out().println("flushed " + dataDir() + ": " + Units.count(stats.totalFiles()) + " tables, "
                + Units.bytes(bytes) + ", filters " + Units.bytes(stats.filterBytes()));
        out().flush();
        return ExitCodes.OK;
    }
}
