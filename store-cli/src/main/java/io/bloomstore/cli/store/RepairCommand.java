package io.bloomstore.cli.store;

import io.bloomstore.cli.ExitCodes;
import io.bloomstore.core.RepairReport;
import io.bloomstore.core.StoreRepair;
import io.bloomstore.core.fs.LocalFileSystem;
import java.io.IOException;
import java.io.PrintWriter;
import picocli.CommandLine.Command;

/**
 * {@code bloomstore repair}: repairs a (closed) store that refuses to open through
 * {@link StoreRepair}, as LevelDB's and RocksDB's RepairDB: keeps every table and WAL record that
 * verifies, rebuilds damaged filter sidecars, the MANIFEST and CURRENT, moves damaged files into
 * {@code DIR/lost/}, and prints what was kept and what was lost. Exit code 0 when the store was
 * repaired (what was lost is printed); {@link ExitCodes#NOT_A_STORE} for a directory without
 * store files, {@link ExitCodes#LOCKED} when the store is open.
 *
 * <p>Thread safety: one instance per invocation.
 */
@Command(name = "repair", mixinStandardHelpOptions = true,
        description = "Repair a store that refuses to open: keep every table and WAL record that verifies, rebuild "
                + "the MANIFEST, move damaged files into DIR/lost/, and report what was kept and lost.")
public final class RepairCommand extends StoreCommand {

    @Override
    public Integer call() throws IOException {
        StoreAccess.requireStoreDirectory(dataDir());
        RepairReport r;
        try {
            r = StoreRepair.repair(LocalFileSystem.INSTANCE, dataDir(), options());
        } catch (IllegalArgumentException e) {
            throw StoreAccess.notAStore(e.getMessage());
        } catch (UnsupportedOperationException e) {
            throw new io.bloomstore.cli.CliException(ExitCodes.USAGE, e.getMessage());
        }
        PrintWriter out = out();
        out.printf("kept %d tables: %s%n", r.keptTables().size(), String.join(" ", r.keptTables()));
        if (!r.rebuiltTables().isEmpty()) {
            out.printf("wrote %d tables (sidecars rebuilt, WAL records, or tables merged): %s%n",
                    r.rebuiltTables().size(), String.join(" ", r.rebuiltTables()));
        }
        out.printf("levels: %s%n", r.manifestReused() ? "as the readable MANIFEST had them"
                : "no MANIFEST named exactly the tables that verify, every kept table merged into one sorted level");
        out.printf("WAL: %d entries salvaged, %d bytes dropped past damage%n", r.walEntriesSalvaged(),
                r.walBytesDropped());
        if (r.lostFiles().isEmpty()) {
            out.println("lost: nothing");
        } else {
            out.printf("lost (moved into %s): %s; %d keys%s%n", dataDir().resolve("lost"),
                    String.join(" ", r.lostFiles()), r.keysLost(), r.tablesOfUnknownSize() == 0 ? ""
                            : " and the keys of " + r.tablesOfUnknownSize() + " tables whose size was unreadable");
        }
        if (!r.archivedFiles().isEmpty()) {
            out.printf("set aside (moved into %s, no longer needed): %s%n", dataDir().resolve("lost"),
                    String.join(" ", r.archivedFiles()));
        }
        out.printf("repaired: %s opens with sequence numbers continuing after %d%n", dataDir(), r.lastSequence());
        out.flush();
        return ExitCodes.OK;
    }
}
