package io.bloomstore.core.reliability.fuzz;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Fuzzing of every file reader ({@link ReaderTargets}): the regression corpus under
 * {@code testdata/fuzz/<reader>/}, then mutated inputs from each reader's seed file. The only
 * outcomes allowed are the seed's exact content or an {@link java.io.IOException} naming the
 * file; never another exception, a wrong value, an allocation beyond the input's size or a hang
 * ({@link FuzzRunner}). CI runs a short pass ({@code -Dbloomstore.fuzz.cases=N} per reader,
 * 500 by default); {@code -Pstress} runs 1,000,000 cases in all. Prints its seed
 * ({@code -Dbloomstore.seed=N} replays) and each reader's counts.
 */
class ReaderFuzzTest {
    private static final long SEED = Long.getLong("bloomstore.seed", System.nanoTime());

    @TempDir
    Path work;

    @Test
    void everyReaderRefusesDamageOrReadsTheSeedExactly() throws Exception {
        fuzz(Long.getLong("bloomstore.fuzz.cases", 500), 0);
    }

    @Test
    @Tag("stress")
    void aMillionCases() throws Exception {
        fuzz(Long.getLong("bloomstore.fuzz.cases", 0), 1_000_000);
    }

    /** {@code perTarget} cases for each reader, or more so that all readers together run {@code total}. */
    private void fuzz(long perTarget, long total) throws Exception {
        List<FuzzTarget> targets = ReaderTargets.all(work.resolve("stores"));
        long casesPerTarget = Math.max(perTarget, (total + targets.size() - 1) / targets.size());
        System.out.println("ReaderFuzzTest seed " + SEED + ", " + casesPerTarget + " cases per reader");
        Path testdata = Path.of(System.getProperty("bloomstore.testdata", "../testdata"));
        FuzzRunner runner = new FuzzRunner(testdata.resolve("fuzz"), Path.of("target", "fuzz-failures"));
        List<FuzzRunner.Result> results = new ArrayList<>();
        long started = System.nanoTime();
        try {
            for (FuzzTarget target : targets) {
                FuzzRunner.Result r = runner.run(target, casesPerTarget, SEED + target.name().hashCode());
                System.out.println(r);
                results.add(r);
            }
        } finally {
            runner.close();
        }
        long cases = results.stream().mapToLong(r -> r.cases() + r.corpusInputs()).sum();
        System.out.printf("ReaderFuzzTest: %d inputs in %.1f s (seed %d)%n", cases,
                (System.nanoTime() - started) / 1e9, SEED);
        List<FuzzRunner.Result> failed = FuzzRunner.failed(results);
        assertTrue(failed.isEmpty(), "readers that misbehaved (inputs saved under target/fuzz-failures): " + failed);
    }
}
