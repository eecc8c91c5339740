package io.bloomstore.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.MalformedInputException;
import java.nio.file.AccessDeniedException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;

import io.bloomstore.bloom.CorruptionException;
import io.bloomstore.bloom.FormatVersionException;
import io.bloomstore.bloom.NotAFilterFileException;
import io.bloomstore.core.LockedException;

/** The exit-code scheme of {@link ExitCodes}: each exception kind maps to its code and message. */
class ErrorHandlerTest {
    private static final Path F = Path.of("data", "f.bsf");

    @Test
    void exceptionKindsMapToTheirCodes() {
        assertEquals(ExitCodes.NOT_FOUND, ErrorHandler.exitCode(new CliException(ExitCodes.NOT_FOUND, "no such key")));
        assertEquals(ExitCodes.USAGE, ErrorHandler.exitCode(new IllegalArgumentException("bad")));
        assertEquals(ExitCodes.IO, ErrorHandler.exitCode(new NoSuchFileException(F.toString())));
        assertEquals(ExitCodes.IO, ErrorHandler.exitCode(new IOException("disk full")));
        assertEquals(ExitCodes.CORRUPTION, ErrorHandler.exitCode(new CorruptionException(F, 60, "bad")));
        assertEquals(ExitCodes.FORMAT, ErrorHandler.exitCode(new NotAFilterFileException(F)));
        assertEquals(ExitCodes.FORMAT, ErrorHandler.exitCode(new FormatVersionException(F, "filter", 2, 1)));
        assertEquals(ExitCodes.FORMAT, ErrorHandler.exitCode(new MalformedInputException(1)));
        assertEquals(ExitCodes.LOCKED, ErrorHandler.exitCode(new LockedException(F)));
        assertEquals(ExitCodes.INTERNAL, ErrorHandler.exitCode(new IllegalStateException("bug")));
        assertEquals(ExitCodes.INTERNAL, ErrorHandler.exitCode(new NullPointerException()));
    }

    @Test
    void messagesSayWhatHappened() {
        assertEquals("no such file: " + F, ErrorHandler.message(new NoSuchFileException(F.toString())));
        assertEquals("permission denied: " + F, ErrorHandler.message(new AccessDeniedException(F.toString())));
        assertEquals("I/O error: disk full", ErrorHandler.message(new IOException("disk full")));
        assertEquals("corruption in " + F + " at offset 60: bad", ErrorHandler.message(new CorruptionException(F, 60, "bad")));
        assertTrue(ErrorHandler.message(new IllegalStateException("bug")).startsWith("internal error: "));
    }
}
