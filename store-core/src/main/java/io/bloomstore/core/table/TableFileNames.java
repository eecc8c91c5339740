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
        return number(fileNumber) + TABLE_SUFFIX;
    }

    public static String filter(long fileNumber) {
        return number(fileNumber) + FILTER_SUFFIX;
    }

    /**
     * {@code n} in ASCII decimal digits, zero-padded to six. Not {@code String.format}, whose
     * {@code %d} follows the default locale's digits and whose first call loads the locale data
     * (some 20 ms of a one-shot command).
     */
    public static String number(long n) {
        if (n < 0) {
            throw new IllegalArgumentException("file numbers are not negative: " + n);
        }
        String digits = Long.toString(n);
        return digits.length() >= 6 ? digits : "000000".substring(digits.length()) + digits;
    }
}
