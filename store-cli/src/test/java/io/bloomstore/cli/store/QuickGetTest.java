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
 * {@link QuickGet} answers every argument list it takes exactly as picocli's {@code get} does —
 * output, error line and exit code — and leaves every other list to picocli.
 */
class QuickGetTest {
    @TempDir
    Path tmp;

    private static Result quick(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = QuickGet.tryRun(args, new PrintWriter(out, true), new PrintWriter(err, true));
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
                new String[] {"put", "k", "v"},
                new String[] {"--help"},
                new String[] {});
        for (String[] args : others) {
            assertEquals(QuickGet.NOT_HANDLED, quick(args).exitCode(), String.join(" ", args));
        }
    }
}
