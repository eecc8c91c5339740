package io.bloomstore.cli.store;

import java.io.IOException;
import java.io.PrintWriter;

import io.bloomstore.cli.ExitCodes;
import io.bloomstore.core.Store;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code bloomstore get KEY}: prints the key's value (escaped as {@link ByteText} says) and
 * exits 0, or prints nothing and exits {@link ExitCodes#NOT_FOUND} when the key is absent, so
 * scripts can test for it.
 *
 * <p>Thread safety: one instance per invocation.
 */
@Command(name = "get", mixinStandardHelpOptions = true,
        description = "Print a key's value; exit 1 with no output when the key is absent.",
        footer = "Exit code 0 when the key is present, 1 when it is absent.")
public final class GetCommand extends StoreCommand {
    @Parameters(index = "0", paramLabel = "KEY", description = "UTF-8 text with escapes \\\\ \\t \\n \\r \\xNN.")
    private String key;

    @Option(names = "--hex", description = "KEY is hex digits, and the value is printed as hex.")
    private boolean hex;

    @Override
    public Integer call() throws IOException {
        ByteText text = ByteText.of(hex);
        byte[] k = text.decode(key);
        byte[] value;
        try (Store store = openReadOnly()) {
            value = store.get(k);
        }
        if (value == null) {
            return ExitCodes.NOT_FOUND;
        }
        PrintWriter out = out();
        out.println(text.encode(value));
        out.flush();
        return ExitCodes.OK;
    }
}
