package io.bloomstore.cli.store;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.bloomstore.cli.CliRunner;
import io.bloomstore.cli.CliRunner.Result;
import io.bloomstore.cli.ExitCodes;

/**
 * {@link QuickCommands} answers every argument list it takes exactly as picocli's commands do —
 * output, error line, exit code and the store they leave — and leaves every other list to picocli.
 * Each writing case runs on two copies of the same store, one through each path, which must then
 * scan alike.
 */
class QuickCommandsTest {
    @TempDir
    Path tmp;

    private static Result quick(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = QuickCommands.tryRun(args, new PrintWriter(out, true), new PrintWriter(err, true));
        return new Result(code, out.toString(), err.toString());
    }

    @Test
    void answersAsPicocliDoes() throws Exception {
        String data = tmp.resolve("db").toString();
        assertEquals(ExitCodes.OK, CliRunner.runWithStdin("k\tv\\tw\nbin\t\\x00\\xff\n", "--data", data, "load", "-")
                .exitCode());
        Path file = Files.writeString(tmp.resolve("a-file"), "x");
        Path empty = Files.createDirectories(tmp.resolve("empty"));
        List<String[]> cases = List.of(
                new String[] {"--data", data, "get", "k"},
                new String[] {"get", "--data", data, "k"},
                new String[] {"--data=" + data, "get", "bin"},
                new String[] {"--data", data, "get", "--hex", "62696e"},
                new String[] {"--data", data, "get", "absent"},
                new String[] {"--data", data, "get", "bad\\q"},
                new String[] {"--data", data, "get", "--hex", "zz"},
                new String[] {"--data", tmp.resolve("missing").toString(), "get", "k"},
                new String[] {"--data", file.toString(), "get", "k"},
                new String[] {"--data", empty.toString(), "get", "k"},
                new String[] {"--data", "/tmp/ignored", "get", "--data", data, "k"});
        for (String[] args : cases) {
            Result q = quick(args);
            Result p = CliRunner.run(args);
            String what = String.join(" ", args);
            assertEquals(p.exitCode(), q.exitCode(), what);
            assertEquals(p.out(), q.out(), what);
            assertEquals(p.err(), q.err(), what);
        }
    }

    @Test
    void theOtherShortCommandsAnswerAsPicocliDoes() throws Exception {
        Path quickDir = tmp.resolve("quick");
        Path picoDir = tmp.resolve("pico");
        for (Path d : List.of(quickDir, picoDir)) {
            assertEquals(ExitCodes.OK, CliRunner.runWithStdin("a\t1\nb\t2\nc\t3\nca\t4\nd\t5\n", "--data",
                    d.toString(), "load", "-").exitCode());
        }
        Path file = Files.writeString(tmp.resolve("a-file"), "x");
        List<String[]> cases = List.of(
                new String[] {"put", "k", "v"},
                new String[] {"put", "--sync", "k2", "v\t2"},
                new String[] {"put", "--hex", "6b33", "ff00"},
                new String[] {"put", "--hex", "zz", "00"},
                new String[] {"put", "bad\\q", "v"},
                new String[] {"delete", "a"},
                new String[] {"delete", "--sync", "--hex", "62"},
                new String[] {"delete", "never-there"},
                new String[] {"delete-range", "b", "ca"},
                new String[] {"delete-range", "--sync", "--hex", "63", "64"},
                new String[] {"delete-range", "z", "a"},
                new String[] {"delete-range", "x", "x"},
                new String[] {"scan"},
                new String[] {"scan", "--limit", "2"},
                new String[] {"scan", "--limit=0"},
                new String[] {"scan", "--from", "b", "--to", "d"},
                new String[] {"scan", "--prefix", "c"},
                new String[] {"scan", "--prefix", "c", "--from", "a"},
                new String[] {"scan", "--reverse", "--limit", "3"},
                new String[] {"scan", "--hex", "--from", "63"},
                new String[] {"scan", "--hex", "--from", "6"},
                new String[] {"flush"});
        for (String[] command : cases) {
            Result q = quick(withData(quickDir, command));
            Result p = CliRunner.run(withData(picoDir, command));
            String what = String.join(" ", command);
            assertEquals(p.exitCode(), q.exitCode(), what);
            assertEquals(p.out().replace(picoDir.toString(), "DIR"), q.out().replace(quickDir.toString(), "DIR"), what);
            assertEquals(p.err().replace(picoDir.toString(), "DIR"), q.err().replace(quickDir.toString(), "DIR"), what);
            assertEquals(CliRunner.run(withData(picoDir, new String[] {"scan"})).out(),
                    CliRunner.run(withData(quickDir, new String[] {"scan"})).out(), "the stores after " + what);
        }
        // Statistics depend on the store's shape, which background compactions make differ between
        // the two copies: both paths report on the same store, which a read-only open leaves as it was.
        for (String[] command : List.of(new String[] {"stats"}, new String[] {"stats", "--json"})) {
            Result p = CliRunner.run(withData(quickDir, command));
            Result q = quick(withData(quickDir, command));
            assertEquals(p.exitCode(), q.exitCode(), String.join(" ", command));
            assertEquals(p.out(), q.out(), String.join(" ", command));
            assertEquals(p.err(), q.err(), String.join(" ", command));
        }
        for (String[] command : List.of(new String[] {"delete", "k"}, new String[] {"scan"},
                new String[] {"stats"}, new String[] {"flush"})) {
            for (Path d : List.of(tmp.resolve("missing"), file)) {
                Result qe = quick(withData(d, command));
                Result pe = CliRunner.run(withData(d, command));
                String what = d + " " + String.join(" ", command);
                assertEquals(pe.exitCode(), qe.exitCode(), what);
                assertEquals(pe.err(), qe.err(), what);
            }
        }
    }

    private static String[] withData(Path dir, String[] command) {
        String[] args = new String[command.length + 2];
        args[0] = "--data";
        args[1] = dir.toString();
        System.arraycopy(command, 0, args, 2, command.length);
        return args;
    }

    @Test
    void leavesEverythingElseToPicocli() {
        List<String[]> others = List.of(
                new String[] {"get"},
                new String[] {"get", "a", "b"},
                new String[] {"get", "--help"},
                new String[] {"get", "--keys-from", "-"},
                new String[] {"get", "--max-open-files", "5", "k"},
                new String[] {"get", "-x"},
                new String[] {"get", "--hex", "--hex", "6b"},
                new String[] {"--data", "a", "--data", "b", "get", "k"},
                new String[] {"get", "--data"},
                new String[] {"put", "k"},
                new String[] {"put", "k", "v", "w"},
                new String[] {"put", "k", "-v"},
                new String[] {"put", "--help"},
                new String[] {"delete", "--max-open-files", "5", "k"},
                new String[] {"scan", "--limit", "-1"},
                new String[] {"scan", "--limit", "ten"},
                new String[] {"scan", "--limit"},
                new String[] {"scan", "--from", "a", "--from", "b"},
                new String[] {"scan", "--prefix-extractor", "fixed:1"},
                new String[] {"scan", "extra"},
                new String[] {"stats", "--json", "--json"},
                new String[] {"flush", "now"},
                new String[] {"compact"},
                new String[] {"load", "-"},
                new String[] {"--verbose", "--verbose", "get", "k"},
                new String[] {"--help"},
                new String[] {});
        for (String[] args : others) {
            assertEquals(QuickCommands.NOT_HANDLED, quick(args).exitCode(), String.join(" ", args));
        }
    }
}
