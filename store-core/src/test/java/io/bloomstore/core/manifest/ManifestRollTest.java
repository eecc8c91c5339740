package io.bloomstore.core.manifest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bloomstore.core.fs.MemoryFileSystem;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The MANIFEST rolls while the store runs: with a 16 KiB limit, 100,000 edits (each adds a level-0
 * table and, past 20 live tables, deletes the oldest) roll it hundreds of times, only the live
 * MANIFEST stays on disk, it never grows far past the limit, and a recovery rebuilds exactly the
 * live tables, last sequence and log number.
 */
class ManifestRollTest {
    private static final Path DIR = Path.of("/manifest-roll/store");
    private static final long LIMIT = 16 * 1024;
    private static final int EDITS = 100_000;

    @Test
    void hundredThousandEditsRollTheManifestAndRecoverEveryTable() throws Exception {
        MemoryFileSystem fs = new MemoryFileSystem();
        fs.createDirectories(DIR);
        Deque<Long> live = new ArrayDeque<>();
        long largestManifest = 0;
        long rolls;
        try (VersionSet vs = VersionSet.create(fs, DIR, LIMIT)) {
            for (int i = 0; i < EDITS; i++) {
                long number = vs.newFileNumber();
                byte[] key = String.format("k%08d", i).getBytes(StandardCharsets.UTF_8);
                VersionEdit edit = new VersionEdit().setLogNumber(i).setLastSequence(i * 10L)
                        .addFile(0, new FileMetaData(number, 1000 + i, 0, key, key, 1, i * 10L, i * 10L));
                live.addLast(number);
                if (live.size() > 20) {
                    edit.deleteFile(0, live.removeFirst());
                }
                vs.logAndApply(edit);
                if (i % 97 == 0) {
                    largestManifest = Math.max(largestManifest, fs.size(FileNames.manifest(DIR, vs.manifestNumber())));
                }
            }
            rolls = vs.manifestRolls();
        }
        List<String> manifests = fs.list(DIR).stream().filter(n -> n.startsWith("MANIFEST-")).toList();
        System.out.println("ManifestRollTest: " + EDITS + " edits, " + rolls + " rolls, largest MANIFEST seen "
                + largestManifest + " bytes, on disk " + manifests);
        assertTrue(rolls > 100, rolls + " rolls");
        assertEquals(1, manifests.size(), "only the live MANIFEST is kept: " + manifests);
        assertTrue(largestManifest <= LIMIT + 1024, "MANIFEST of " + largestManifest + " bytes");
        try (VersionSet recovered = VersionSet.recover(fs, DIR, LIMIT)) {
            Set<Long> tables = recovered.current().allFiles().stream().map(FileMetaData::fileNumber)
                    .collect(Collectors.toCollection(TreeSet::new));
            assertEquals(new TreeSet<>(live), tables);
            assertEquals((EDITS - 1) * 10L, recovered.lastSequence());
            assertEquals(EDITS - 1, recovered.logNumber());
        }
    }
}
