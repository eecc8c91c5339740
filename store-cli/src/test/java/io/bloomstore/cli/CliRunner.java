package io.bloomstore.cli;

import java.io.ByteArrayInputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;

/** Runs {@code bloomstore} in-process with captured stdout and stderr. */
public final class CliRunner {

    /** What a run printed and returned. */
    public record Result(int exitCode, String out, String err) {
        /** stderr's lines; a failure prints exactly one unless --verbose. */
        public java.util.List<String> errLines() {
            return err.lines().toList();
        }
    }

    private CliRunner() {
    }

    public static Result run(String... args) {
        return runWithStdin("", args);
    }

    public static Result runWithStdin(String stdin, String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        Main main = new Main(new ByteArrayInputStream(stdin.getBytes(StandardCharsets.UTF_8)));
        int code = Main.commandLine(main, args, new PrintWriter(out, true), new PrintWriter(err, true)).execute(args);
        return new Result(code, out.toString(), err.toString());
    }
}
