package io.bloomstore.bloom.storage;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How filters reach memory outside the Java heap: through Chronicle Bytes, or through the JDK
 * alone. Both keep the same bytes in the same layout (docs/format/filter.md), map files
 * read-only without holding a file descriptor, and release memory deterministically at close;
 * they differ only in the code that reads a word.
 *
 * <p>{@link #active()} is chosen once per JVM: Chronicle when it initializes (the JVM was started
 * with the {@code --add-opens}/{@code --add-exports} flags of DESIGN.md, as the command line's
 * jar and the tests are), otherwise the JDK's {@code FileChannel.map}, so a service embedding the
 * store needs no JVM flags. A choice the property does not force is logged once at INFO. The system property
 * {@code bloomstore.offheap} ({@code chronicle}, {@code jdk}, or {@code jdk-read} for
 * {@link #JDK_READ}) forces it, for benchmarks, tests and one-shot commands.
 *
 * <p>Thread safety: immutable; {@link #active()} is safe from any thread.
 */
public enum OffHeapBackend {
    /** Chronicle Bytes: {@code OS.map} mappings and native stores, read through a {@code BytesStore}. */
    CHRONICLE("chronicle-bytes"),
    /** The JDK alone: direct and mapped {@code ByteBuffer}s of at most 1 GiB each. */
    JDK("jdk-bytebuffer"),
    /**
     * The JDK alone, each filter read into direct {@code ByteBuffer}s instead of mapped: for a
     * process that opens a store to probe a few filters once, as the command line's one-shot
     * commands do. The JVM's first {@code FileChannel.map} starts its method-handle machinery
     * (some 15 ms of a fresh JVM's processor time, more than reading the one or two filters a
     * lookup consults); the bytes are still off the heap, but copied rather than shared with the
     * page cache, so a long-running process should map ({@link #JDK} or {@link #CHRONICLE}).
     */
    JDK_READ("jdk-bytebuffer-read");

    /** System property that forces the backend: {@code chronicle}, {@code jdk} or {@code jdk-read}. */
    public static final String PROPERTY = "bloomstore.offheap";
    /** The logger, made on first use: a store that logs nothing never starts SLF4J (some 12 ms of a one-shot command). */
    private static final class Log {
        static final Logger LOG = LoggerFactory.getLogger(OffHeapBackend.class);
    }

    /** Guards {@link #ahead}. */
    private static final Object AHEAD_LOCK = new Object();
    /** The thread {@link #chooseAhead} started, or null before that; started at most once per JVM. */
    private static Thread ahead;
    /** The choice once made ({@link Chosen}), null before: read without starting it. */
    private static volatile OffHeapBackend chosen;

    private final String label;

    OffHeapBackend(String label) {
        this.label = label;
    }

    /** The name shown in statistics: {@code chronicle-bytes} or {@code jdk-bytebuffer}. */
    public String label() {
        return label;
    }

    /**
     * The backend this JVM uses for every mapped and native filter; chosen on first call.
     *
     * @throws IllegalArgumentException when {@value #PROPERTY} names no backend
     * @throws IllegalStateException when {@value #PROPERTY} is {@code chronicle} and Chronicle Bytes
     *         cannot initialize
     */
    public static OffHeapBackend active() {
        if (Chosen.FAILURE != null) {
            throw Chosen.FAILURE;
        }
        return Chosen.BACKEND;
    }

    /**
     * Checks the {@value #PROPERTY} setting when one is given, so that a store's open fails on a
     * bad value, or on {@code chronicle} where Chronicle Bytes cannot initialize, rather than its
     * first filter mapping. Without the setting (or with {@code jdk}) it chooses nothing: the choice
     * waits for the first filter mapped or allocated ({@link #active()}), so an open that maps no
     * filter yet — a store's tables open on first use — does not pay Chronicle's start-up (some
     * 130 classes and a probe mapping, about 150 ms of a fresh JVM's processor time).
     *
     * @throws IllegalArgumentException when {@value #PROPERTY} names no backend
     * @throws IllegalStateException when {@value #PROPERTY} is {@code chronicle} and Chronicle Bytes
     *         cannot initialize
     */
    public static void checkSetting() {
        String forced = System.getProperty(PROPERTY, "").trim().toLowerCase(Locale.ROOT);
        if (!forced.isEmpty() && !forced.equals("jdk") && !forced.equals("jdk-read")) {
            active();
        }
    }

    /**
     * The backend for a filter mapped by a thread that should not wait for the choice: the active
     * one once chosen, or when {@value #PROPERTY} names one; before that, the JDK's mappings at once,
     * with the choice started on another thread ({@code chooseAhead}) for the mappings after it.
     * A flush's and a compaction's outputs are mapped so: a fresh process's first flush, which
     * writers wait for once the memtables are full, no longer holds them through Chronicle Bytes'
     * start-up (some 130 classes and a probe mapping, about 150 ms of a fresh JVM; docs/benchmarks.md,
     * "A fresh JVM's first operations"). Both backends read the same bytes at the same cost per
     * probe (docs/filters.md); a filter mapped through the JDK keeps that mapping until it is closed.
     */
    public static OffHeapBackend readyNow() {
        OffHeapBackend b = chosen;
        if (b != null) {
            return b;
        }
        if (!System.getProperty(PROPERTY, "").trim().isEmpty()) {
            return active();
        }
        chooseAhead();
        return JDK;
    }

    /**
     * Starts choosing the backend on a daemon thread, once per JVM: {@link #readyNow()}'s, when no
     * setting names one. A failure is not reported here: the first {@link #active()} meets it.
     */
    private static void chooseAhead() {
        Thread t;
        synchronized (AHEAD_LOCK) {
            if (ahead != null) {
                return;
            }
            t = new Thread(new ChooseAhead(), "bloomstore-filter-memory");
            t.setDaemon(true);
            ahead = t;
        }
        t.start();
    }

    /**
     * Waits for the choice {@code chooseAhead} started, when it is still running: a store's close
     * and a failed open call it (a flush may have started it), so that a process exiting right
     * after them does not exit inside Chronicle's start-up (Chronicle's resource-releasing thread
     * then dies printing "Shutdown in progress"). Returns at once when no choice was started or it
     * is done; an interrupt ends the wait and stays set. The thread is the JVM's, not one store's
     * (another store may have started it): the wait is bounded ({@link #CHOICE_WAIT_MILLIS}), so a
     * start-up that hangs cannot hang every store's close with it.
     */
    public static void awaitChoiceAhead() {
        Thread t;
        synchronized (AHEAD_LOCK) {
            t = ahead;
        }
        if (t == null || !t.isAlive()) {
            return;
        }
        try {
            t.join(CHOICE_WAIT_MILLIS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** The longest {@link #awaitChoiceAhead()} waits: the choice takes some 150 ms in a fresh JVM. */
    static final long CHOICE_WAIT_MILLIS = 10_000;

    /** Whether {@code chooseAhead} started a choice in this JVM and it has finished: for tests. */
    public static boolean choiceAheadFinished() {
        synchronized (AHEAD_LOCK) {
            return ahead != null && !ahead.isAlive();
        }
    }

    /** {@link #chooseAhead}'s task (a class, not a lambda: none is spun at a first open). */
    private static final class ChooseAhead implements Runnable {
        @Override
        public void run() {
            try {
                active();
            } catch (RuntimeException | LinkageError e) {
                // Thrown again from the first active() that maps or allocates a filter.
            }
        }
    }

    /**
     * Whether this backend works in this JVM. JDK always does; Chronicle is tried once (a small
     * allocation and a small mapping of a temporary file).
     */
    public boolean isAvailable() {
        return this != CHRONICLE || Probe.FAILURE == null;
    }

    WordMemory map(Path path, long offset, long bytes) throws IOException {
        if (this == CHRONICLE) {
            return ChronicleMemory.map(path, offset, bytes);
        }
        return this == JDK_READ ? JdkMemory.read(path, offset, bytes) : JdkMemory.map(path, offset, bytes);
    }

    WordMemory allocate(long bytes) {
        return this == CHRONICLE ? ChronicleMemory.allocate(bytes) : JdkMemory.allocate(bytes);
    }

    /**
     * Lazily tries Chronicle once per JVM, unless a package it needs opened is closed to it: a JVM
     * started without the {@code --add-opens} flags (a library's host, a {@code java -cp} child) then
     * does not load Chronicle's classes only to fail (61–74 ms of a fresh JVM against 18–25 ms
     * with this check: docs/kafka-streams.md), and maps through the JDK at once.
     */
    private static final class Probe {
        static final Throwable FAILURE = tryOnce();

        private static Throwable tryOnce() {
            String closed = closedPackage(CHRONICLE_OPENS);
            return closed != null
                    ? new IllegalAccessException("module java.base does not open " + closed
                            + " to Chronicle Bytes' module")
                    : failureOf(new ChronicleProbe());
        }
    }

    /** Why Chronicle Bytes cannot be used in this JVM, or null when it can (tried once). */
    static Throwable chronicleFailure() {
        return Probe.FAILURE;
    }

    /** The packages of {@code java.base} Chronicle Bytes reflects into: those bloomstore.jar's manifest opens. */
    static final List<String> CHRONICLE_OPENS =
            List.of("java.lang", "java.lang.reflect", "java.io", "java.nio", "java.util", "sun.nio.ch");

    /**
     * The first of {@code packages} that {@code java.base} does not open to the module holding
     * Chronicle Bytes (this class's when Chronicle's is not found), or null when all are open.
     */
    static String closedPackage(List<String> packages) {
        Module chronicle;
        try {
            chronicle = Class.forName("net.openhft.chronicle.core.Jvm", false, OffHeapBackend.class.getClassLoader())
                    .getModule();
        } catch (ClassNotFoundException | LinkageError e) {
            chronicle = OffHeapBackend.class.getModule();
        }
        Module base = Object.class.getModule();
        for (String p : packages) {
            if (!base.isOpen(p, chronicle)) {
                return p;
            }
        }
        return null;
    }

    /** A start-up to try ({@link #failureOf}). */
    interface Attempt {
        void run() throws Exception;
    }

    /** {@link ChronicleMemory#probe()} as an {@link Attempt} (a class, not a lambda: none spun at a first open). */
    private static final class ChronicleProbe implements Attempt {
        @Override
        public void run() throws Exception {
            ChronicleMemory.probe();
        }
    }

    /**
     * Runs {@code attempt}; returns how it failed, or null when it did not. An {@link AssertionError}
     * counts as a failure too: Chronicle's {@code OS} class initializer throws one on a JDK whose
     * internals it does not know (Java 25 with the {@code --add-opens} flags: no
     * {@code FileChannelImpl.unmap0}), and an {@link Error} from an initializer reaches the caller
     * as it is, not wrapped in an {@link ExceptionInInitializerError}.
     */
    static Throwable failureOf(Attempt attempt) {
        try {
            attempt.run();
            return null;
        } catch (Exception | LinkageError | AssertionError e) {
            return e;
        }
    }

    /**
     * Lazily makes and logs the choice once per JVM. A bad {@value #PROPERTY} is kept as the
     * failure to throw from every {@link #active()}, not thrown from this class's initializer
     * (which would surface as an {@link ExceptionInInitializerError}, then as
     * {@link NoClassDefFoundError}s).
     */
    private static final class Chosen {
        static final RuntimeException FAILURE;
        static final OffHeapBackend BACKEND;

        static {
            OffHeapBackend chosen = null;
            RuntimeException failure = null;
            try {
                chosen = choose();
            } catch (IllegalArgumentException | IllegalStateException e) {
                failure = e;
            }
            BACKEND = chosen;
            FAILURE = failure;
            OffHeapBackend.chosen = chosen;
        }

        private static OffHeapBackend choose() {
            String forced = System.getProperty(PROPERTY, "").trim().toLowerCase(Locale.ROOT);
            // Named by its user: not logged, so that a command that logs nothing else (a one-shot
            // get) does not start the logging framework for it; statistics show the backend.
            if (forced.equals("jdk")) {
                return JDK;
            }
            if (forced.equals("jdk-read")) {
                return JDK_READ;
            }
            if (!forced.isEmpty() && !forced.equals("chronicle")) {
                throw new IllegalArgumentException(PROPERTY + " must be chronicle, jdk or jdk-read, not " + forced);
            }
            if (CHRONICLE.isAvailable()) {
                Log.LOG.info("Filter memory: chronicle-bytes mappings");
                return CHRONICLE;
            }
            if (forced.equals("chronicle")) {
                throw new IllegalStateException(PROPERTY + "=chronicle but Chronicle Bytes cannot initialize: "
                        + Probe.FAILURE, Probe.FAILURE);
            }
            Log.LOG.info("Filter memory: JDK ByteBuffer mappings; chronicle-bytes cannot initialize (without the "
                    + "--add-opens flags, or on a JDK it does not support: {})", rootMessage(Probe.FAILURE));
            return JDK;
        }

        private static String rootMessage(Throwable t) {
            Throwable root = t;
            while (root.getCause() != null && root.getCause() != root) {
                root = root.getCause();
            }
            return root.toString();
        }
    }
}
