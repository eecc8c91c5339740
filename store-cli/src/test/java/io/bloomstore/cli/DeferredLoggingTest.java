package io.bloomstore.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.event.DefaultLoggingEvent;
import org.slf4j.event.Level;
import org.slf4j.spi.LoggingEventAware;

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
    void aReplayedEventIsLoggedAtWarningAndDroppedBelowIt() {
        // SLF4J records the calls other threads make while it binds a provider and replays them
        // as events; a logger that is not event-aware drops them with a warning on standard error.
        DeferredLogging provider = new DeferredLogging();
        Logger log = provider.getLoggerFactory().getLogger("io.bloomstore.test.Replayed");
        assertTrue(log instanceof LoggingEventAware);
        LoggingEventAware aware = (LoggingEventAware) log;
        aware.log(new DefaultLoggingEvent(Level.INFO, log));
        assertFalse(provider.started(), "a replayed INFO event leaves logback unstarted");
        DefaultLoggingEvent warning = new DefaultLoggingEvent(Level.WARN, log);
        warning.setMessage("deferred logging test: this replayed warning starts logback");
        aware.log(warning);
        assertTrue(provider.started(), "a replayed WARN event reaches logback");
    }

    @Test
    void aUserConfigurationStartsLogbackAtOnce() {
        DeferredLogging provider = new DeferredLogging();
        provider.initialize();
        assertTrue(provider.started(), "logback-test.xml is on the test class path");
    }
}
