package io.bloomstore.cli.store;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import io.bloomstore.cli.CliException;
import io.bloomstore.cli.ExitCodes;
import io.bloomstore.cli.Main;
import io.bloomstore.core.Store;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code bloomstore get KEY...}: with one key, prints its value (escaped as {@link ByteText} says)
 * and exits 0, or prints nothing and exits {@link ExitCodes#NOT_FOUND} when the key is absent, so
 * scripts can test for it. With several keys, or {@code --keys-from FILE} ({@code -} for standard
 * input, one key a line, escaped as {@code load}'s keys), one open serves them all: each present
 * key prints {@code KEY<TAB>VALUE} on standard output (lines {@code load} reads back), each absent
 * one {@code absent: KEY} on standard error, in the order asked; the exit code is 0 when every key
 * was present, else {@link ExitCodes#NOT_FOUND}. The store is opened read-only.
 *
 * <p>Thread safety: one instance per invocation.
 */
@Command(name = "get", mixinStandardHelpOptions = true,
        description = {"Print a key's value; exit 1 with no output when the key is absent.",
            "With several keys or --keys-from: KEY<TAB>VALUE lines for present keys, 'absent: KEY' on stderr for the"
                + " others, exit 1 if any was absent."},
        footer = "Exit code 0 when every key is present, 1 when one is absent.")
public final class GetCommand extends StoreCommand {
    @Parameters(paramLabel = "KEY", arity = "0..*", description = "UTF-8 text with escapes \\\\ \\t \\n \\r \\xNN.")
    private List<String> keys;

    @Option(names = "--keys-from", paramLabel = "FILE",
            description = "Read the keys from FILE, one a line ('-' = stdin); empty lines are skipped.")
    private String keysFrom;

    @Option(names = "--hex", description = "Keys are hex digits, and values are printed as hex.")
    private boolean hex;

    @Override
    public Integer call() throws IOException {
        int given = keys == null ? 0 : keys.size();
        if (given == 0 && keysFrom == null) {
            throw new IllegalArgumentException("get needs a KEY, several, or --keys-from FILE");
        }
        ByteText text = ByteText.of(hex);
        if (given == 1 && keysFrom == null) {
            return StoreActions.get(dataDir(), options(), keyspace(), hex, keys.get(0), out(), spec.commandLine().getErr());
        }
        boolean allPresent = true;
        PrintWriter out = out();
        PrintWriter err = spec.commandLine().getErr();
        try (Store store = openReadOnly()) {
            keyspaceHandle = KeyspaceChoice.of(store, dataDir(), keyspace(), false);
            if (keys != null) {
                for (String key : keys) {
                    allPresent &= print(store, text, key, text.decode(key), out, err);
                }
            }
            if (keysFrom != null) {
                allPresent &= getAll(store, text, out, err);
            }
        } finally {
            out.flush();
            err.flush();
        }
        return allPresent ? ExitCodes.OK : ExitCodes.NOT_FOUND;
    }

    private boolean getAll(Store store, ByteText text, PrintWriter out, PrintWriter err) throws IOException {
        boolean allPresent = true;
        try (InputStream in = keysInput();
             BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8.newDecoder()
                     .onMalformedInput(CodingErrorAction.REPORT).onUnmappableCharacter(CodingErrorAction.REPORT)))) {
            long line = 0;
            while (true) {
                String s;
                try {
                    s = reader.readLine();
                } catch (CharacterCodingException e) {
                    throw new CliException(ExitCodes.FORMAT, where(line + 1) + ": not UTF-8 text (write other bytes as"
                            + " \\xNN)");
                }
                if (s == null) {
                    return allPresent;
                }
                line++;
                if (s.isEmpty()) {
                    continue;
                }
                byte[] key;
                try {
                    key = text.decode(s);
                    if (key.length == 0) {
                        throw new IllegalArgumentException("empty key");
                    }
                } catch (IllegalArgumentException e) {
                    throw new CliException(ExitCodes.FORMAT, where(line) + ": " + e.getMessage());
                }
                allPresent &= print(store, text, s, key, out, err);
            }
        }
    }

    /** Looks {@code key} up and prints it; whether it was present. */
    /** The keyspace of {@code --keyspace} in the open store, null for the default one. */
    private io.bloomstore.core.Keyspace keyspaceHandle;

    private boolean print(Store store, ByteText text, String asGiven, byte[] key, PrintWriter out,
                          PrintWriter err) throws IOException {
        byte[] value = keyspaceHandle == null ? store.get(key) : store.get(keyspaceHandle, key);
        if (value == null) {
            err.print("absent: ");
            err.print(asGiven);
            err.print('\n');
            return false;
        }
        out.print(text.encode(key));
        out.print('\t');
        out.print(text.encode(value));
        out.print('\n');
        return true;
    }

    private String where(long line) {
        return (keysFrom.equals("-") ? "stdin" : keysFrom) + " line " + line;
    }

    private InputStream keysInput() throws IOException {
        if (keysFrom.equals("-")) {
            return ((Main) spec.root().userObject()).stdin();
        }
        Path path = Path.of(keysFrom);
        if (Files.isDirectory(path)) {
            throw new CliException(ExitCodes.IO, keysFrom + " is a directory, not a file of keys");
        }
        return Files.newInputStream(path);
    }
}
