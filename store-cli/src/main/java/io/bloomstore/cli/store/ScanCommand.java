package io.bloomstore.cli.store;

import java.io.IOException;
import java.io.PrintWriter;

import io.bloomstore.cli.ExitCodes;
import io.bloomstore.core.KeyValue;
import io.bloomstore.core.PrefixExtractor;
import io.bloomstore.core.Store;
import io.bloomstore.core.StoreIterator;
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
        if (limit != null && limit < 0) {
            throw new IllegalArgumentException("--limit must not be negative, got " + limit);
        }
        ByteText text = ByteText.of(hex);
        if (prefix != null && (from != null || to != null)) {
            throw new IllegalArgumentException("--prefix cannot be combined with --from or --to");
        }
        byte[] lo = from == null ? null : text.decode(from);
        byte[] hi = to == null ? null : text.decode(to);
        if (prefix != null) {
            lo = text.decode(prefix);
            hi = PrefixExtractor.successor(lo);
        }
        long max = limit == null ? Long.MAX_VALUE : limit;
        PrintWriter out = out();
        try (Store store = openReadOnly();
             StoreIterator it = reverse ? store.reverseIterator(lo, hi)
                     : prefix != null ? store.prefixIterator(lo) : store.iterator(lo, hi)) {
            for (long n = 0; n < max && it.hasNext(); n++) {
                KeyValue kv = it.next();
                out.print(text.encode(kv.key()));
                out.print('\t');
                out.print(text.encode(kv.value()));
                out.print('\n');
            }
        } finally {
            out.flush();
        }
        return ExitCodes.OK;
    }
}
