package io.bloomstore.cli.store;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.bloomstore.cli.ExitCodes;
import io.bloomstore.cli.Json;
import io.bloomstore.cli.Units;
import io.bloomstore.core.BackupInfo;
import io.bloomstore.core.Store;
import io.bloomstore.core.StoreBackup;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code bloomstore backup --to DIR [--keep N]}: an incremental, verified backup of the store into a
 * backup directory ({@link StoreBackup}); {@code backup --to DIR --list} lists the backups there,
 * {@code backup --to DIR --verify} checks every file of them.
 *
 * <p>Thread safety: one instance per invocation.
 */
@Command(name = "backup", mixinStandardHelpOptions = true,
        description = "Back up the store into a backup directory (incremental, verified), or --list or --verify its backups.")
public final class BackupCommand extends StoreCommand {

    @Option(names = "--to", paramLabel = "BACKUP_DIR", required = true,
            description = "The backup directory (created if missing; an existing one must be a backup directory).")
    Path to;

    @Option(names = "--keep", paramLabel = "N",
            description = "After the backup, delete all but the newest N backups (default: keep all).")
    Integer keep;

    @Option(names = "--list", description = "List the backups in BACKUP_DIR instead of making one.")
    boolean list;

    @Option(names = "--verify", description = "Check every file of every backup in BACKUP_DIR against its recorded"
            + " size and CRC32C instead of making one (exit 4 naming the first damaged file).")
    boolean verify;

    @Option(names = "--json", description = "Print JSON with the API's names.")
    boolean json;

    @Override
    public Integer call() throws IOException {
        if (list || verify) {
            if (keep != null || list && verify) {
                throw new CommandLine.ParameterException(spec.commandLine(),
                        "--list and --verify go alone (without --keep or each other)");
            }
            return verify ? verify() : list();
        }
        if (keep != null && keep < 1) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--keep must be at least 1, got " + keep);
        }
        long started = System.nanoTime();
        BackupInfo b;
        List<BackupInfo> left;
        try (Store store = open(false)) {
            b = StoreBackup.create(store, to, keep == null ? 0 : keep);
        }
        left = StoreBackup.list(to);
        long millis = (System.nanoTime() - started) / 1_000_000;
        if (json) {
            Map<String, Object> j = json(b);
            j.put("millis", millis);
            j.put("backupsKept", left.size());
            out().println(Json.write(j));
        } else {
            out().println("backup " + b.id() + " of " + dataDir() + " in " + to + ": " + b.files() + " files, "
                    + Units.bytes(b.bytes()) + "; copied " + b.filesCopied() + " files, " + Units.bytes(b.bytesCopied())
                    + " (verified), up to sequence " + b.lastSequence() + ", " + millis + " ms; " + left.size()
                    + " backups kept");
        }
        out().flush();
        return ExitCodes.OK;
    }

    private int verify() throws IOException {
        List<BackupInfo> all = StoreBackup.verify(to);
        long bytes = all.stream().mapToLong(BackupInfo::bytes).sum();
        if (json) {
            Map<String, Object> j = new LinkedHashMap<>();
            j.put("backupDir", to.toString());
            j.put("backupsVerified", all.size());
            out().println(Json.write(j));
        } else {
            out().println("verified " + all.size() + " backups in " + to + ": every file's size and CRC32C match ("
                    + Units.bytes(bytes) + " in all backups, shared files read once)");
        }
        out().flush();
        return ExitCodes.OK;
    }

    private int list() throws IOException {
        List<BackupInfo> all = StoreBackup.list(to);
        if (json) {
            List<Object> items = new ArrayList<>();
            all.forEach(b -> items.add(json(b)));
            Map<String, Object> j = new LinkedHashMap<>();
            j.put("backupDir", to.toString());
            j.put("backups", items);
            out().println(Json.write(j));
        } else {
            out().printf("%-6s %-24s %12s %8s %10s%n", "id", "created", "sequence", "files", "size");
            for (BackupInfo b : all) {
                out().printf("%-6d %-24s %12d %8d %10s%n", b.id(), Instant.ofEpochMilli(b.createdMillis()),
                        b.lastSequence(), b.files(), Units.bytes(b.bytes()));
            }
        }
        out().flush();
        return ExitCodes.OK;
    }

    static Map<String, Object> json(BackupInfo b) {
        Map<String, Object> j = new LinkedHashMap<>();
        j.put("id", b.id());
        j.put("createdMillis", b.createdMillis());
        j.put("lastSequence", b.lastSequence());
        j.put("files", b.files());
        j.put("bytes", b.bytes());
        j.put("filesCopied", b.filesCopied());
        j.put("bytesCopied", b.bytesCopied());
        return j;
    }
}
