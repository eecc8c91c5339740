package io.bloomstore.bloom.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

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

    @Test
    void aPackageNotOpenedIsFoundWithoutLoadingChronicle() {
        // The tests run with bloomstore.jar's flags: every package Chronicle needs is open.
        assertNull(OffHeapBackend.closedPackage(OffHeapBackend.CHRONICLE_OPENS));
        assertEquals("jdk.internal.math", OffHeapBackend.closedPackage(List.of("java.lang", "jdk.internal.math")));
    }

    /**
     * A JVM started without the flags (as a library's host or a {@code java -cp} child is) chooses
     * the JDK's mappings on the closed package, not on a failure inside Chronicle's start-up.
     */
    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void withoutTheFlagsTheJdkIsChosenOnTheClosedPackage() throws Exception {
        Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), NoFlags.class.getName())
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, p.waitFor(), out);
        assertTrue(out.contains("backend jdk-bytebuffer"), out);
        assertTrue(out.contains("failure java.lang.IllegalAccessException: module java.base does not open java.lang "
                + "to Chronicle Bytes' module"), out);
    }

    /** The child of {@link #withoutTheFlagsTheJdkIsChosenOnTheClosedPackage}. */
    public static final class NoFlags {
        public static void main(String[] args) {
            System.out.println("backend " + OffHeapBackend.active().label());
            System.out.println("failure " + OffHeapBackend.chronicleFailure());
        }
    }
}
