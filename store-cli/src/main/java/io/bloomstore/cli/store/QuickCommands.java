package io.bloomstore.cli.store;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;

import io.bloomstore.cli.Failures;
import io.bloomstore.cli.Main;
import io.bloomstore.core.StoreOptions;

/**
 * The short store commands without picocli: {@code get KEY}, {@code put KEY VALUE},
 * {@code delete KEY}, {@code delete-range FROM TO}, {@code scan}, {@code stats} and {@code flush} in their
 * common forms, answered
 * exactly as their picocli commands answer them (same output, same one-line errors, same exit
 * codes; both run {@link StoreActions}). Building picocli's model cost a one-shot command 100–200 ms
 * of processor time: picocli's classes are Java 5 class files, which class-data sharing cannot
 * hold, so every start loads and verifies them, and the model is built by reflection over every
 * option of the command.
 *
 * <p>Taken here: the global {@code --verbose} and {@code --data DIR} (or {@code --data=DIR})
 * before the command, {@code --data} once more after it, and each command's own options, each at
 * most once, with their values as separate arguments or after {@code =}:
 * <ul>
 *   <li>{@code get [--hex] KEY}</li>
 *   <li>{@code put [--hex] [--sync] KEY VALUE}</li>
 *   <li>{@code delete [--hex] [--sync] KEY}</li>
 *   <li>{@code delete-range [--hex] [--sync] FROM TO}</li>
 *   <li>{@code scan [--from K] [--to K] [--prefix P] [--limit N] [--reverse] [--hex]}</li>
 *   <li>{@code stats [--json]}</li>
 *   <li>{@code flush}</li>
 * </ul>
 * Any other form — another option ({@code --help}, {@code --max-open-files}, the scan filters'
 * options ...), an option twice, a positional argument or option value starting with {@code -},
 * a wrong number of positional arguments, a {@code --limit} that is not a plain number — is left
 * to picocli ({@link #tryRun} returns {@link #NOT_HANDLED}), so nothing is parsed here that
 * picocli would parse differently.
 *
 * <p>Thread safety: stateless.
 */
public final class QuickCommands {
    /** Returned by {@link #tryRun} when the arguments are not a form this class takes. */
    public static final int NOT_HANDLED = -1;

    /** A command's options: flags, options with a value, and how many positional arguments. */
    private record Form(Set<String> flags, Set<String> valued, int positionals) {
    }

    private static final Map<String, Form> FORMS = Map.of(
            "get", new Form(Set.of("--hex"), Set.of(), 1),
            "put", new Form(Set.of("--hex", "--sync"), Set.of(), 2),
            "delete", new Form(Set.of("--hex", "--sync"), Set.of(), 1),
            "delete-range", new Form(Set.of("--hex", "--sync"), Set.of(), 2),
            "scan", new Form(Set.of("--reverse", "--hex"), Set.of("--from", "--to", "--prefix", "--limit"), 0),
            "stats", new Form(Set.of("--json"), Set.of(), 0),
            "flush", new Form(Set.of(), Set.of(), 0));

    private QuickCommands() {
    }

    /**
     * Runs {@code args} when they are a form this class takes, writing to {@code out} and
     * {@code err}: the exit code, or {@link #NOT_HANDLED}.
     */
    public static int tryRun(String[] args, PrintWriter out, PrintWriter err) {
        String data = null;
        int dataBefore = 0;
        int dataAfter = 0;
        boolean verbose = false;
        String command = null;
        Form form = null;
        Map<String, String> options = new HashMap<>();
        String[] positional = new String[2];
        int positionals = 0;
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            String name = a;
            String value = null;
            int eq = a.indexOf('=');
            if (a.startsWith("--") && eq > 2) {
                name = a.substring(0, eq);
                value = a.substring(eq + 1);
            }
            if (name.equals("--data")) {
                if (value == null) {
                    if (i + 1 >= args.length) {
                        return NOT_HANDLED;
                    }
                    value = args[++i];
                }
                if (value.isEmpty() || value.startsWith("-") || (command == null ? ++dataBefore : ++dataAfter) > 1) {
                    return NOT_HANDLED;
                }
                data = value;
            } else if (command == null) {
                if (a.equals("--verbose") && !verbose) {
                    verbose = true;
                } else if (!a.startsWith("-") && FORMS.containsKey(a)) {
                    command = a;
                    form = FORMS.get(a);
                } else {
                    return NOT_HANDLED;
                }
            } else if (form.flags().contains(a)) {
                if (options.put(a, "") != null) {
                    return NOT_HANDLED;
                }
            } else if (form.valued().contains(name)) {
                if (value == null) {
                    if (i + 1 >= args.length) {
                        return NOT_HANDLED;
                    }
                    value = args[++i];
                }
                if (value.startsWith("-") || options.put(name, value) != null) {
                    return NOT_HANDLED;
                }
            } else if (!a.startsWith("-") && positionals < form.positionals()) {
                positional[positionals++] = a;
            } else {
                return NOT_HANDLED;
            }
        }
        if (command == null || positionals != form.positionals()) {
            return NOT_HANDLED;
        }
        Long limit = null;
        String limitText = options.get("--limit");
        if (limitText != null) {
            if (limitText.isEmpty() || limitText.length() > 18) {
                return NOT_HANDLED;
            }
            for (int i = 0; i < limitText.length(); i++) {
                if (limitText.charAt(i) < '0' || limitText.charAt(i) > '9') {
                    return NOT_HANDLED;
                }
            }
            limit = Long.parseLong(limitText);
        }
        try {
            Path dir = data != null ? Path.of(data) : Path.of(Main.DEFAULT_DATA_DIR);
            // As StoreCommand#options with none of its options given.
            StoreOptions storeOptions = StoreOptions.builder().maxOpenFiles(OpenFilesLimit.forThisProcess()).build();
            boolean hex = options.containsKey("--hex");
            boolean sync = options.containsKey("--sync");
            return switch (command) {
                case "get" -> StoreActions.get(dir, storeOptions, null, hex, positional[0], out, err);
                case "put" -> StoreActions.put(dir, storeOptions, null, hex, sync, positional[0], positional[1]);
                case "delete" -> StoreActions.delete(dir, storeOptions, null, hex, sync, positional[0]);
                case "delete-range" -> StoreActions.deleteRange(dir, storeOptions, null, hex, sync, positional[0],
                        positional[1]);
                case "scan" -> StoreActions.scan(dir, storeOptions, null, options.get("--from"), options.get("--to"),
                        options.get("--prefix"), limit, options.containsKey("--reverse"), hex, out, err);
                case "stats" -> StoreActions.stats(dir, storeOptions, null, options.containsKey("--json"), out, err);
                default -> StoreActions.flush(dir, storeOptions, out);
            };
        } catch (Exception e) {
            err.println("bloomstore: " + Failures.message(e));
            if (verbose) {
                e.printStackTrace(err);
            }
            err.flush();
            return Failures.exitCode(e);
        }
    }
}
