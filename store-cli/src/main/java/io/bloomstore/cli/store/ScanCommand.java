package io.bloomstore.cli.store;

import java.io.IOException;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code bloomstore scan}: prints the keys of a range in order, one {@code KEY<TAB>VALUE} line
 * each, escaped as {@link ByteText} says — the format {@code load} reads, so a scan's output
 * loads back into an identical store.
 *
 * <p>Thread safety: one instance per invocation.
 */
@Command(name = "scan", mixinStandardHelpOptions = true,
        description = {"Print KEY<TAB>VALUE lines for the keys in [--from, --to), in key order.",
            "The output is load's input format: scan | load copies a store."})
public final class ScanCommand extends StoreCommand {
    @Option(names = "--from", paramLabel = "K", description = "First key (inclusive; default: the smallest).")
    private String from;

    @Option(names = "--to", paramLabel = "K", description = "End key (exclusive; default: past the largest).")
    private String to;

    @Option(names = "--prefix", paramLabel = "P", description = {"Only the keys starting with P (instead of --from and "
            + "--to).", "With --prefix-extractor, tables whose prefix filter rules P out are not read."})
    private String prefix;

    @Option(names = "--limit", paramLabel = "N", description = "Print at most N keys.")
    private Long limit;

    @Option(names = "--reverse", description = "Descending order (still the keys in [--from, --to)).")
    private boolean reverse;

    @Option(names = "--hex", description = "Bounds are hex digits, and keys and values are printed as hex.")
    private boolean hex;

    @Override
    public Integer call() throws IOException {
        return StoreActions.scan(dataDir(), options(), keyspace(), from, to, prefix, limit, reverse, hex, out(), spec.commandLine().getErr());
    }
}
