package io.bloomstore.core.reliability.fuzz;

import java.util.function.UnaryOperator;

/**
 * One file reader under fuzzing: the valid file its inputs are mutated from, and a harness that
 * reads one input the way the store reads that kind of file. The harness returns when the input
 * read as exactly the seed's content, throws the reader's {@link java.io.IOException} when the
 * reader refused it (the runner checks that it names {@link #fileName()}), and throws an
 * {@link AssertionError} when the reader returned something the seed does not hold: a wrong value.
 *
 * <p>Thread safety: {@link #run} is called by one thread at a time.
 *
 * @param name     the corpus directory's name under {@code testdata/fuzz/}
 * @param seed     the valid file inputs are mutated from
 * @param fileName the name the reader's errors must mention: the file the input was stored as
 * @param repairer makes an input's checksums valid again ({@link Checksums}), in place; null when
 *                 the file kind has none to repair
 * @param harness  reads one input ({@link #run})
 */
record FuzzTarget(String name, byte[] seed, String fileName, UnaryOperator<byte[]> repairer, Harness harness) {

    /** Reads one input as {@link #run} says. */
    @FunctionalInterface
    interface Harness {
        void run(byte[] input, boolean exact) throws Exception;
    }

    /**
     * Reads {@code input}. When {@code exact}, anything read must be the seed's content; otherwise
     * (an input whose checksums {@link #repair} made valid again) only the reader's failure
     * modes are checked.
     */
    void run(byte[] input, boolean exact) throws Exception {
        harness.run(input, exact);
    }

    /**
     * {@code input} with its checksums made valid again ({@link Checksums}), modified in place;
     * null when the file kind has none to repair.
     */
    byte[] repair(byte[] input) {
        return repairer == null ? null : repairer.apply(input);
    }
}
