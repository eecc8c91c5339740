package io.bloomstore.core.db;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.bloomstore.core.Store;
import io.bloomstore.core.StoreOptions;
import io.bloomstore.core.fs.FaultInjectionFileSystem;
import io.bloomstore.core.fs.MemoryFileSystem;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * No hangs, no lost errors: an {@link Error} (here the {@link ExceptionInInitializerError} a
 * library raises when the JVM lacks its flags) thrown in the flush or the compaction thread becomes
 * the store's background error. Every writer gets an exception within a second of it, none is left
 * blocked, it is logged once at ERROR with its cause, {@code stats} shows it, reads go on, and the
 * store closes. Injected through the fault-injecting file system's table-creation hook.
 */
class BackgroundErrorTest {
    private static final int WRITERS = 4;

    private final ListAppender<ILoggingEvent> log = new ListAppender<>();
    private final Logger logger = (Logger) LoggerFactory.getLogger(DbState.class);

    @BeforeEach
    void captureLog() {
        log.start();
        logger.addAppender(log);
    }

    @AfterEach
    void releaseLog() {
        logger.detachAppender(log);
    }

    @Test
    void errorInFlushFailsWritersFast() throws Exception {
        run(Path.of("/background-error/flush-error"), name -> true,
                StoreOptions.builder().memtableBytes(4096).autoCompaction(false).build());
    }

    @Test
    void errorInCompactionFailsWritersFast() throws Exception {
        run(Path.of("/background-error/compaction-error"), name -> name.startsWith("bloomstore-compact"),
                StoreOptions.builder().memtableBytes(4096).l0Triggers(2, 3, 4).build());
    }

    /** Throws an Error from table creation on threads whose name matches, with writers running. */
    private void run(Path dir, Predicate<String> thread, StoreOptions options) throws Exception {
        AtomicLong injectedAt = new AtomicLong();
        FaultInjectionFileSystem fs = new FaultInjectionFileSystem(new MemoryFileSystem(), 3).beforeCreate(p -> {
            if (p.toString().endsWith(".sst") && thread.test(Thread.currentThread().getName())) {
                injectedAt.compareAndSet(0, System.nanoTime());
                throw new ExceptionInInitializerError("injected: the JVM lacks a library's flags");
            }
        });
        Store store = Store.open(fs, dir, options);
        store.put(bytes("before"), bytes("kept"));
        ExecutorService writers = Executors.newFixedThreadPool(WRITERS);
        List<Future<Long>> failedAt = new ArrayList<>();
        for (int w = 0; w < WRITERS; w++) {
            int id = w;
            failedAt.add(writers.submit(() -> {
                for (int i = 0; ; i++) {
                    try {
                        store.put(bytes("w" + id + "-" + i), new byte[100]);
                    } catch (IOException e) {
                        return System.nanoTime();
                    }
                }
            }));
        }
        for (Future<Long> f : failedAt) {
            // Generous: without the fix a writer waits forever for a flush or compaction.
            long at = f.get(20, TimeUnit.SECONDS);
            long afterInjection = TimeUnit.NANOSECONDS.toMillis(at - injectedAt.get());
            System.out.println("BackgroundErrorTest: a writer failed " + afterInjection + " ms after the Error");
            assertTrue(injectedAt.get() != 0 && afterInjection < 1000, afterInjection + " ms");
        }
        writers.shutdown();
        assertTrue(writers.awaitTermination(5, TimeUnit.SECONDS), "no writer left blocked");

        String error = store.stats().health().backgroundError();
        assertNotNull(error);
        assertTrue(error.contains("ExceptionInInitializerError"), error);
        assertFalse(store.stats().health().writable());
        IOException refused = assertThrows(IOException.class, () -> store.put(bytes("x"), bytes("y")));
        assertTrue(refused.getMessage().contains("injected"), refused.getMessage());
        assertArrayEquals(bytes("kept"), store.get(bytes("before")), "reads go on");
        IOException closeFailure = assertThrows(IOException.class, store::close);
        assertTrue(closeFailure.getMessage().contains("failed before close"), closeFailure.getMessage());

        List<ILoggingEvent> errors = log.list.stream().filter(e -> e.getLevel() == Level.ERROR).toList();
        assertEquals(1, errors.size(), "logged once: " + errors);
        assertNotNull(errors.get(0).getThrowableProxy(), "logged with its cause");
        assertEquals(ExceptionInInitializerError.class.getName(), errors.get(0).getThrowableProxy().getClassName());
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.getName().startsWith("bloomstore-") && t.getName().endsWith(dir.getFileName().toString())) {
                // Its executor has terminated; give the thread itself a moment to finish exiting.
                t.join(5000);
                assertFalse(t.isAlive(), "left running: " + t + " " + t.getState());
            }
        }
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
