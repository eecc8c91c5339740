package io.bloomstore.bloom;

/**
 * The filter kinds BloomStore can store in a filter file or an SSTable.
 *
 * <p>The {@link #id()} is written to disk: never renumber a constant (a test pins the ids).
 * The {@link #cliName()} is how the command line names the kind.
 */
public enum FilterKind {
    BLOOM(1, "bloom"),
    BLOCKED_BLOOM(2, "blocked"),
    COUNTING_BLOOM(3, "counting"),
    SCALABLE_BLOOM(4, "scalable"),
    CUCKOO(5, "cuckoo"),
    BINARY_FUSE(6, "fuse"),
    /** {@link RangeFilter}: ranges of 64-bit key values, built by the store for its tables. */
    RANGE(7, "range"),
    /** {@link RosettaFilter}: ranges of 64-bit values by a Bloom filter per prefix length. */
    ROSETTA(8, "rosetta"),
    /** {@link RibbonFilter}: a static Standard Ribbon filter, built from all of a table's keys at once. */
    RIBBON(9, "ribbon");

    private final int id;
    private final String cliName;

    FilterKind(int id, String cliName) {
        this.id = id;
        this.cliName = cliName;
    }

    public int id() {
        return id;
    }

    public String cliName() {
        return cliName;
    }

    public static FilterKind byId(int id) {
        for (FilterKind k : values()) {
            if (k.id == id) {
                return k;
            }
        }
        throw new IllegalArgumentException("unknown filter kind id " + id);
    }

    public static FilterKind byCliName(String name) {
        for (FilterKind k : values()) {
            if (k.cliName.equalsIgnoreCase(name)) {
                return k;
            }
        }
        throw new IllegalArgumentException("unknown filter kind '" + name + "'");
    }
}
