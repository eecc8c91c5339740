package io.bloomstore.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.slf4j.Logger;

/**
 * {@link DeferredLogging}: logback starts on the first WARN, not on DEBUG or INFO calls; once
 * started, the loggers answer what logback's configuration says. The test class path has a
 * {@code logback-test.xml}, which makes the provider start logback at once, so these tests drive a
 * provider whose start-up check is skipped.
 */
class DeferredLoggingTest {
    @Test
    void logbackStartsOnTheFirstWarningOnly() {
        DeferredLogging provider = new DeferredLogging();
        Logger log = provider.getLoggerFactory().getLogger("io.bloomstore.test.Deferred");
        assertEquals("io.bloomstore.test.Deferred", log.getName());
        assertFalse(log.isDebugEnabled());
        assertFalse(log.isInfoEnabled());
        log.debug("not shown {}", 1);
        log.info("not shown either");
        assertFalse(provider.started(), "DEBUG and INFO calls leave logback unstarted");
        log.warn("deferred logging test: this warning starts logback");
        assertTrue(provider.started());
        assertTrue(log.isWarnEnabled());
    }

    @Test
    void aUserConfigurationStartsLogbackAtOnce() {
        DeferredLogging provider = new DeferredLogging();
        provider.initialize();
        assertTrue(provider.started(), "logback-test.xml is on the test class path");
    }
}
