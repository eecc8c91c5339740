package io.bloomstore.core;

import java.nio.file.Path;
import java.util.List;

/**
 * What {@link StoreRepair#repair} did to a store directory.
 *
 * @param dir               the store directory
 * @param keptTables        tables kept as they were (file names)
 * @param rebuiltTables     tables rewritten from a table that verified: its filter sidecar was
 *                          damaged or missing, or every table was merged because no MANIFEST could
 *                          place them (names of the new files)
 * @param lostFiles         files moved into {@code lost/} because they did not verify, and tables the
 *                          MANIFEST named that were missing (marked "(missing)")
 * @param keysLost          entries of the tables lost (as their properties count them; a table whose
 *                          properties are unreadable counts in {@code tablesOfUnknownSize} instead)
 * @param tablesOfUnknownSize lost tables whose entry count could not be read
 * @param walEntriesSalvaged entries read back from WAL segments into a new table
 * @param walBytesDropped   bytes of WAL segments past their damage, not salvaged
 * @param manifestReused    whether a readable MANIFEST gave the tables' levels: it did when its
 *                          version named exactly the tables that verify; else every table that
 *                          verifies was merged into one sorted level
 * @param lastSequence      the sequence number the repaired store continues after
 * @param archivedFiles     files moved into {@code lost/} that the repaired store does not need:
 *                          tables merged into new ones, WAL segments written into a table or older
 *                          than the MANIFEST's log number, old MANIFESTs. Repair deletes nothing.
 */
public record RepairReport(Path dir, List<String> keptTables, List<String> rebuiltTables, List<String> lostFiles,
                           long keysLost, int tablesOfUnknownSize, long walEntriesSalvaged, long walBytesDropped,
                           boolean manifestReused, long lastSequence, List<String> archivedFiles) {
    public RepairReport {
        keptTables = List.copyOf(keptTables);
        rebuiltTables = List.copyOf(rebuiltTables);
        lostFiles = List.copyOf(lostFiles);
        archivedFiles = List.copyOf(archivedFiles);
    }

    /** Whether repair found nothing to set aside: no file lost, no WAL byte dropped. */
    public boolean nothingLost() {
        return lostFiles.isEmpty() && walBytesDropped == 0;
    }
}
