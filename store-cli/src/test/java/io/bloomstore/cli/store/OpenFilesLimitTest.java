package io.bloomstore.cli.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.bloomstore.cli.CliRunner;
import io.bloomstore.cli.CliRunner.Result;
import io.bloomstore.cli.ExitCodes;
import io.bloomstore.core.StoreOptions;

/** The store commands' {@code maxOpenFiles}: fitted to the process's descriptor limit, or {@code --max-open-files}. */
class OpenFilesLimitTest {
    @TempDir
    Path tmp;

    @Test
    void halfTheDescriptorLimitWithinTheStoresBounds() {
        assertEquals(256, OpenFilesLimit.fit(512));
        assertEquals(512, OpenFilesLimit.fit(1024));
        assertEquals(StoreOptions.DEFAULT_MAX_OPEN_FILES, OpenFilesLimit.fit(1 << 20));
        assertEquals(StoreOptions.MIN_MAX_OPEN_FILES, OpenFilesLimit.fit(16));
        assertEquals(StoreOptions.DEFAULT_MAX_OPEN_FILES, OpenFilesLimit.fit(-1), "unknown limit");
        int here = OpenFilesLimit.forThisProcess();
        assertTrue(here >= StoreOptions.MIN_MAX_OPEN_FILES && here <= StoreOptions.DEFAULT_MAX_OPEN_FILES,
                String.valueOf(here));
    }

    @Test
    void theSoftLimitIsReadFromProcLimits() throws Exception {
        Path limits = tmp.resolve("limits");
        java.nio.file.Files.writeString(limits, "Limit                     Soft Limit           Hard Limit           Units\n"
                + "Max processes             95044                95044                processes\n"
                + "Max open files            1024                 524288               files\n");
        assertEquals(1024, OpenFilesLimit.fromProcLimits(limits));
        java.nio.file.Files.writeString(limits, "Max open files            unlimited            unlimited            files\n");
        assertEquals(-1, OpenFilesLimit.fromProcLimits(limits));
        assertEquals(0, OpenFilesLimit.fromProcLimits(tmp.resolve("missing")));
    }

    @Test
    void theOptionIsUsedAndChecked() {
        String data = tmp.resolve("db").toString();
        Result put = CliRunner.run("--data", data, "put", "--max-open-files", "20", "k", "v");
        assertEquals(ExitCodes.OK, put.exitCode(), put.err());
        Result get = CliRunner.run("--data", data, "get", "--max-open-files", "-1", "k");
        assertEquals(ExitCodes.OK, get.exitCode(), get.err());
        assertEquals("v\n", get.out());
        Result bad = CliRunner.run("--data", data, "get", "--max-open-files", "5", "k");
        assertEquals(ExitCodes.USAGE, bad.exitCode(), bad.err());
        assertTrue(bad.err().contains("--max-open-files: maxOpenFiles must be -1 (unbounded) or at least 20"),
                bad.err());
    }
}
