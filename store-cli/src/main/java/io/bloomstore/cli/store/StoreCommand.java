package io.bloomstore.cli.store;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.Callable;

import io.bloomstore.cli.Main;
import io.bloomstore.bloom.RangeFilter;
import io.bloomstore.core.MergeOperator;
import io.bloomstore.core.MergeOperators;
import io.bloomstore.core.PrefixExtractor;
import io.bloomstore.core.RangeFilterOptions;
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
 * {@link OpenFilesLimit}; the prefix extractor and range filter of {@code --prefix-extractor} and
 * {@code --range-filter-bits}), and the output stream.
 *
 * <p>The scan filters are options of one open, not settings of the store: each table records in
 * its filter sidecar the extractor and range filter it was written with, a table is filtered only
 * by filters it holds, and an open without the option consults none of that kind. So a store may be
 * opened with or without them, or with other ones, and every scan stays correct.
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

    @Option(names = "--keyspace", paramLabel = "NAME",
            description = "The keyspace to work in (default: the --keyspace given before the command, else the "
                    + "default keyspace). put and load create it if the store has none by that name; the other "
                    + "commands need it to exist.")
    String keyspace;

    /** The keyspace this command works in; null for the default one. */
    String keyspace() {
        return keyspace != null ? keyspace : ((Main) spec.root().userObject()).keyspace();
    }

    /** The store directory this command works on. */
    Path dataDir() {
        return data != null ? data : ((Main) spec.root().userObject()).dataDir();
    }

    @Option(names = "--prefix-extractor", paramLabel = "SPEC",
            description = "Prefix filters: fixed:N (a key's first N bytes) or upto:C (up to and including the first "
                    + "byte C, one character or two hex digits). Tables written get a filter of their prefixes; "
                    + "scans within one prefix skip tables it rules out. Tables of another extractor are scanned "
                    + "unfiltered.")
    String prefixExtractor;

    @Option(names = "--merge-operator", paramLabel = "NAME",
            description = "The merge operator the store was written with, for reading keys with merge operands: "
                    + "int64add (8-byte big-endian counters) or append[:SEP] (SEP one character, or none).")
    String mergeOperator;

    @Option(names = "--range-filter-bits", paramLabel = "B",
            description = "Range filters: tables written get a range filter of B bits per key (3 to "
                    + RangeFilter.MAX_BITS_PER_VALUE + ") over their keys' first 8 bytes, and scans whose [--from, --to)"
                    + " spans at most 2^L such numbers skip tables it rules out. Without it no range filter is"
                    + " consulted; tables written without it are scanned unfiltered.")
    Double rangeFilterBits;

    @Option(names = "--range-filter-block-bits", paramLabel = "L",
            description = "With --range-filter-bits: the longest range the filters answer, 2^L numbers of the first 8"
                    + " key bytes (0 to " + RangeFilter.MAX_BLOCK_BITS + ", default "
                    + RangeFilterOptions.DEFAULT_BLOCK_BITS + ").")
    Integer rangeFilterBlockBits;

    /** Opens the store; {@code create} for commands that may create it. */
    Store open(boolean create) throws IOException {
        return StoreAccess.open(dataDir(), options(), create);
    }

    /** Opens the store read-only, for a command that only reads. */
    Store openReadOnly() throws IOException {
        return StoreAccess.openReadOnly(dataDir(), options(), spec.commandLine().getErr());
    }

    /**
     * The store options of this command: the defaults with its {@code maxOpenFiles}, prefix extractor
     * and range filter.
     */
    StoreOptions options() {
        int limit = maxOpenFiles != null ? maxOpenFiles : OpenFilesLimit.forThisProcess();
        StoreOptions.Builder b = StoreOptions.builder()
                .prefixExtractor(prefixExtractor == null ? null : parseExtractor(prefixExtractor))
                .rangeFilter(rangeFilter())
                .mergeOperator(mergeOperator == null ? null : parseMergeOperator(mergeOperator));
        try {
            return b.maxOpenFiles(limit).build();
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--max-open-files: " + e.getMessage());
        }
    }

    /** {@code --merge-operator}'s operator. */
    private MergeOperator parseMergeOperator(String name) {
        if (name.equals("int64add")) {
            return MergeOperators.int64Add();
        }
        if (name.equals("append")) {
            return MergeOperators.append(new byte[0]);
        }
        if (name.startsWith("append:") && name.length() == "append:".length() + 1) {
            return MergeOperators.append(name.substring("append:".length()).getBytes(StandardCharsets.UTF_8));
        }
        throw new CommandLine.ParameterException(spec.commandLine(), "--merge-operator: '" + name
                + "' is not int64add, append or append:C");
    }

    /** The range filter options of {@code --range-filter-bits} and {@code --range-filter-block-bits}, or null. */
    RangeFilterOptions rangeFilter() {
        if (rangeFilterBits == null) {
            if (rangeFilterBlockBits != null) {
                throw new CommandLine.ParameterException(spec.commandLine(),
                        "--range-filter-block-bits needs --range-filter-bits");
            }
            return null;
        }
        try {
            return new RangeFilterOptions(rangeFilterBits, rangeFilterBlockBits == null
                    ? RangeFilterOptions.DEFAULT_BLOCK_BITS : rangeFilterBlockBits);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--range-filter-bits/--range-filter-block-bits: "
                    + e.getMessage());
        }
    }

    /** {@code fixed:N} or {@code upto:C} (C one character, or two hex digits). */
    static PrefixExtractor parseExtractor(String spec) {
        if (spec.startsWith("fixed:")) {
            try {
                return PrefixExtractor.fixed(Integer.parseInt(spec.substring(6)));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("--prefix-extractor fixed:N needs a number of bytes, got " + spec);
            }
        }
        if (spec.startsWith("upto:")) {
            String c = spec.substring(5);
            if (c.length() == 1 && c.charAt(0) < 0x80) {
                return PrefixExtractor.upTo((byte) c.charAt(0));
            }
            if (c.length() == 2 && c.chars().allMatch(ch -> Character.digit(ch, 16) >= 0)) {
                return PrefixExtractor.upTo((byte) Integer.parseInt(c, 16));
            }
        }
        throw new IllegalArgumentException("--prefix-extractor must be fixed:N or upto:C (C one ASCII character or two"
                + " hex digits), got " + spec);
    }

    PrintWriter out() {
        return spec.commandLine().getOut();
    }
}
