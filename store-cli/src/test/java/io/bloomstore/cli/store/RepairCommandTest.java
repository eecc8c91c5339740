package io.bloomstore.cli.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bloomstore.cli.CliRunner;
import io.bloomstore.cli.CliRunner.Result;
import io.bloomstore.cli.ExitCodes;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code bloomstore repair}: a store whose MANIFEST is damaged refuses to open, is repaired, then verifies clean. */
class RepairCommandTest {
    @TempDir
    Path tmp;

    private Result cli(String... args) {
        String[] all = new String[args.length + 2];
        all[0] = "--data";
        all[1] = tmp.resolve("db").toString();
        System.arraycopy(args, 0, all, 2, args.length);
        return CliRunner.run(all);
    }

    @Test
    void aStoreWithADamagedManifestIsRepaired() throws IOException {
        for (int i = 0; i < 5; i++) {
            assertEquals(ExitCodes.OK, cli("put", "key" + i, "value" + i).exitCode());
            assertEquals(ExitCodes.OK, cli("flush").exitCode());
        }
        Path manifest;
        try (Stream<Path> s = Files.list(tmp.resolve("db"))) {
            manifest = s.filter(p -> p.getFileName().toString().startsWith("MANIFEST-")).findFirst().orElseThrow();
        }
        byte[] bytes = Files.readAllBytes(manifest);
        bytes[20] ^= 0x40;
        Files.write(manifest, bytes);
        assertEquals(ExitCodes.CORRUPTION, cli("get", "key1").exitCode(), "the damaged store refuses to open");

        Result repair = cli("repair");
        assertEquals(ExitCodes.OK, repair.exitCode(), repair.err());
        assertTrue(repair.out().contains("lost (moved into"), repair.out());
        assertTrue(repair.out().contains(manifest.getFileName().toString()), repair.out());
        assertTrue(Files.exists(tmp.resolve("db").resolve("lost").resolve(manifest.getFileName())));

        assertEquals(ExitCodes.OK, cli("verify").exitCode());
        for (int i = 0; i < 5; i++) {
            Result get = cli("get", "key" + i);
            assertEquals(ExitCodes.OK, get.exitCode(), get.err());
            assertEquals("value" + i, get.out().strip());
        }
    }

    @Test
    void aDirectoryWithoutAStoreIsRefused() throws IOException {
        Files.createDirectories(tmp.resolve("db"));
        Files.writeString(tmp.resolve("db").resolve("notes.txt"), "x");
        assertEquals(ExitCodes.NOT_A_STORE, cli("repair").exitCode());
    }
}
