package io.bloomstore.cli;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.spi.Configurator;
import ch.qos.logback.classic.spi.ConfiguratorRank;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.ConsoleAppender;
import ch.qos.logback.core.spi.ContextAwareBase;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The command line's logging, set up in code: warnings and errors to standard error as
 * {@code HH:mm:ss.SSS LEVEL logger - message}. Found by logback through {@code META-INF/services}
 * before its XML configuration, which it replaces because parsing XML costs a one-shot command
 * about a fifth of a second (some 300 classes of XML parser and configuration model) for two
 * lines of settings. A configuration of the user's own — {@code -Dlogback.configurationFile=F}, or
 * a {@code logback.xml} / {@code logback-test.xml} on the class path — is left to logback as usual.
 *
 * <p>A command may hold a library's loggers to errors ({@link #holdToErrors}): {@code bench-streams}
 * does so for Kafka's unless {@code --verbose}, so its output carries its results, not Kafka's
 * advice.
 *
 * <p>Thread safety: logback calls {@link #configure} once, while it initializes;
 * {@link #holdToErrors} may be called from any thread, before or after that.
 */
@ConfiguratorRank(ConfiguratorRank.CUSTOM_HIGH_PRIORITY)
public final class CliLogConfigurator extends ContextAwareBase implements Configurator {
    static final String PATTERN = "%d{HH:mm:ss.SSS} %-5level %logger{20} - %msg%n";

    /** Loggers held to ERROR in the command line's configuration. */
    private static final Set<String> HELD_TO_ERRORS = ConcurrentHashMap.newKeySet();
    /** The context this configuration set up, once logback has started; null before. */
    private static volatile LoggerContext configured;

    /**
     * Holds {@code loggerName} and the loggers below it to errors, in the command line's own
     * configuration only (a configuration of the user's sets its levels itself). Takes effect
     * whether or not logback has started yet.
     */
    public static void holdToErrors(String loggerName) {
        HELD_TO_ERRORS.add(loggerName);
        LoggerContext context = configured;
        if (context != null) {
            context.getLogger(loggerName).setLevel(Level.ERROR);
        }
    }

    @Override
    public ExecutionStatus configure(LoggerContext context) {
        ClassLoader loader = CliLogConfigurator.class.getClassLoader();
        return configure(context, System.getProperty("logback.configurationFile") != null
                || loader.getResource("logback-test.xml") != null || loader.getResource("logback.xml") != null);
    }

    /** Sets the command line's logging up in {@code context}, unless the user configured logback. */
    ExecutionStatus configure(LoggerContext context, boolean userConfigured) {
        if (userConfigured) {
            return ExecutionStatus.INVOKE_NEXT_IF_ANY;
        }
        PatternLayoutEncoder encoder = new PatternLayoutEncoder();
        encoder.setContext(context);
        encoder.setPattern(PATTERN);
        encoder.start();
        ConsoleAppender<ILoggingEvent> stderr = new ConsoleAppender<>();
        stderr.setContext(context);
        stderr.setName("STDERR");
        stderr.setTarget("System.err");
        stderr.setEncoder(encoder);
        stderr.start();
        Logger root = context.getLogger(Logger.ROOT_LOGGER_NAME);
        root.setLevel(Level.WARN);
        root.addAppender(stderr);
        configured = context;
        HELD_TO_ERRORS.forEach(name -> context.getLogger(name).setLevel(Level.ERROR));
        return ExecutionStatus.DO_NOT_INVOKE_NEXT_IF_ANY;
    }
}
