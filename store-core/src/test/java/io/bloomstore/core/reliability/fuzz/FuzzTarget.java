package io.bloomstore.core.reliability.fuzz;

/**
 * One file reader under fuzzing: the valid file its inputs are mutated from, and a harness that
 * reads one input the way the store reads that kind of file. The harness returns when the input
 * read as exactly the seed's content, throws the reader's {@link java.io.IOException} when the
 * reader refused it (the runner checks that it names {@link #fileName()}), and throws an
 * {@link AssertionError} when the reader returned something the seed does not hold: a wrong value.
 *
 * <p>Thread safety: {@link #run} is called by one thread at a time.
 */
interface FuzzTarget {

    /** The corpus directory's name under {@code testdata/fuzz/}. */
    String name();

    /** The valid file inputs are mutated from. */
    byte[] seed();

    /** The name the reader's errors must mention: the file the input was stored as. */
    String fileName();

    /**
     * Reads {@code input}. When {@code exact}, anything read must be the seed's content; otherwise
     * (an input whose checksums {@link #repair} made valid again) only the reader's failure
     * modes are checked.
     */
    void run(byte[] input, boolean exact) throws Exception;

    /**
     * {@code input} with its checksums made valid again ({@link Checksums}), modified in place;
     * null when the file kind has none to repair.
     */
    default byte[] repair(byte[] input) {
        return null;
    }
}
