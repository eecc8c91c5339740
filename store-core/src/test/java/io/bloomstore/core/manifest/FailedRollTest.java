package io.bloomstore.core.manifest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bloomstore.core.fs.FaultInjectionFileSystem;
import io.bloomstore.core.fs.MemoryFileSystem;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * A MANIFEST roll that fails (the new MANIFEST's fsync fails) after the edit reached the old one:
 * the version set stays as it was before the call — current version, log number, last sequence —
 * so readers and a concurrent flush never see a version naming tables its caller dropped, every
 * later edit fails with an {@link IOException} (nothing may follow a possibly torn edit), and
 * recovery finds the edit, which the old MANIFEST holds durably.
 */
class FailedRollTest {
    private static final Path DIR = Path.of("/failed-roll/store");

    @Test
    void aFailedRollLeavesTheVersionSetAsItWas() throws IOException {
        MemoryFileSystem mem = new MemoryFileSystem();
        mem.createDirectories(DIR);
        FaultInjectionFileSystem fs = new FaultInjectionFileSystem(mem, 1);
        VersionSet vs = VersionSet.create(fs, DIR, 200);
        vs.logAndApply(edit(vs, 1, 10));
        Version before = vs.current();
        long logNumber = vs.logNumber();
        long lastSequence = vs.lastSequence();
        long manifest = vs.manifestNumber();
        // The edit's own sync succeeds; the roll's sync of the new MANIFEST fails.
        fs.onlyFiles(p -> p.getFileName().toString().startsWith("MANIFEST-")).failSyncsAfter(1);
        VersionEdit rolling = edit(vs, 2, 20);
        for (int i = 0; i < 20; i++) {
            byte[] k = String.format("pad%04d", i).getBytes(StandardCharsets.UTF_8);
            rolling.addFile(1, new FileMetaData(vs.newFileNumber(), 1, 0, k, k, 1, 1, 1));
        }
        assertThrows(IOException.class, () -> vs.logAndApply(rolling));
        assertSame(before, vs.current(), "current is the version before the failed call");
        assertEquals(logNumber, vs.logNumber());
        assertEquals(lastSequence, vs.lastSequence());
        assertEquals(manifest, vs.manifestNumber());
        fs.heal();
        IOException later = assertThrows(IOException.class, () -> vs.logAndApply(edit(vs, 3, 30)),
                "a concurrent flush's edit gets an I/O error, not an IllegalStateException");
        assertTrue(later.getMessage().contains("earlier failure"), later.getMessage());
        vs.close();
        try (VersionSet recovered = VersionSet.recover(mem, DIR, 200)) {
            assertEquals(2, recovered.logNumber(), "the edit is durable in the old MANIFEST");
            assertEquals(22, recovered.current().allFiles().size());
        }
    }

    private static VersionEdit edit(VersionSet vs, long logNumber, long sequence) {
        byte[] key = ("k" + sequence).getBytes(StandardCharsets.UTF_8);
        return new VersionEdit().setLogNumber(logNumber).setLastSequence(sequence)
                .addFile(0, new FileMetaData(vs.newFileNumber(), 100, 0, key, key, 1, sequence, sequence));
    }
}
