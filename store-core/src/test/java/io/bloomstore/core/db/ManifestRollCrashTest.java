package io.bloomstore.core.db;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bloomstore.core.Store;
import io.bloomstore.core.StoreOptions;
import io.bloomstore.core.StoreVerifier;
import io.bloomstore.core.VerifyReport;
import io.bloomstore.core.WriteOptions;
import io.bloomstore.core.fs.FaultInjectionFileSystem;
import io.bloomstore.core.fs.MemoryFileSystem;
import io.bloomstore.core.manifest.FileNames;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A machine crash at every step of a flush whose MANIFEST edit rolls the MANIFEST (1 KiB limit):
 * the fault-injecting file system crashes at the n-th mutating call (create, write, sync, rename,
 * delete, directory sync), for n = 0, 1, ... until the flush completes. Every time, the store
 * reopens holding every acknowledged write, and verifies clean.
 */
class ManifestRollCrashTest {
    private static final Path DIR = Path.of("/manifest-roll-crash/store");
    private static final StoreOptions OPTIONS = StoreOptions.builder().memtableBytes(64 * 1024)
            .autoCompaction(false).maxManifestBytes(1024).build();

    @Test
    void crashAtEveryStepOfARollRecovers() throws IOException {
        int rollRound = findRollRound();
        int crashes = 0;
        for (int n = 0; ; n++) {
            MemoryFileSystem mem = new MemoryFileSystem();
            FaultInjectionFileSystem fs = new FaultInjectionFileSystem(mem, n);
            List<String> acknowledged = new ArrayList<>();
            Store store = Store.open(fs, DIR, OPTIONS);
            for (int round = 0; round < rollRound; round++) {
                round(store, round, acknowledged);
            }
            fs.crashAfterOperations(n);
            boolean crashed = false;
            try {
                round(store, rollRound, acknowledged);
            } catch (IOException e) {
                crashed = true;
            }
            try {
                store.close();
            } catch (IOException | RuntimeException e) {
                // Closing an abandoned store on a crashed file system fails; only the threads matter.
            }
            if (crashed) {
                crashes++;
            }
            String where = "crash at mutating call " + n + " of the rolling flush";
            try (Store reopened = Store.open(mem, DIR, OPTIONS)) {
                for (String k : acknowledged) {
                    assertArrayEquals(b(k), reopened.get(b(k)), where + ": lost " + k);
                }
            }
            VerifyReport report = StoreVerifier.verify(mem, DIR);
            assertTrue(report.clean(), where + ": " + report.errors());
            if (!crashed) {
                break;
            }
        }
        System.out.println("ManifestRollCrashTest: crashed at each of " + crashes
                + " steps of a flush that rolls the MANIFEST (round " + rollRound + "); every one recovered");
        assertTrue(crashes > 10, crashes + " crash points");
    }

    /** The first round whose flush rolls the MANIFEST (its number changes while the store runs). */
    private static int findRollRound() throws IOException {
        MemoryFileSystem mem = new MemoryFileSystem();
        List<String> acknowledged = new ArrayList<>();
        try (Store store = Store.open(mem, DIR, OPTIONS)) {
            String manifest = manifestName(mem);
            for (int round = 0; round < 100; round++) {
                round(store, round, acknowledged);
                if (!manifestName(mem).equals(manifest)) {
                    return round;
                }
            }
        }
        throw new AssertionError("no flush rolled the MANIFEST");
    }

    private static String manifestName(MemoryFileSystem mem) throws IOException {
        return mem.list(DIR).stream().filter(n -> FileNames.parse(n) != null
                && FileNames.parse(n).kind() == FileNames.Kind.MANIFEST).sorted().findFirst().orElseThrow();
    }

    /** Three synced puts, then a flush; acknowledged puts are recorded. */
    private static void round(Store store, int round, List<String> acknowledged) throws IOException {
        for (int i = 0; i < 3; i++) {
            String k = "r" + round + "-" + i;
            store.put(b(k), b(k), WriteOptions.SYNC);
            acknowledged.add(k);
        }
        store.flush();
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
