package io.bloomstore.cli.store;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;

import io.bloomstore.cli.ExitCodes;
import io.bloomstore.cli.Json;
import io.bloomstore.cli.Units;
import io.bloomstore.core.BackupInfo;
import io.bloomstore.core.StoreBackup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code bloomstore restore --from BACKUP_DIR [--backup ID] --data DIR}: restores a backup into a
 * missing or empty store directory, checking every file's CRC32C ({@link StoreBackup#restore}). A
 * non-empty target is refused (exit 2), a damaged backup file is a corruption (exit 4) that leaves
 * nothing in the target.
 *
 * <p>Thread safety: one instance per invocation.
 */
@Command(name = "restore", mixinStandardHelpOptions = true,
        description = "Restore a backup into the (missing or empty) store directory --data DIR.")
public final class RestoreCommand extends StoreCommand {

    @Option(names = "--from", paramLabel = "BACKUP_DIR", required = true, description = "The backup directory.")
    Path from;

    @Option(names = "--backup", paramLabel = "ID", description = "The backup to restore (default: the newest).")
    Long backup;

    @Option(names = "--json", description = "Print JSON with the API's names.")
    boolean json;

    @Override
    public Integer call() throws IOException {
        long started = System.nanoTime();
        BackupInfo b = StoreBackup.restore(from, backup == null ? -1 : backup, dataDir());
        long millis = (System.nanoTime() - started) / 1_000_000;
        if (json) {
            Map<String, Object> j = BackupCommand.json(b);
            j.put("target", dataDir().toString());
            j.put("millis", millis);
            out().println(Json.write(j));
        } else {
            out().println("restored backup " + b.id() + " from " + from + " into " + dataDir() + ": " + b.files()
                    + " files, " + Units.bytes(b.bytes()) + " (checksums verified), up to sequence " + b.lastSequence()
                    + ", " + millis + " ms");
        }
        out().flush();
        return ExitCodes.OK;
    }
}
