package io.bloomstore.cli.store;

import java.io.IOException;

import io.bloomstore.cli.ExitCodes;
import io.bloomstore.cli.Units;
import io.bloomstore.core.Store;
import io.bloomstore.core.StoreStats;
import picocli.CommandLine.Command;

/**
 * {@code bloomstore compact}: flushes, then compacts every level down to the last one, dropping
 * shadowed versions and tombstones; prints the tables before and after.
 *
 * <p>Thread safety: one instance per invocation.
 */
@Command(name = "compact", mixinStandardHelpOptions = true,
        description = "Compact the whole store: drop overwritten versions and deleted keys, reclaim their space.")
public final class CompactCommand extends StoreCommand {

    @Override
    public Integer call() throws IOException {
        StoreStats before;
        StoreStats after;
        try (Store store = open(false)) {
            before = store.stats();
            store.compact();
            // The replaced tables' files are deleted in the background, and a close leaves those
            // not yet deleted to the next open: a user who compacts wants the disk space back now.
            store.awaitCompactions();
            after = store.stats();
        }
        out().println("compacted " + dataDir() + ": " + describe(before) + " -> " + describe(after)
                + ", wrote " + Units.bytes(after.compactionBytesWritten()));
        out().flush();
        return ExitCodes.OK;
    }

    private static String describe(StoreStats s) {
        long bytes = s.levels().stream().mapToLong(StoreStats.LevelStats::tableBytes).sum();
        return Units.count(s.totalFiles()) + " tables, " + Units.bytes(bytes);
    }
}
