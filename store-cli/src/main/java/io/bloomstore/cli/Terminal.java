package io.bloomstore.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * Whether a person is watching: progress bars are drawn only when the process runs on a terminal
 * and its standard error goes to one, as cargo and pip decide. With the output sent to a file or a
 * pipe ({@code bench > log}, {@code load ... | tee}, a CI job) the carriage-return frames of a
 * progress bar would be most of the log, so nothing is drawn.
 *
 * <p>{@link System#console()} is null unless standard input and output are both terminals; standard
 * error, where the bars go, is checked besides through {@code /proc/self/fd/2} where the system has it
 * (on other systems the console's answer stands).
 *
 * <p>Thread safety: stateless.
 */
public final class Terminal {
    private static final Path STDERR_LINK = Path.of("/proc/self/fd/2");

    private Terminal() {
    }

    /** Whether progress bars should be drawn on standard error now. */
    public static boolean showsProgress() {
        return showsProgress(System.console() != null, stderrTarget());
    }

    /**
     * The decision, from whether the JVM has a console and, where known, what standard error is
     * connected to (the target of {@code /proc/self/fd/2}: a device such as {@code /dev/pts/3}, a
     * file's path, {@code pipe:[…]}).
     */
    static boolean showsProgress(boolean hasConsole, Optional<String> stderrTarget) {
        if (!hasConsole) {
            return false;
        }
        return stderrTarget.map(t -> t.startsWith("/dev/pts/") || t.startsWith("/dev/tty")).orElse(true);
    }

    private static Optional<String> stderrTarget() {
        try {
            return Optional.of(Files.readSymbolicLink(STDERR_LINK).toString());
        } catch (IOException | UnsupportedOperationException | SecurityException e) {
            return Optional.empty();
        }
    }
}
