package io.bloomstore.cli;

import java.io.InputStream;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Supplier;

import io.bloomstore.cli.bench.BenchCommand;
import io.bloomstore.cli.streams.StreamsBenchCommand;
import io.bloomstore.cli.family.ExperimentCommand;
import io.bloomstore.cli.filter.FilterCommand;
import io.bloomstore.cli.jmh.JmhCommand;
import io.bloomstore.cli.store.BackupCommand;
import io.bloomstore.cli.store.CheckpointCommand;
import io.bloomstore.cli.store.CompactCommand;
import io.bloomstore.cli.store.DeleteCommand;
import io.bloomstore.cli.store.DeleteRangeCommand;
import io.bloomstore.cli.store.FlushCommand;
import io.bloomstore.cli.store.GetCommand;
import io.bloomstore.cli.store.IngestCommand;
import io.bloomstore.cli.store.LoadCommand;
import io.bloomstore.cli.store.PutCommand;
import io.bloomstore.cli.store.RepairCommand;
import io.bloomstore.cli.store.RestoreCommand;
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
 * <p>The store commands ({@code put get delete scan load ingest stats flush compact verify repair checkpoint backup
 * restore}) work on the
 * directory of the global {@code --data DIR} option (also accepted after the command name), by default
 * {@value #DEFAULT_DATA_DIR} in the working directory.
 *
 * <p>Thread safety: one instance per invocation.
 */
@Command(name = "bloomstore", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        description = "Embedded LSM key-value store with off-heap, memory-mapped filters.",
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

    @Option(names = "--keyspace", paramLabel = "NAME",
            description = "Keyspace of the store commands (default: the store's default keyspace).")
    private String keyspace;

    public Main() {
        this(System.in);
    }

    /** A command reading keys (for {@code -}) from {@code stdin}. */
    public Main(InputStream stdin) {
        this.stdin = stdin;
    }

    /** The jar's entry point, {@link Start#main}. */
    public static void main(String[] args) {
        Start.main(args);
    }

    /** Runs {@code args} through picocli: every command but the one-key get {@link Start} answers. */
    static int execute(String[] args) {
        return commandLine(new Main(), args).execute(args);
    }

    /**
     * The command line that runs {@code args}: for a store command, one that knows only that
     * command; otherwise every command.
     */
    public static CommandLine commandLine(Main main, String[] args) {
        String command = Start.commandName(args);
        Supplier<Object> only = command == null ? null : ONE_SHOT.get(command);
        return only == null ? commandLine(main) : commandLine(main, Map.of(command, only));
    }

    /**
     * The subcommands in the order {@code --help} lists them. Each is made only when registered, so
     * a one-shot store command ({@link #ONE_SHOT}) builds the model of itself alone: picocli
     * reflects over every registered command at start-up, and the benchmark's and experiments'
     * commands would load RocksDB's, Kafka's and JMH's option classes for a {@code get}.
     */
    private static Map<String, Supplier<Object>> allCommands() {
        Map<String, Supplier<Object>> all = new LinkedHashMap<>(ONE_SHOT);
        all.put("stress", StressCommand::new);
        all.put("filter", FilterCommand::new);
        all.put("bench", BenchCommand::new);
        all.put("bench-streams", StreamsBenchCommand::new);
        all.put("experiment", ExperimentCommand::new);
        all.put("jmh", JmhCommand::new);
        all.put("completion", CompletionCommand::new);
        return all;
    }

    /** The store commands: the ones a user or a script runs once per process, on one store. */
    private static final Map<String, Supplier<Object>> ONE_SHOT = oneShot();

    private static Map<String, Supplier<Object>> oneShot() {
        Map<String, Supplier<Object>> m = new LinkedHashMap<>();
        m.put("put", PutCommand::new);
        m.put("get", GetCommand::new);
        m.put("delete", DeleteCommand::new);
        m.put("delete-range", DeleteRangeCommand::new);
        m.put("scan", ScanCommand::new);
        m.put("load", LoadCommand::new);
        m.put("stats", StatsCommand::new);
        m.put("flush", FlushCommand::new);
        m.put("compact", CompactCommand::new);
        m.put("verify", VerifyCommand::new);
        m.put("repair", RepairCommand::new);
        m.put("checkpoint", CheckpointCommand::new);
        m.put("backup", BackupCommand::new);
        m.put("restore", RestoreCommand::new);
        m.put("ingest", IngestCommand::new);
        return Collections.unmodifiableMap(m);
    }

    /** The configured command line: every subcommand, error handling and exit codes. */
    public static CommandLine commandLine(Main main) {
        return commandLine(main, allCommands());
    }

    /** As {@link #commandLine(Main)}, with only the given subcommands. */
    static CommandLine commandLine(Main main, Map<String, Supplier<Object>> subcommands) {
        ErrorHandler handler = new ErrorHandler(main);
        CommandLine cl = new CommandLine(main);
        subcommands.forEach((name, command) -> cl.addSubcommand(name, command.get()));
        return cl.setExecutionExceptionHandler(handler)
                .setParameterExceptionHandler(handler);
    }

    /** As {@link #commandLine(Main)}, writing to the given streams (tests capture them). */
    public static CommandLine commandLine(Main main, PrintWriter out, PrintWriter err) {
        return commandLine(main).setOut(out).setErr(err);
    }

    /** As {@link #commandLine(Main, String[])}, writing to the given streams (tests capture them). */
    public static CommandLine commandLine(Main main, String[] args, PrintWriter out, PrintWriter err) {
        return commandLine(main, args).setOut(out).setErr(err);
    }

    public boolean verbose() {
        return verbose;
    }

    /** The store directory of the store commands: {@code --data}, else {@value #DEFAULT_DATA_DIR}. */
    public Path dataDir() {
        return data != null ? data : Path.of(DEFAULT_DATA_DIR);
    }

    /** The keyspace of the store commands ({@code --keyspace}), or null for the default one. */
    public String keyspace() {
        return keyspace;
    }

    public InputStream stdin() {
        return stdin;
    }

    @Override
    public void run() {
        throw new ParameterException(spec.commandLine(), "missing command");
    }
}
