package io.bloomstore.core;

import java.util.List;

/**
 * What {@link Store#ingest} linked in.
 *
 * @param files   tables ingested
 * @param entries their entries
 * @param bytes   their bytes, filter sidecars included
 * @param levels  the level each table went to, in the order given
 * @param linked  how many files (tables and sidecars) were hard-linked rather than copied
 * @param flushed whether memtables were flushed first (they held keys in an ingested range)
 */
public record IngestReport(int files, long entries, long bytes, List<Integer> levels, int linked, boolean flushed) {
    public IngestReport {
        levels = List.copyOf(levels);
    }
}
