package io.bloomstore.cli.filter;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;

import io.bloomstore.bloom.FilterSet;
import io.bloomstore.bloom.MembershipFilter;
import io.bloomstore.cli.CliException;
import io.bloomstore.cli.ExitCodes;
import io.bloomstore.cli.Main;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code bloomstore filter check}: asks a filter file about keys. Prints one line per key,
 * {@code maybe  KEY} or {@code absent KEY} (the key follows the fixed-width answer, so keys
 * with spaces stay readable). Exits {@link ExitCodes#NOT_FOUND} when any key is absent,
 * like grep, so scripts can test a single key.
 *
 * <p>Any filter file works: a single filter (format version 1) or a table sidecar holding a filter
 * set (version 2, docs/format/filter.md). Opening checks every member's header and, unless
 * {@code --no-verify}, every member's payload checksum, whichever member is asked. {@code --role}
 * picks the member: the key filter (the default; a single filter is one), the prefix filter (each
 * KEY is then a prefix) or the range filter (each KEY's first 8 bytes, a point query).
 *
 * <p>Thread safety: one instance per invocation.
 */
@Command(name = "check", mixinStandardHelpOptions = true,
        description = "Ask a filter about keys: 'maybe' (possibly added) or 'absent' (certainly not added).",
        footer = "Exit code 0 when every key is 'maybe', 1 when any is 'absent'.")
public final class FilterCheckCommand implements Callable<Integer> {
    @Spec
    private CommandSpec spec;

    @Parameters(index = "0", paramLabel = "F", description = "Filter file.")
    private Path file;

    @Parameters(index = "1..*", arity = "1..*", paramLabel = "KEY",
            description = "Keys to check; '-' reads keys from stdin, one per line.")
    private List<String> keys;

    @Option(names = "--no-verify", description = "Skip the payload checksums (opening then costs nothing per byte).")
    private boolean noVerify;

    @Option(names = "--role", paramLabel = "ROLE", defaultValue = "key",
            description = "Member of a filter set to ask: key, prefix (KEYs are prefixes) or range (the KEYs' first 8"
                    + " bytes). Default: ${DEFAULT-VALUE}.")
    private String role;

    @Override
    public Integer call() throws IOException {
        FilterSet.Role wanted = parseRole(role);
        PrintWriter out = spec.commandLine().getOut();
        boolean anyAbsent = false;
        try (FilterSet set = FilterSet.open(file, !noVerify)) {
            FilterSet.Section section = set.section(wanted);
            if (section == null) {
                throw new CliException(ExitCodes.USAGE, file + " has no " + role + " filter (it holds: "
                        + set.sections().stream().map(x -> x.role().name().toLowerCase(Locale.ROOT))
                                .collect(Collectors.joining(", ")) + ")");
            }
            MembershipFilter filter = section.filter();
            for (String key : keys) {
                if (key.equals("-")) {
                    Main main = (Main) spec.root().userObject();
                    BufferedReader in = new BufferedReader(new InputStreamReader(main.stdin(), StandardCharsets.UTF_8));
                    String line;
                    while ((line = in.readLine()) != null) {
                        anyAbsent |= !check(filter, line, out);
                    }
                } else {
                    anyAbsent |= !check(filter, key, out);
                }
            }
        } finally {
            out.flush();
        }
        return anyAbsent ? ExitCodes.NOT_FOUND : ExitCodes.OK;
    }

    private FilterSet.Role parseRole(String name) {
        for (FilterSet.Role r : FilterSet.Role.values()) {
            if (r.name().equalsIgnoreCase(name)) {
                return r;
            }
        }
        throw new ParameterException(spec.commandLine(), "--role must be key, prefix or range, got " + name);
    }

    private static boolean check(MembershipFilter filter, String key, PrintWriter out) {
        boolean maybe = filter.mightContain(key.getBytes(StandardCharsets.UTF_8));
        out.println((maybe ? "maybe  " : "absent ") + key);
        return maybe;
    }
}
