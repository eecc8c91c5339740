package io.bloomstore.cli.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.bloomstore.cli.CliRunner;
import io.bloomstore.cli.CliRunner.Result;
import io.bloomstore.cli.ExitCodes;

/** {@code get} with several keys or {@code --keys-from}: one open, TSV out, absent keys on stderr. */
class GetManyKeysTest {
    @TempDir
    Path tmp;

    private String store() {
        String data = tmp.resolve("db").toString();
        Result load = CliRunner.runWithStdin("a\t1\nb\t2\ntab\\tkey\tx\\ny\n", "--data", data, "load", "-");
        assertEquals(ExitCodes.OK, load.exitCode(), load.err());
        return data;
    }

    @Test
    void severalKeysPrintTsvAndReportTheAbsentOnes() {
        String data = store();
        Result r = CliRunner.run("--data", data, "get", "a", "nope", "b");
        assertEquals(ExitCodes.NOT_FOUND, r.exitCode(), "one key was absent");
        assertEquals("a\t1\nb\t2\n", r.out());
        assertEquals("absent: nope\n", r.err());
        Result all = CliRunner.run("--data", data, "get", "a", "b");
        assertEquals(ExitCodes.OK, all.exitCode(), all.err());
        assertEquals("a\t1\nb\t2\n", all.out());
    }

    @Test
    void keysFromAFileOrStdinWithLoadsEscapes() throws Exception {
        String data = store();
        Path keys = tmp.resolve("keys.txt");
        Files.writeString(keys, "b\n\ntab\\tkey\nmissing\n");
        Result r = CliRunner.run("--data", data, "get", "--keys-from", keys.toString());
        assertEquals(ExitCodes.NOT_FOUND, r.exitCode());
        assertEquals("b\t2\ntab\\tkey\tx\\ny\n", r.out(), "escaped output, as scan prints it");
        assertEquals("absent: missing\n", r.err());
        Result stdin = CliRunner.runWithStdin("a\nb\n", "--data", data, "get", "--keys-from", "-");
        assertEquals(ExitCodes.OK, stdin.exitCode(), stdin.err());
        assertEquals("a\t1\nb\t2\n", stdin.out());
        Result reload = CliRunner.runWithStdin(stdin.out(), "--data", tmp.resolve("copy").toString(), "load", "-");
        assertEquals(ExitCodes.OK, reload.exitCode(), "get's output loads back: " + reload.err());
    }

    @Test
    void aBadKeyLineNamesTheLine() throws Exception {
        String data = store();
        Path keys = tmp.resolve("bad.txt");
        Files.writeString(keys, "a\nbad\\q\n");
        Result r = CliRunner.run("--data", data, "get", "--keys-from", keys.toString());
        assertEquals(ExitCodes.FORMAT, r.exitCode(), r.err());
        assertEquals(1, r.errLines().size(), r.err());
        assertTrue(r.err().contains("bad.txt line 2"), r.err());
        Result none = CliRunner.run("--data", data, "get");
        assertEquals(ExitCodes.USAGE, none.exitCode(), none.err());
    }

    @Test
    void oneKeyStillPrintsTheValueAlone() {
        String data = store();
        Result r = CliRunner.run("--data", data, "get", "a");
        assertEquals(ExitCodes.OK, r.exitCode(), r.err());
        assertEquals("1\n", r.out());
        Result absent = CliRunner.run("--data", data, "get", "zz");
        assertEquals(ExitCodes.NOT_FOUND, absent.exitCode());
        assertEquals("", absent.out() + absent.err());
    }
}
