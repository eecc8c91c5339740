package io.bloomstore.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.Configurator.ExecutionStatus;
import ch.qos.logback.classic.util.LogbackMDCAdapter;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The command line's logging set up in code: warnings to standard error, nothing below. */
class CliLogConfiguratorTest {

    @Test
    void warningsGoToStandardErrorAndInfoDoesNot() {
        LoggerContext context = new LoggerContext();
        // As logback's service provider does for the real context.
        context.setMDCAdapter(new LogbackMDCAdapter());
        context.start();
        PrintStream err = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        try {
            System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
            assertEquals(ExecutionStatus.DO_NOT_INVOKE_NEXT_IF_ANY, new CliLogConfigurator().configure(context, false));
            context.getLogger("io.bloomstore.core.db.DbBackground").warn("compaction fell behind");
            context.getLogger("io.bloomstore.core.db.DbBackground").info("flushed a table");
        } finally {
            System.setErr(err);
            context.stop();
        }
        String out = captured.toString(StandardCharsets.UTF_8);
        assertTrue(out.matches("\\d\\d:\\d\\d:\\d\\d\\.\\d{3} WARN  i\\.b\\.c\\.d\\.DbBackground - compaction fell behind\\R"),
                out);
        assertFalse(out.contains("flushed"), out);
    }

    @Test
    void aLoggerHeldToErrorsDropsItsWarnings() {
        CliLogConfigurator.holdToErrors("org.example.chatty");
        LoggerContext context = new LoggerContext();
        context.setMDCAdapter(new LogbackMDCAdapter());
        context.start();
        PrintStream err = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        try {
            System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
            new CliLogConfigurator().configure(context, false);
            context.getLogger("org.example.chatty.Config").warn("consider a setting");
            context.getLogger("org.example.chatty.Config").error("broken");
            context.getLogger("org.example.other").warn("still shown");
        } finally {
            System.setErr(err);
            context.stop();
        }
        String out = captured.toString(StandardCharsets.UTF_8);
        assertFalse(out.contains("consider a setting"), out);
        assertTrue(out.contains("broken") && out.contains("still shown"), out);
    }

    @Test
    void aConfigurationOfTheUsersOwnIsLeftToLogback() {
        LoggerContext context = new LoggerContext();
        assertEquals(ExecutionStatus.INVOKE_NEXT_IF_ANY, new CliLogConfigurator().configure(context, true));
        assertFalse(context.getLogger("ROOT").iteratorForAppenders().hasNext());
    }
}
