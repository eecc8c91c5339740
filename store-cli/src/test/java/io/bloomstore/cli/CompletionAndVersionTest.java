package io.bloomstore.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code bloomstore completion} and {@code bloomstore --version}. */
class CompletionAndVersionTest {

    @TempDir
    Path dir;

    @Test
    void completionScriptKnowsEveryCommand() {
        CliRunner.Result r = CliRunner.run("completion");
        assertEquals(0, r.exitCode(), r.err());
        assertEquals("", r.err());
        assertTrue(r.out().contains("complete -F _complete_bloomstore"), "a bash completion registration");
        assertTrue(r.out().contains("ZSH_VERSION"), "the zsh set-up");
        for (String command : List.of("put", "get", "delete", "scan", "load", "stats", "flush", "compact", "verify",
                "filter", "bench", "bench-streams", "experiment", "jmh", "completion")) {
            assertTrue(r.out().contains("'" + command + "'") || r.out().contains(" " + command + " ")
                    || r.out().contains(" " + command + "\""), command + " missing from the script");
        }
    }

    /** The script completes in a real bash: "comp" to compact and completion, a store command's options. */
    @Test
    void bashCompletesWithTheScript() throws IOException, InterruptedException {
        Path script = dir.resolve("bloomstore-completion.bash");
        Files.writeString(script, CliRunner.run("completion").out(), StandardCharsets.UTF_8);
        String probe = "source '" + script + "' 2>/dev/null\n"
                + "COMP_LINE='bloomstore comp'; COMP_WORDS=(bloomstore comp); COMP_CWORD=1\n"
                + "_complete_bloomstore 2>/dev/null; echo \"${COMPREPLY[*]}\"\n"
                + "COMP_LINE='bloomstore get --'; COMP_WORDS=(bloomstore get --); COMP_CWORD=2\n"
                + "_complete_bloomstore 2>/dev/null; echo \"${COMPREPLY[*]}\"\n";
        Process bash;
        try {
            bash = new ProcessBuilder("bash", "-c", probe).redirectErrorStream(true).start();
        } catch (IOException noBash) {
            org.junit.jupiter.api.Assumptions.abort("no bash on this machine: " + noBash.getMessage());
            return;
        }
        String out = new String(bash.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, bash.waitFor(), out);
        List<String> lines = out.lines().toList();
        assertEquals("compact completion", lines.get(0), out);
        assertTrue(lines.get(1).contains("--data") && lines.get(1).contains("--hex")
                && lines.get(1).contains("--max-open-files"), out);
    }

    @Test
    void versionNamesTheVersionAndTheCommit() throws IOException, InterruptedException {
        CliRunner.Result r = CliRunner.run("--version");
        assertEquals(0, r.exitCode(), r.err());
        String first = r.out().lines().findFirst().orElse("");
        assertTrue(first.matches("BloomStore \\d+\\.\\d+\\.\\d+(-SNAPSHOT)? "
                + "\\((commit [0-9a-f]{7,40}( with local changes)?|commit unknown)\\)"), first);
        assertTrue(r.out().contains("Java " + System.getProperty("java.version")), r.out());
        String head = gitHead();
        if (head != null) {
            assertTrue(first.contains("commit " + head), "built in a checkout at " + head + ": " + first);
        }
    }

    /** The abbreviated commit of the checkout the tests run in, or null outside one (or without git). */
    private static String gitHead() throws IOException, InterruptedException {
        Process git;
        try {
            git = new ProcessBuilder("git", "rev-parse", "--short=7", "HEAD").redirectErrorStream(true).start();
        } catch (IOException noGit) {
            return null;
        }
        String out = new String(git.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        return git.waitFor() == 0 && out.matches("[0-9a-f]{7}") ? out : null;
    }
}
