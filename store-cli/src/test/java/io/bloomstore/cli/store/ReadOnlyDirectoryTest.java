package io.bloomstore.cli.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.bloomstore.cli.CliRunner;
import io.bloomstore.cli.CliRunner.Result;
import io.bloomstore.cli.ExitCodes;

/**
 * A store directory BloomStore may not write to: the reading commands work (they open the store
 * read-only, and skip the cumulative counters quietly); a writing one gets one clear line and
 * {@link ExitCodes#IO}. Skipped where permissions do not bind (running as root).
 */
class ReadOnlyDirectoryTest {
    @TempDir
    Path tmp;

    @Test
    void aReadOnlyStoreDirectoryIsAnIoError() throws IOException {
        Path store = tmp.resolve("db");
        assertEquals(ExitCodes.OK, CliRunner.run("--data", store.toString(), "put", "k", "v").exitCode());
        Files.setPosixFilePermissions(store, PosixFilePermissions.fromString("r-xr-xr-x"));
        try {
            assumeFalse(Files.isWritable(store), "permissions do not apply to this user (root)");
            Result get = CliRunner.run("--data", store.toString(), "get", "k");
            assertEquals(ExitCodes.OK, get.exitCode(), get.err());
            assertEquals("v\n", get.out());
            assertEquals("", get.err(), "nothing to warn about: counters are skipped quietly");
            Result r = CliRunner.run("--data", store.toString(), "put", "k", "w");
            assertEquals(ExitCodes.IO, r.exitCode(), r.err());
            assertEquals(1, r.errLines().size(), r.err());
            assertTrue(r.err().contains("permission denied"), r.err());

            Path parent = tmp.resolve("ro-parent");
            Files.createDirectories(parent);
            Files.setPosixFilePermissions(parent, PosixFilePermissions.fromString("r-xr-xr-x"));
            Result create = CliRunner.run("--data", parent.resolve("new").toString(), "put", "k", "v");
            assertEquals(ExitCodes.IO, create.exitCode(), create.err());
            assertTrue(create.err().contains("permission denied"), create.err());
        } finally {
            Files.setPosixFilePermissions(store, PosixFilePermissions.fromString("rwxr-xr-x"));
            if (Files.exists(tmp.resolve("ro-parent"))) {
                Files.setPosixFilePermissions(tmp.resolve("ro-parent"), PosixFilePermissions.fromString("rwxr-xr-x"));
            }
        }
    }
}
