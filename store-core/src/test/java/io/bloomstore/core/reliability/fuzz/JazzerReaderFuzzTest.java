package io.bloomstore.core.reliability.fuzz;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.condition.EnabledIfEnvironmentVariable;

/**
 * The readers of {@link ReaderTargets} under Jazzer, coverage-guided: each method is one reader's
 * harness, fed Jazzer's inputs instead of {@link Mutator}'s. Without {@code JAZZER_FUZZ} (so in
 * every {@code mvn verify}) the class is skipped: Jazzer's agent, once loaded, would instrument
 * every class the rest of the suite loads. To fuzz one reader,
 * {@code JAZZER_FUZZ=1 mvn -pl store-core -am verify -Dtest='JazzerReaderFuzzTest#sstable'
 * -Dsurefire.failIfNoSpecifiedTests=false} (Jazzer fuzzes one method per run; it stops at the
 * method's {@code maxDuration} or first finding, which it saves under
 * {@code src/test/resources/.../JazzerReaderFuzzTestInputs/}). An input passes on the terms
 * {@link FuzzRunner} sets for a repaired input: the harness returns, or throws an
 * {@link IOException} naming the file (Jazzer can learn to satisfy a checksum comparison, so
 * what a valid input holds is not compared with a seed).
 */
@EnabledIfEnvironmentVariable(named = "JAZZER_FUZZ", matches = ".+")
class JazzerReaderFuzzTest {
    private static final Map<String, FuzzTarget> TARGETS = new LinkedHashMap<>();

    private static synchronized FuzzTarget target(String name) {
        if (TARGETS.isEmpty()) {
            try {
                for (FuzzTarget t : ReaderTargets.all(Files.createTempDirectory("bloomstore-jazzer"))) {
                    TARGETS.put(t.name(), t);
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return TARGETS.get(name);
    }

    /** Runs one input; an {@link IOException} that names the file is a refusal, anything else a finding. */
    private static void read(String name, byte[] data) throws Exception {
        FuzzTarget target = target(name);
        // Checksums repaired first, as in FuzzRunner's repaired cases: Jazzer then explores the
        // parsing behind them instead of stopping at the first CRC.
        byte[] repaired = target.repair(data.clone());
        try {
            target.run(repaired == null ? data : repaired, false);
        } catch (IOException e) {
            if (!String.valueOf(e.getMessage()).contains(target.fileName())) {
                throw new AssertionError("an error that does not name " + target.fileName(), e);
            }
        }
    }

    @FuzzTest(maxDuration = "2m")
    void sstable(byte[] data) throws Exception {
        read("sstable", data);
    }

    @FuzzTest(maxDuration = "2m")
    void sstableLz4(byte[] data) throws Exception {
        read("sstable-lz4", data);
    }

    @FuzzTest(maxDuration = "2m")
    void filterSet(byte[] data) throws Exception {
        read("filter-set", data);
    }

    @FuzzTest(maxDuration = "2m")
    void wal(byte[] data) throws Exception {
        read("wal", data);
    }

    @FuzzTest(maxDuration = "2m")
    void walRecord(byte[] data) throws Exception {
        read("wal-record", data);
    }

    @FuzzTest(maxDuration = "2m")
    void manifest(byte[] data) throws Exception {
        read("manifest", data);
    }

    @FuzzTest(maxDuration = "2m")
    void counters(byte[] data) throws Exception {
        read("counters", data);
    }
}
