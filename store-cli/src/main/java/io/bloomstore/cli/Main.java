package io.bloomstore.cli;

import java.io.InputStream;
import java.io.PrintWriter;
import java.nio.file.Path;

import io.bloomstore.cli.bench.BenchCommand;
import io.bloomstore.cli.streams.StreamsBenchCommand;
import io.bloomstore.cli.family.ExperimentCommand;
import io.bloomstore.cli.filter.FilterCommand;
import io.bloomstore.cli.jmh.JmhCommand;
import io.bloomstore.cli.store.CompactCommand;
import io.bloomstore.cli.store.DeleteCommand;
import io.bloomstore.cli.store.FlushCommand;
import io.bloomstore.cli.store.GetCommand;
import io.bloomstore.cli.store.LoadCommand;
import io.bloomstore.cli.store.PutCommand;
import io.bloomstore.cli.store.RepairCommand;
import io.bloomstore.cli.store.ScanCommand;
import io.bloomstore.cli.store.StatsCommand;
import io.bloomstore.cli.store.VerifyCommand;
import io.bloomstore.cli.stress.StressCommand;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ScopeType;
import picocli.CommandLine.Spec;

/**
 * The {@code bloomstore} command: entry point of {@code bloomstore.jar}.
 *
 * <p>Errors: every command reports a failure as one line on stderr starting with
 * {@code bloomstore: } and exits with a code that says what kind of failure it was; the
 * stack trace is printed only with the global {@code --verbose}. The codes
 * ({@link ExitCodes}):
 * <pre>
 *   0  OK          1  NOT_FOUND (a key absent or not found)   2  USAGE (bad arguments or numbers)
 *   3  IO (missing file, permission, disk)   4  CORRUPTION   5  FORMAT (not a BloomStore file,
 *   other format version)   6  LOCKED (store open elsewhere)   7  NOT_A_STORE (the --data
 *   directory is missing, empty, a file or something else)   70  INTERNAL (a bug)
 * </pre>
 * {@link ErrorHandler} maps exception kinds to those codes: {@link CliException} carries its
 * own, {@code CorruptionException} is 4, {@code NotAFilterFileException} and
 * {@code FormatVersionException} 5, {@code LockedException} 6, other {@code IOException}s 3,
 * {@code IllegalArgumentException} 2, anything else 70. New commands throw those and get the
 * scheme for free; they register here as subcommands.
 *
 * <p>The store commands ({@code put get delete scan load stats flush compact verify repair}) work on the
 * directory of the global {@code --data DIR} option (also accepted after the command name), by default
 * {@value #DEFAULT_DATA_DIR} in the working directory.
 *
 * <p>Thread safety: one instance per invocation.
 */
@Command(name = "bloomstore", mixinStandardHelpOptions = true, version = "BloomStore 0.1.0",
        description = "Embedded LSM key-value store with off-heap, memory-mapped filters.",
        subcommands = {PutCommand.class, GetCommand.class, DeleteCommand.class, ScanCommand.class,
            LoadCommand.class, StatsCommand.class, FlushCommand.class, CompactCommand.class, VerifyCommand.class,
            RepairCommand.class, StressCommand.class, FilterCommand.class, BenchCommand.class, StreamsBenchCommand.class, ExperimentCommand.class, JmhCommand.class},
        footer = {"", "Exit codes: 0 ok, 1 key absent or not found, 2 usage, 3 I/O or missing file,",
            "4 corruption, 5 not a BloomStore file, other format version or bad load line,",
            "6 store locked, 7 not a store directory, 70 internal error."})
public final class Main implements Runnable {
    /** The store directory when {@code --data} is not given. */
    public static final String DEFAULT_DATA_DIR = "bloomstore-data";

    private final InputStream stdin;

    @Spec
    private CommandSpec spec;

    @Option(names = "--verbose", scope = ScopeType.INHERIT, description = "Print stack traces with errors.")
    private boolean verbose;

    @Option(names = "--data", paramLabel = "DIR",
            description = "Store directory of the store commands (put, get, ...); default: "
                    + DEFAULT_DATA_DIR + " in the working directory.")
    private Path data;

    public Main() {
        this(System.in);
    }

    /** A command reading keys (for {@code -}) from {@code stdin}. */
    public Main(InputStream stdin) {
        this.stdin = stdin;
    }

    public static void main(String[] args) {
        System.exit(commandLine(new Main()).execute(args));
    }

    /** The configured command line: subcommands, error handling and exit codes. */
    public static CommandLine commandLine(Main main) {
        ErrorHandler handler = new ErrorHandler(main);
        return new CommandLine(main)
                .setExecutionExceptionHandler(handler)
                .setParameterExceptionHandler(handler);
    }

    /** As {@link #commandLine(Main)}, writing to the given streams (tests capture them). */
    public static CommandLine commandLine(Main main, PrintWriter out, PrintWriter err) {
        return commandLine(main).setOut(out).setErr(err);
    }

    public boolean verbose() {
        return verbose;
    }

    /** The store directory of the store commands: {@code --data}, else {@value #DEFAULT_DATA_DIR}. */
    public Path dataDir() {
        return data != null ? data : Path.of(DEFAULT_DATA_DIR);
    }

    public InputStream stdin() {
        return stdin;
    }

    @Override
    public void run() {
        throw new ParameterException(spec.commandLine(), "missing command");
    }
}
