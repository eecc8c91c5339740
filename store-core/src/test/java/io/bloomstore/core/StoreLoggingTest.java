package io.bloomstore.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;

import io.bloomstore.core.fs.FaultInjectionFileSystem;
import io.bloomstore.core.fs.LocalFileSystem;

/**
 * Flushes, compactions and background failures are logged through SLF4J, one line per event
 * with sizes and durations (captured here with logback, the tests' binding).
 */
class StoreLoggingTest {
    private final Logger engine = (Logger) LoggerFactory.getLogger("io.bloomstore.core.db");
    private final ListAppender<ILoggingEvent> events = new ListAppender<>();
    private Level levelBefore;

    @TempDir
    Path dir;

    @BeforeEach
    void capture() {
        levelBefore = engine.getLevel();
        engine.setLevel(Level.INFO);
        events.start();
        engine.addAppender(events);
    }

    @AfterEach
    void release() {
        engine.detachAppender(events);
        engine.setLevel(levelBefore);
    }

    @Test
    void flushAndCompactionAreOneLineEach() throws Exception {
        try (Store store = Store.open(dir, StoreOptions.builder().autoCompaction(false).build())) {
            for (int round = 0; round < 2; round++) {
                for (int i = 0; i < 100; i++) {
                    store.put(key(round * 100 + i), key(i));
                }
                store.flush();
            }
            store.compact();
        }
        List<String> flushes = lines(Level.INFO, "Flushed memtable");
        assertEquals(2, flushes.size(), lines());
        assertTrue(flushes.get(0).matches("Flushed memtable of 100 entries \\(\\d+ bytes\\) to L0 table \\d+: \\d+ bytes"
                + " \\+ \\d+ filter bytes in \\d+ ms"), flushes.get(0));
        List<String> compactions = lines(Level.INFO, "Compacted L0 -> L1");
        assertEquals(1, compactions.size(), lines());
        assertTrue(compactions.get(0).matches("Compacted L0 -> L1: 2 tables \\(\\d+ bytes\\) into 1 tables \\(\\d+ bytes,"
                + " filters included; \\d+ data blocks copied whole\\) in \\d+ ms"), compactions.get(0));
    }

    @Test
    void slowedWritesAreLoggedWhenTheyStartNotOnEveryWrite() throws Exception {
        long slowdowns;
        try (Store store = Store.open(dir, StoreOptions.builder().memtableBytes(1024).l0Triggers(1, 1, 1000)
                .build())) {
            // Scattered keys: every table overlaps the next level, so none leaves level 0 by a trivial move.
            for (int i = 0; i < 200; i++) {
                store.put(key(i * 37 % 200), new byte[100]);
            }
            slowdowns = store.stats().writeSlowdowns();
        }
        List<String> slowed = lines(Level.INFO, "Writes slowed");
        assertTrue(slowdowns > 0, "level 0 at its slowdown trigger of 1 delays writes");
        assertTrue(!slowed.isEmpty() && slowed.size() <= slowdowns, slowed.size() + " lines for " + slowdowns
                + " slowed groups");
        assertTrue(slowed.get(0).matches("Writes slowed: level 0 holds \\d+ tables \\(slowdown trigger 1\\); writes"
                + " held to 16777216 bytes/s"), slowed.get(0));
        System.out.printf("%d slowed write groups, %d log lines%n", slowdowns, slowed.size());
    }

    @Test
    void aFailedFlushIsLoggedOnceAsAnError() throws Exception {
        FaultInjectionFileSystem fs = new FaultInjectionFileSystem(LocalFileSystem.INSTANCE, 1)
                .onlyFiles(p -> p.getFileName().toString().endsWith(".sst"));
        try (Store store = Store.open(fs, dir, StoreOptions.defaults())) {
            store.put(key(1), key(1));
            fs.failWritesAfterBytes(0);
            assertThrows(IOException.class, store::flush);
        } catch (IOException closeFailure) {
            // Close may report the same failure; the log line is what this test is about.
        }
        List<String> errors = lines(Level.ERROR, "store ");
        assertEquals(1, errors.size(), lines());
        assertTrue(errors.get(0).contains("flush failed") && errors.get(0).contains("read-only"), errors.get(0));
    }

    private List<String> lines(Level level, String prefix) {
        return events.list.stream().filter(e -> e.getLevel() == level)
                .map(ILoggingEvent::getFormattedMessage).filter(m -> m.startsWith(prefix)).collect(Collectors.toList());
    }

    private String lines() {
        return events.list.stream().map(e -> e.getLevel() + " " + e.getFormattedMessage())
                .collect(Collectors.joining("\n"));
    }

    private static byte[] key(int i) {
        return String.format("key-%06d", i).getBytes(StandardCharsets.UTF_8);
    }
}
