package io.bloomstore.cli.store;

import java.io.IOException;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code bloomstore put KEY VALUE}: writes one key, creating the store if the directory is
 * missing or empty. Prints nothing on success.
 *
 * <p>Thread safety: one instance per invocation.
 */
@Command(name = "put", mixinStandardHelpOptions = true,
        description = {"Write a key's value, creating the store if needed.",
            "KEY and VALUE are UTF-8 text with escapes \\\\ \\t \\n \\r \\xNN, or hex with --hex."})
public final class PutCommand extends StoreCommand {
    @Parameters(index = "0", paramLabel = "KEY")
    private String key;

    @Parameters(index = "1", paramLabel = "VALUE")
    private String value;

    @Option(names = "--hex", description = "KEY and VALUE are hex digits.")
    private boolean hex;

    @Option(names = "--sync", description = "Force the write to the device before returning.")
    private boolean sync;

    @Override
    public Integer call() throws IOException {
        return StoreActions.put(dataDir(), options(), keyspace(), hex, sync, key, value);
    }
}
