package io.bloomstore.cli;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Progress bars only where a person watches: a console, and standard error on a terminal device. */
class TerminalTest {

    @Test
    void drawsOnlyOnATerminal() {
        assertTrue(Terminal.showsProgress(true, Optional.of("/dev/pts/3")), "an interactive shell");
        assertTrue(Terminal.showsProgress(true, Optional.of("/dev/tty1")), "a virtual console");
        assertTrue(Terminal.showsProgress(true, Optional.empty()), "no /proc: the console's answer stands");
        assertFalse(Terminal.showsProgress(false, Optional.of("/dev/pts/3")), "bench > log: stdout is a file");
        assertFalse(Terminal.showsProgress(false, Optional.empty()), "no console, no /proc");
        assertFalse(Terminal.showsProgress(true, Optional.of("/tmp/bench.err")), "bench 2> file");
        assertFalse(Terminal.showsProgress(true, Optional.of("pipe:[40213]")), "bench 2>&1 | less");
    }

    /** A test's JVM runs with its output captured by the build: never a terminal. */
    @Test
    void aTestRunIsNoTerminal() {
        assertFalse(Terminal.showsProgress());
    }
}
