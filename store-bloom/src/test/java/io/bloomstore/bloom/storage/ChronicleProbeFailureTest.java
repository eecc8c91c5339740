package io.bloomstore.bloom.storage;

import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.io.IOException;
import java.nio.file.NoSuchFileException;
import org.junit.jupiter.api.Test;

/**
 * However Chronicle Bytes' start-up fails, the probe reports it as a failure (the JDK's mappings are
 * then chosen) instead of letting it escape from the first filter mapping. On Java 25 with the
 * {@code --add-opens} flags, Chronicle's {@code OS} class initializer throws an
 * {@link AssertionError} ({@code FileChannelImpl.unmap0} is gone), which, being an {@link Error},
 * the JVM does not wrap in an {@link ExceptionInInitializerError}: a lookup's {@code get} threw it.
 */
class ChronicleProbeFailureTest {
    @Test
    void everyWayChroniclesStartUpFailsIsReportedNotThrown() {
        AssertionError assertion = new AssertionError(new NoSuchMethodException(
                "sun.nio.ch.FileChannelImpl.unmap0(long,long)"));
        assertSame(assertion, OffHeapBackend.failureOf(() -> {
            throw assertion;
        }));
        ExceptionInInitializerError init = new ExceptionInInitializerError(new IllegalStateException("no access"));
        assertSame(init, OffHeapBackend.failureOf(() -> {
            throw init;
        }));
        IOException io = new NoSuchFileException("probe");
        assertSame(io, OffHeapBackend.failureOf(() -> {
            throw io;
        }));
        assertNull(OffHeapBackend.failureOf(() -> { }));
    }
}
