package io.bloomstore.cli.store;

/**
 * One {@code KEY<TAB>VALUE} line of the files {@code load} and {@code ingest} read: split at its
 * one TAB, each side decoded ({@link ByteText}), the key and value checked against the store's
 * limits.
 *
 * <p>Thread safety: stateless.
 */
final class TsvRecord {
    private TsvRecord() {
    }

    /**
     * The key and value of non-empty {@code line}.
     *
     * @throws IllegalArgumentException saying what is wrong with the line (for the caller to name
     *         the line and the file)
     */
    static byte[][] parse(String line, ByteText text, int maxKey, int maxValue) {
        int tab = line.indexOf('\t');
        if (tab < 0 || line.indexOf('\t', tab + 1) >= 0) {
            throw new IllegalArgumentException((tab < 0 ? "no TAB" : "more than one TAB")
                    + " (expected KEY<TAB>VALUE; write a TAB inside a key or value as \\t)");
        }
        byte[] key = text.decode(line.substring(0, tab));
        byte[] value = text.decode(line.substring(tab + 1));
        if (key.length == 0 || key.length > maxKey) {
            throw new IllegalArgumentException(key.length == 0 ? "empty key"
                    : "key of " + key.length + " bytes is over the maximum of " + maxKey);
        }
        if (value.length > maxValue) {
            throw new IllegalArgumentException("value of " + value.length + " bytes is over the maximum of " + maxValue);
        }
        return new byte[][] {key, value};
    }
}
