package io.bloomstore.core.reliability;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.bloomstore.core.Store;
import io.bloomstore.core.StoreDirs;
import io.bloomstore.core.StoreOptions;
import io.bloomstore.core.StoreVerifier;
import io.bloomstore.core.fs.FaultInjectionFileSystem;
import io.bloomstore.core.fs.LocalFileSystem;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A failed open releases everything it took. A store with several tables and unflushed WAL
 * segments (so open replays them and writes a table) is opened on the fault-injecting file system
 * with the n-th file-system call failing, for n = 0, 1, ... until an open succeeds: every step of
 * open fails once, reads included. After each failed open no descriptor of this process and no
 * mapping points into the store directory, no thread of the store is left, and the store opens
 * (on the real file system) holding every key and verifies clean.
 */
class FailedOpenReleasesTest {
    private static final StoreOptions OPTIONS = StoreOptions.builder().memtableBytes(8 * 1024).blockSize(512)
            .autoCompaction(false).build();
    private static final int KEYS = 200;

    @TempDir
    Path root;

    @Test
    void aFaultAtEveryStepOfOpenLeavesNothingBehind() throws IOException {
        Path pristine = root.resolve("pristine");
        try (Store store = Store.open(pristine, OPTIONS)) {
            for (int i = 0; i < KEYS; i++) {
                store.put(key(i), value(i));
                if (i == 70 || i == 140) {
                    store.flush();
                }
            }
        }
        long fdsBefore = descriptors(null);
        int failures = 0;
        // Background threads (the filter check) make calls too, so one success does not prove the
        // open's calls are all passed: three in a row do.
        int successesInARow = 0;
        for (int n = 0; successesInARow < 3; n++) {
            // A name no other test's store has: the store's threads are named after it.
            Path dir = root.resolve("failed-open-" + n);
            StoreDirs.copy(pristine, dir);
            FaultInjectionFileSystem fs = new FaultInjectionFileSystem(LocalFileSystem.INSTANCE, n).failOperationAfter(n);
            try {
                Store.open(fs, dir, OPTIONS).close();
                successesInARow++;
                continue;
            } catch (IOException e) {
                assertTrue(fs.injectedFaults() == 1, "step " + n + " failed with its own fault: " + e);
                failures++;
                successesInARow = 0;
            }
            String where = "open failing at file-system call " + n;
            assertEquals(0, descriptors(dir), where + ": descriptors into the store directory remain");
            assertEquals(0, mappedBytes(dir), where + ": mappings into the store directory remain");
            awaitNoThreads(dir, where);
            try (Store s = Store.open(dir, OPTIONS)) {
                for (int i = 0; i < KEYS; i++) {
                    assertArrayEquals(value(i), s.get(key(i)), where + ": key " + i);
                }
            }
            assertTrue(StoreVerifier.verify(dir).clean(), where);
        }
        long fdsAfter = descriptors(null);
        System.out.println("FailedOpenReleasesTest: " + failures + " steps of open failed in turn; descriptors of the"
                + " process " + fdsBefore + " before, " + fdsAfter + " after");
        assertTrue(failures > 20, failures + " steps");
        assertTrue(fdsAfter <= fdsBefore + 2, "descriptors " + fdsBefore + " -> " + fdsAfter);
    }

    /** Open descriptors of this process, all or (dir not null) those whose target lies in {@code dir}. */
    private static long descriptors(Path dir) throws IOException {
        try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
            return fds.filter(fd -> {
                if (dir == null) {
                    return true;
                }
                try {
                    return Files.readSymbolicLink(fd).startsWith(dir.toRealPath());
                } catch (IOException e) {
                    return false;
                }
            }).count();
        }
    }

    /** Bytes of this process's mappings of files in {@code dir}, from /proc/self/maps. */
    private static long mappedBytes(Path dir) throws IOException {
        String prefix = dir.toRealPath() + "/";
        long bytes = 0;
        for (String line : Files.readAllLines(Path.of("/proc/self/maps"))) {
            if (line.contains(prefix)) {
                String[] range = line.substring(0, line.indexOf(' ')).split("-");
                bytes += Long.parseUnsignedLong(range[1], 16) - Long.parseUnsignedLong(range[0], 16);
            }
        }
        return bytes;
    }

    /** Waits up to 5 s for the store's background threads (named after its directory) to end. */
    private static void awaitNoThreads(Path dir, String where) {
        // bloomstore-flush-DIR, bloomstore-reclaim-DIR, bloomstore-compact-DIR-N
        java.util.regex.Pattern ours = java.util.regex.Pattern.compile("bloomstore-[a-z]+-"
                + java.util.regex.Pattern.quote(dir.getFileName().toString()) + "(-\\d+)?");
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (true) {
            List<String> left = Thread.getAllStackTraces().keySet().stream().map(Thread::getName)
                    .filter(name -> ours.matcher(name).matches()).toList();
            if (left.isEmpty()) {
                return;
            }
            if (System.nanoTime() > deadline) {
                fail(where + ": threads remain: " + left);
            }
            Thread.onSpinWait();
        }
    }

    private static byte[] key(int i) {
        return String.format("key%05d", i).getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] value(int i) {
        return ("value-" + i + "-" + "x".repeat(i % 50)).getBytes(StandardCharsets.UTF_8);
    }
}
