package io.bloomstore.cli;

import java.io.File;
import java.util.List;

import org.slf4j.ILoggerFactory;
import org.slf4j.IMarkerFactory;
import org.slf4j.Logger;
import org.slf4j.Marker;
import org.slf4j.event.Level;
import org.slf4j.event.LoggingEvent;
import org.slf4j.helpers.BasicMDCAdapter;
import org.slf4j.helpers.BasicMarkerFactory;
import org.slf4j.helpers.LegacyAbstractLogger;
import org.slf4j.spi.LocationAwareLogger;
import org.slf4j.spi.LoggingEventAware;
import org.slf4j.spi.MDCAdapter;
import org.slf4j.spi.SLF4JServiceProvider;

import ch.qos.logback.classic.spi.LogbackServiceProvider;

/**
 * The command line's SLF4J binding: logback, started only when something is logged at a level the
 * command line shows (WARN and ERROR, {@link CliLogConfigurator}). A one-shot command that logs
 * nothing — a {@code get} — never loads logback's two hundred classes; the engine makes its
 * loggers on first use, and each costs one small object until then. {@link Start#main} names
 * this class in the {@code slf4j.provider} system property unless the user set it; where the user
 * configures logback ({@code -Dlogback.configurationFile}, or a {@code logback.xml} on the class
 * path) levels may be anything, so logback starts at once and every call goes straight to it.
 *
 * <p>Thread safety: safe for concurrent use; logback is started at most once.
 */
public final class DeferredLogging implements SLF4JServiceProvider {
    private static final String FQCN = DeferredLogger.class.getName();

    private final IMarkerFactory markers = new BasicMarkerFactory();
    private final MDCAdapter mdc = new BasicMDCAdapter();
    /** An anonymous class, not a constructor reference: no lambda spun by a one-shot command's start. */
    private final ILoggerFactory factory = new ILoggerFactory() {
        @Override
        public Logger getLogger(String name) {
            return new DeferredLogger(name);
        }
    };
    private final Object startLock = new Object();
    private volatile LogbackServiceProvider logback;

    @Override
    public ILoggerFactory getLoggerFactory() {
        return factory;
    }

    @Override
    public IMarkerFactory getMarkerFactory() {
        return markers;
    }

    @Override
    public MDCAdapter getMDCAdapter() {
        return mdc;
    }

    @Override
    public String getRequestedApiVersion() {
        return "2.0.99";
    }

    @Override
    public void initialize() {
        if (System.getProperty("logback.configurationFile") != null || configurationOnClassPath()) {
            logback();
        }
    }

    /**
     * Whether the class path is one of BloomStore's own jars alone ({@code java -jar bloomstore.jar},
     * the launcher's {@code bloomstore-lean.jar}): they hold no logback configuration, and they
     * register this class as their one SLF4J provider.
     */
    static boolean ownJarAlone() {
        String classPath = System.getProperty("java.class.path", "");
        String name = classPath.substring(classPath.lastIndexOf(File.separatorChar) + 1);
        return classPath.indexOf(File.pathSeparatorChar) < 0 && name.startsWith("bloomstore") && name.endsWith(".jar");
    }

    /**
     * Whether the class path holds a {@code logback.xml} or {@code logback-test.xml}. When the class
     * path is one of BloomStore's own jars alone ({@code java -jar bloomstore.jar}, the launcher's
     * {@code bloomstore-lean.jar}), which hold neither, the two resource lookups (some 7 ms of a
     * one-shot command's start) are skipped.
     */
    private static boolean configurationOnClassPath() {
        if (ownJarAlone()) {
            return false;
        }
        ClassLoader loader = DeferredLogging.class.getClassLoader();
        return loader.getResource("logback.xml") != null || loader.getResource("logback-test.xml") != null;
    }

    /** Whether logback has been started (something was logged, or the user configured it). */
    public boolean started() {
        return logback != null;
    }

    private LogbackServiceProvider logback() {
        LogbackServiceProvider l = logback;
        if (l == null) {
            synchronized (startLock) {
                l = logback;
                if (l == null) {
                    l = new LogbackServiceProvider();
                    l.initialize();
                    logback = l;
                }
            }
        }
        return l;
    }

    /**
     * A logger that answers "disabled" below WARN until logback runs, and hands everything else to it.
     * Event-aware: a call made on another thread while SLF4J binds this provider is recorded by
     * SLF4J and replayed here, not dropped with a warning on standard error.
     */
    private final class DeferredLogger extends LegacyAbstractLogger implements LoggingEventAware {
        private static final long serialVersionUID = 1L;
        private transient volatile Logger target;

        DeferredLogger(String name) {
            this.name = name;
        }

        private Logger target() {
            Logger t = target;
            if (t == null) {
                t = logback().getLoggerFactory().getLogger(name);
                target = t;
            }
            return t;
        }

        /** Below WARN: the command line's configuration shows nothing, so logback need not start to say so. */
        private boolean enabledBelowWarn(Level level) {
            if (logback == null) {
                return false;
            }
            Logger t = target();
            return switch (level) {
                case TRACE -> t.isTraceEnabled();
                case DEBUG -> t.isDebugEnabled();
                default -> t.isInfoEnabled();
            };
        }

        @Override
        public boolean isTraceEnabled() {
            return enabledBelowWarn(Level.TRACE);
        }

        @Override
        public boolean isDebugEnabled() {
            return enabledBelowWarn(Level.DEBUG);
        }

        @Override
        public boolean isInfoEnabled() {
            return enabledBelowWarn(Level.INFO);
        }

        @Override
        public boolean isWarnEnabled() {
            return target().isWarnEnabled();
        }

        @Override
        public boolean isErrorEnabled() {
            return target().isErrorEnabled();
        }

        @Override
        public void log(LoggingEvent event) {
            Level level = event.getLevel();
            boolean enabled = switch (level) {
                case ERROR -> isErrorEnabled();
                case WARN -> isWarnEnabled();
                default -> enabledBelowWarn(level);
            };
            if (enabled) {
                List<Marker> markers = event.getMarkers();
                handleNormalizedLoggingCall(level, markers == null || markers.isEmpty() ? null : markers.get(0),
                        event.getMessage(), event.getArgumentArray(), event.getThrowable());
            }
        }

        @Override
        protected String getFullyQualifiedCallerName() {
            return FQCN;
        }

        @Override
        protected void handleNormalizedLoggingCall(Level level, Marker marker, String messagePattern,
                                                   Object[] arguments, Throwable throwable) {
            Logger t = target();
            if (t instanceof LocationAwareLogger located) {
                located.log(marker, FQCN, level.toInt(), messagePattern, arguments, throwable);
            } else {
                t.atLevel(level).setCause(throwable).log(messagePattern, arguments);
            }
        }
    }
}
