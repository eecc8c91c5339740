package io.bloomstore.cli.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.bloomstore.core.fs.LocalFileSystem;
import io.bloomstore.core.fs.RandomReadFile;

/**
 * The device counters, and {@code --direct-reads} runs of both engines: with a block cache of one
 * byte every lookup's block is a miss, so with direct reads the device completes at least one
 * read per lookup and the process fetches at least the engine's bytes from storage. Skipped where
 * the temporary directory's file system refuses O_DIRECT or has no block device. Seed: that of
 * {@link BenchRunnerTest#smallConfig()}.
 */
class DeviceIoTest {
    @TempDir
    Path dir;

    @Test
    void parsesTheLineOfTheDevice() {
        String text = "   7       0 loop0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n"
                + " 254       0 vda 125802 24315 4245474 32398 689603 73085 51980736 296229 0 97620 389724\n";
        assertEquals(Optional.of(new DeviceIo(125802, 4245474L * 512)), DeviceIo.parse(text, 254, 0));
        assertEquals(Optional.empty(), DeviceIo.parse(text, 8, 0));
        assertEquals(254, DeviceIo.major(0xfe00));
        assertEquals(0, DeviceIo.minor(0xfe00));
        assertEquals(259, DeviceIo.major((259L << 8) | 3));
        assertEquals(3, DeviceIo.minor((259L << 8) | 3));
    }

    @Test
    void directReadsReachTheDevice() throws Exception {
        assumeTrue(DeviceIo.read(dir).isPresent(), "no block device found for " + dir);
        Path probe = Files.write(dir.resolve("probe"), new byte[4096]);
        try (RandomReadFile f = LocalFileSystem.INSTANCE.openReadDirect(probe)) {
            assumeTrue(f.size() == 4096);
        } catch (Exception e) {
            assumeTrue(false, "O_DIRECT refused in " + dir + ": " + e);
        }
        BenchConfig c = BenchRunnerTest.smallConfig();
        BenchConfig config = new BenchConfig(c.keys(), c.keySize(), c.valueSize(), c.threads(), 5_000, 0,
                c.bitsPerKey(), c.filterKind(), 1, c.memtableBytes(), c.compression(), c.missingFraction(),
                c.scanLength(), c.seed(), c.distribution(), true);
        List<WorkloadResult> results = new BenchRunner(config, EngineFactory.standard(), null)
                .run(List.of(BloomStoreEngine.NAME, RocksDbEngine.NAME), List.of(Workload.READRANDOM), dir);
        for (WorkloadResult r : results) {
            System.out.printf("%s direct readrandom: %.3f device reads/op, %d device bytes, %d process storage"
                    + " bytes, %d engine bytes%n", r.engine(), r.deviceReadsPerOp(), r.deviceIo().orElseThrow().bytes(),
                    r.osIo().map(ProcIo::storageReadBytes).orElse(-1L), r.counters().bytesRead());
            assertTrue(r.deviceReadsPerOp() >= 0.95, r.engine() + ": device reads per lookup "
                    + r.deviceReadsPerOp());
            if (r.osIo().isPresent()) {
                assertTrue(r.osIo().get().storageReadBytes() >= r.counters().bytesRead(), r.engine()
                        + ": process storage bytes " + r.osIo().get().storageReadBytes() + " < engine bytes "
                        + r.counters().bytesRead());
            }
        }
    }
}
