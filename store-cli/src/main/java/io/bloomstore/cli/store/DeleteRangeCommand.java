package io.bloomstore.cli.store;

import java.io.IOException;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code bloomstore delete-range FROM TO}: deletes every key in [FROM, TO) with one range tombstone
 * ({@link io.bloomstore.core.Store#deleteRange}). Prints nothing on success; FROM equal to TO deletes
 * nothing, FROM after TO is a usage error.
 *
 * <p>Thread safety: one instance per invocation.
 */
@Command(name = "delete-range", mixinStandardHelpOptions = true,
        description = {"Delete every key from FROM (inclusive) to TO (exclusive) with one range tombstone, as "
                + "RocksDB's DeleteRange: one write however many keys the range holds. Compaction later drops "
                + "what it covers, and tables it covers whole without reading them.",
                "FROM equal to TO deletes nothing; FROM after TO is refused."})
public final class DeleteRangeCommand extends StoreCommand {
    @Parameters(index = "0", paramLabel = "FROM", description = "First key deleted. UTF-8 text with escapes \\\\ \\t \\n \\r \\xNN.")
    private String from;

    @Parameters(index = "1", paramLabel = "TO", description = "First key kept after the range (exclusive bound).")
    private String to;

    @Option(names = "--hex", description = "FROM and TO are hex digits.")
    private boolean hex;

    @Option(names = "--sync", description = "Force the deletion to the device before returning.")
    private boolean sync;

    @Override
    public Integer call() throws IOException {
        return StoreActions.deleteRange(dataDir(), options(), keyspace(), hex, sync, from, to);
    }
}
