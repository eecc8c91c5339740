package io.bloomstore.core.table;

/**
 * File names of a table numbered {@code n}: {@code NNNNNN.sst} (the table) and
 * {@code NNNNNN.filter} (its filter sidecar), six digits at least.
 *
 * <p>Thread safety: stateless.
 */
public final class TableFileNames {
    public static final String TABLE_SUFFIX = ".sst";
    public static final String FILTER_SUFFIX = ".filter";

    private TableFileNames() {
    }

    public static String table(long fileNumber) {
        return String.format("%06d%s", fileNumber, TABLE_SUFFIX);
    }

    public static String filter(long fileNumber) {
        return String.format("%06d%s", fileNumber, FILTER_SUFFIX);
    }
}
