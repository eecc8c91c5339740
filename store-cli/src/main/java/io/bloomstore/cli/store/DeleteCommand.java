package io.bloomstore.cli.store;

import java.io.IOException;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code bloomstore delete KEY}: deletes a key (deleting an absent key is not an error).
 * Prints nothing on success.
 *
 * <p>Thread safety: one instance per invocation.
 */
@Command(name = "delete", mixinStandardHelpOptions = true,
        description = "Delete a key; deleting an absent key is not an error.")
public final class DeleteCommand extends StoreCommand {
    @Parameters(index = "0", paramLabel = "KEY", description = "UTF-8 text with escapes \\\\ \\t \\n \\r \\xNN.")
    private String key;

    @Option(names = "--hex", description = "KEY is hex digits.")
    private boolean hex;

    @Option(names = "--sync", description = "Force the delete to the device before returning.")
    private boolean sync;

    @Override
    public Integer call() throws IOException {
        return StoreActions.delete(dataDir(), options(), keyspace(), hex, sync, key);
    }
}
