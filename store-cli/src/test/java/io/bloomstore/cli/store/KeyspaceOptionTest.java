package io.bloomstore.cli.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bloomstore.cli.CliRunner;
import io.bloomstore.cli.CliRunner.Result;
import io.bloomstore.cli.ExitCodes;
import io.bloomstore.core.Store;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code --keyspace NAME} before or after the command: put and load create the keyspace, the other
 * commands work in it, a missing keyspace is a usage error naming those there are, and stats lists
 * the keyspaces.
 */
class KeyspaceOptionTest {
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
    void commandsWorkInTheirKeyspace() throws Exception {
        assertEquals(ExitCodes.OK, cli("put", "alice", "default-value").exitCode());
        Result put = cli("--keyspace", "users", "put", "alice", "1");
        assertEquals(ExitCodes.OK, put.exitCode(), put.err());
        assertEquals(ExitCodes.OK, cli("put", "--keyspace", "users", "bob", "2").exitCode());
        assertEquals("default-value", cli("get", "alice").out().strip());
        assertEquals("1", cli("--keyspace", "users", "get", "alice").out().strip());
        assertEquals("2", cli("get", "--keyspace", "users", "bob").out().strip());
        assertEquals(ExitCodes.NOT_FOUND, cli("get", "bob").exitCode(), "bob is only in users");

        Result scan = cli("--keyspace", "users", "scan");
        assertEquals(ExitCodes.OK, scan.exitCode(), scan.err());
        assertEquals("alice\t1\nbob\t2", scan.out().strip());

        Path tsv = tmp.resolve("orders.tsv");
        Files.writeString(tsv, "o1\tx\no2\ty\no3\tz\n");
        Result load = cli("--keyspace", "orders", "load", tsv.toString());
        assertEquals(ExitCodes.OK, load.exitCode(), load.err());
        assertEquals(ExitCodes.OK, cli("--keyspace", "orders", "delete-range", "o1", "o3").exitCode());
        assertEquals("o3\tz", cli("--keyspace", "orders", "scan").out().strip());
        assertEquals(ExitCodes.OK, cli("--keyspace", "users", "delete", "alice").exitCode());
        assertEquals(ExitCodes.NOT_FOUND, cli("--keyspace", "users", "get", "alice").exitCode());

        Result stats = cli("--keyspace", "users", "stats");
        assertEquals(ExitCodes.OK, stats.exitCode(), stats.err());
        assertTrue(stats.out().contains("keyspaces: default, users, orders (shown: users)"), stats.out());
        Result json = cli("stats", "--json");
        assertTrue(json.out().contains("\"keyspaces\""), json.out());

        try (Store store = Store.open(tmp.resolve("db"))) {
            assertEquals(List.of("default", "users", "orders"), store.keyspaces());
            assertEquals("2", new String(store.get(store.keyspace("users"), b("bob")), StandardCharsets.UTF_8));
        }
    }

    @Test
    void ingestGoesIntoTheKeyspace() throws Exception {
        Path tsv = tmp.resolve("bulk.tsv");
        Files.writeString(tsv, "b\t2\na\t1\n");
        Result r = cli("--keyspace", "bulk", "ingest", tsv.toString());
        assertEquals(ExitCodes.OK, r.exitCode(), r.err());
        assertEquals("a\t1\nb\t2", cli("--keyspace", "bulk", "scan").out().strip());
        assertEquals("", cli("scan").out().strip(), "the default keyspace is untouched");
    }

    @Test
    void aMissingKeyspaceIsAUsageErrorNamingThoseThereAre() throws Exception {
        assertEquals(ExitCodes.OK, cli("--keyspace", "users", "put", "k", "v").exitCode());
        for (String[] args : new String[][] {{"--keyspace", "nope", "get", "k"}, {"--keyspace", "nope", "scan"},
                {"--keyspace", "nope", "delete", "k"}, {"--keyspace", "nope", "stats"}}) {
            Result r = cli(args);
            assertEquals(ExitCodes.USAGE, r.exitCode(), String.join(" ", args) + ": " + r.err());
            assertTrue(r.err().contains("keyspaces: default, users"), r.err());
        }
        try (Store store = Store.open(tmp.resolve("db"))) {
            assertEquals(List.of("default", "users"), store.keyspaces(), "reading commands create nothing");
        }
    }

    @Test
    void aKeyspaceOfAStoreAnotherProcessHoldsIsReadLive() throws Exception {
        try (Store held = Store.open(tmp.resolve("db"))) {
            held.put(held.keyspace("users"), b("alice"), b("1"));
            Result get = cli("--keyspace", "users", "get", "alice");
            assertEquals(ExitCodes.OK, get.exitCode(), get.err());
            assertEquals("1", get.out().strip());
            Result scan = cli("--keyspace", "users", "scan");
            assertEquals("alice\t1", scan.out().strip(), scan.err());
            Result missing = cli("--keyspace", "nope", "get", "alice");
            assertEquals(ExitCodes.USAGE, missing.exitCode(), missing.err());
            Result put = cli("--keyspace", "users", "put", "bob", "2");
            assertEquals(ExitCodes.LOCKED, put.exitCode(), put.err());
        }
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
