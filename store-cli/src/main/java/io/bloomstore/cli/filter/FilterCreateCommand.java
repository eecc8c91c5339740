package io.bloomstore.cli.filter;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.Callable;

import io.bloomstore.bloom.BloomMath;
import io.bloomstore.bloom.FilterFile;
import io.bloomstore.bloom.FilterKind;
import io.bloomstore.bloom.Filters;
import io.bloomstore.bloom.MembershipFilter;
import io.bloomstore.bloom.storage.Storage;
import io.bloomstore.cli.CliException;
import io.bloomstore.cli.ExitCodes;
import io.bloomstore.cli.Terminal;
import io.bloomstore.cli.Units;
import me.tongfei.progressbar.ConsoleProgressBarConsumer;
import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code bloomstore filter create}: builds a filter file from a text file of keys, one per
 * line (UTF-8; each line's bytes are the key). The filter is sized for the number of lines
 * (counted first) or {@code --n}, built in native memory and written atomically.
 * Incremental kinds are filled key by key ({@link Filters#create}); static kinds get every
 * key's hash at once ({@link Filters#build}), so every kind the library offers works here.
 *
 * <p>Thread safety: one instance per invocation.
 */
@Command(name = "create", mixinStandardHelpOptions = true,
        description = "Build a filter file from a file of keys, one per line (UTF-8).")
public final class FilterCreateCommand implements Callable<Integer> {
    /** Inputs of at least this many keys show a progress bar on stderr. */
    static final long PROGRESS_THRESHOLD = 1_000_000;

    @Spec
    private CommandSpec spec;

    @Option(names = "--from", required = true, paramLabel = "FILE", description = "Keys, one per line.")
    private Path from;

    @Option(names = "--out", required = true, paramLabel = "F", description = "Filter file to write.")
    private Path out;

    @Option(names = "--fpr", defaultValue = "0.01", paramLabel = "P",
            description = "Target false-positive rate. Default: ${DEFAULT-VALUE}.")
    private double fpr;

    @Option(names = "--kind", defaultValue = "bloom", converter = FilterKindConverter.class,
            completionCandidates = FilterKindConverter.class, paramLabel = "KIND",
            description = "Filter kind: ${COMPLETION-CANDIDATES}. Default: ${DEFAULT-VALUE}.")
    private FilterKind kind;

    @Option(names = "--n", paramLabel = "N", description = "Expected keys (default: the number of lines).")
    private Long n;

    @Override
    public Integer call() throws IOException {
        if (!(fpr > 0 && fpr < 1)) {
            throw new IllegalArgumentException("--fpr must be between 0 and 1 (exclusive), got " + fpr);
        }
        if (n != null && n < 1) {
            throw new IllegalArgumentException("--n must be positive, got " + n);
        }
        try {
            long expected = n != null ? n : Math.max(1, countLines(from));
            try (MembershipFilter filter = build(expected)) {
                FilterFile.write(filter, out);
                report(filter);
            }
        } catch (CharacterCodingException e) {
            throw new CliException(ExitCodes.FORMAT, from + " is not UTF-8 text (expected one key per line)", e);
        }
        return ExitCodes.OK;
    }

    private MembershipFilter build(long expected) throws IOException {
        boolean incremental = Filters.isIncremental(kind);
        MembershipFilter filter = incremental ? Filters.create(kind, expected, fpr, Storage.NATIVE) : null;
        long[] hashes = incremental ? null : new long[(int) Math.min(expected, Integer.MAX_VALUE - 8)];
        int count = 0;
        try (BufferedReader in = Files.newBufferedReader(from, StandardCharsets.UTF_8);
             ProgressBar progress = expected >= PROGRESS_THRESHOLD && Terminal.showsProgress()
                     ? progressBar(expected) : null) {
            String line;
            while ((line = in.readLine()) != null) {
                byte[] key = line.getBytes(StandardCharsets.UTF_8);
                if (incremental) {
                    if (!filter.add(key)) {
                        throw new CliException(ExitCodes.USAGE, "the " + kind.cliName() + " filter is full after "
                                + Units.count(filter.count()) + " keys; give a larger --n");
                    }
                } else {
                    if (count == hashes.length) {
                        hashes = Arrays.copyOf(hashes, (int) Math.min(Integer.MAX_VALUE - 8, 2L * hashes.length + 16));
                    }
                    hashes[count++] = Filters.hash(key);
                }
                if (progress != null) {
                    progress.step();
                }
            }
        } catch (IOException | RuntimeException e) {
            if (filter != null) {
                filter.close();
            }
            throw e;
        }
        return incremental ? filter : Filters.build(kind, BloomMath.bitsPerKeyFor(fpr), hashes, count, Storage.NATIVE);
    }

    private static ProgressBar progressBar(long total) {
        return new ProgressBarBuilder().setTaskName("Adding keys").setInitialMax(total).setUnit(" keys", 1)
                .setConsumer(new ConsoleProgressBarConsumer(System.err)).build();
    }

    private void report(MembershipFilter filter) throws IOException {
        PrintWriter w = spec.commandLine().getOut();
        long keys = filter.count();
        w.printf(Locale.ROOT, "wrote %s: %s filter, %s keys, %s bits (%.2f bits/key%s), expected FPR %s, %s%n",
                out, kind.cliName(), Units.count(keys), Units.count(filter.bitSize()),
                (double) filter.bitSize() / Math.max(1, keys),
                kind == FilterKind.BLOOM || kind == FilterKind.BLOCKED_BLOOM ? ", k=" + filter.header().k() : "",
                Units.percent(filter.expectedFpp()), Units.bytes(Files.size(out)));
        w.flush();
    }

    /** Lines as {@link BufferedReader#readLine} counts them, by scanning bytes for '\n'. */
    static long countLines(Path file) throws IOException {
        long lines = 0;
        int last = '\n';
        byte[] buf = new byte[1 << 16];
        try (InputStream in = Files.newInputStream(file)) {
            int r;
            while ((r = in.read(buf)) > 0) {
                for (int i = 0; i < r; i++) {
                    if (buf[i] == '\n') {
                        lines++;
                    }
                }
                last = buf[r - 1];
            }
        }
        return last == '\n' ? lines : lines + 1;
    }
}
