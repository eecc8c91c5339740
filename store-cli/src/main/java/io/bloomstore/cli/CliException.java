package io.bloomstore.cli;

/**
 * A failure a command has already put into words for the user, with its exit code from
 * {@link ExitCodes}: {@link ErrorHandler} prints the message as the one line on stderr.
 */
public class CliException extends RuntimeException {
    private final int exitCode;

    public CliException(int exitCode, String message) {
        this(exitCode, message, null);
    }

    public CliException(int exitCode, String message, Throwable cause) {
        super(message, cause);
        this.exitCode = exitCode;
    }

    public int exitCode() {
        return exitCode;
    }
}
