package io.bloomstore.core.db;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;

/**
 * When asked for ({@value #PROPERTY}{@code =true} or {@code =init}), loads on a daemon thread of
 * its own the classes a process's first store open and its first lookups and writes are about to
 * need ({@value #LIST}, in the order they are first used), while the opening thread does the
 * open's own work. Started once per process, by the first options built or the first open; an
 * open never waits for it. Internal: not part of the API.
 *
 * <p><b>Off by default.</b> Half of a first open's processor time in a fresh JVM is class loading,
 * and this thread takes most of it off the opening thread's processor time; but on 2 processors
 * the second one is busy with the JIT compilers, and the bench's open probe (1M keys, two runs of
 * three rounds each way) measured no gain and a loss: first open 72–97 ms with it, 54–82 without;
 * the close right after it 6–15 ms against 3–7; a second open 16–30 ms against 8–11 (RocksDB's
 * 7–17), the preloading thread still initialising Chronicle Bytes beside it. A JVM with cores to
 * spare may turn it on.
 *
 * <p>Classes are loaded and linked, not initialised: a static initialiser run on another thread
 * could deadlock against the opening thread's when the two need each other's classes. A few names
 * marked {@code +} in the list are initialised too, leaves whose initialisers depend on nothing the
 * opening thread initialises and cost milliseconds in the interpreter: CRC32C's lookup tables
 * (3.5 ms), {@code LongAdder}'s variable handles (2 ms), the XXH3 hash's set-up, the LZ4
 * factory's (3 ms: 16 compressors made by reflection) and, last, the filter-memory choice
 * ({@code OffHeapBackend}), whose Chronicle Bytes start-up (about 130 classes and a probe
 * mapping) the first flush or filter mapping would otherwise wait for. A name that does not resolve (a JDK without
 * that internal class) is skipped. The system property {@value #PROPERTY}{@code =true} turns it
 * on; {@code =init} does only the initialisations (for a JVM whose class-data-sharing archive
 * holds the classes already: the command line's launcher asks for it).
 *
 * <p>The list is the output of {@code -Xlog:class+load} for a first open, a present and an absent
 * {@code get}, a {@code put} and a {@code delete} on a store of several levels, less the classes
 * of the class-data-sharing archive, lambdas and what depends on the filter mapping or the LZ4
 * implementation chosen; {@code ClassPreloaderTest} checks that every BloomStore class in it
 * exists.
 *
 * <p>Thread safety: {@link #startOnce()} may be called from any thread.
 */
public final class ClassPreloader implements Runnable {
    /** System property: {@code true} turns preloading on, {@code init} runs only the marked initialisers. */
    static final String PROPERTY = "bloomstore.preload";
    /** Resource beside this class: one binary class name a line. */
    static final String LIST = "preload-classes.txt";

    private static final Object LOCK = new Object();
    private static boolean started;

    private final ClassLoader loader;
    /** Only the {@code +} lines: where the classes come from a class-data-sharing archive already. */
    private final boolean initialiseOnly;

    private ClassPreloader(ClassLoader loader, boolean initialiseOnly) {
        this.loader = loader;
        this.initialiseOnly = initialiseOnly;
    }

    /**
     * Starts the preloading thread when the property asks for it and no earlier call did. Called
     * by {@code StoreOptions.builder()} (options are made right before an open) and by the opens.
     */
    public static void startOnce() {
        synchronized (LOCK) {
            if (started) {
                return;
            }
            started = true;
        }
        Mode mode = Mode.of(System.getProperty(PROPERTY));
        if (mode == Mode.OFF) {
            return;
        }
        Thread t = new Thread(new ClassPreloader(ClassPreloader.class.getClassLoader(), mode == Mode.INITIALISE_ONLY),
                "bloomstore-preload");
        t.setDaemon(true);
        t.start();
    }

    /** What the property asks for. */
    enum Mode {
        /** No preloading thread: the default, and any value but {@code true} and {@code init}. */
        OFF,
        /** Load and link the whole list, and run the marked initialisers. */
        ALL,
        /** Only the marked initialisers. */
        INITIALISE_ONLY;

        /** The mode a value of {@value ClassPreloader#PROPERTY} (null when unset) asks for. */
        static Mode of(String setting) {
            String s = setting == null ? "" : setting.trim();
            if ("true".equalsIgnoreCase(s)) {
                return ALL;
            }
            return "init".equalsIgnoreCase(s) ? INITIALISE_ONLY : OFF;
        }
    }

    @Override
    public void run() {
        try (InputStream in = ClassPreloader.class.getResourceAsStream(LIST)) {
            if (in == null) {
                return;
            }
            BufferedReader names = new BufferedReader(new InputStreamReader(in, StandardCharsets.US_ASCII));
            for (String name = names.readLine(); name != null; name = names.readLine()) {
                if (!initialiseOnly || name.startsWith("+")) {
                    load(name.trim());
                }
            }
        } catch (IOException | RuntimeException | LinkageError e) {
            // An optimisation only: the opening thread loads whatever is left as it always did.
        }
    }

    /**
     * Loads and links the class a line of the list names, and initialises it when the line starts
     * with {@code +}; false when it does not resolve. Blank and {@code #} lines are skipped.
     */
    boolean load(String line) {
        if (line.isEmpty() || line.startsWith("#")) {
            return true;
        }
        boolean initialise = line.startsWith("+");
        String name = initialise ? line.substring(1) : line;
        try {
            Class<?> c = Class.forName(name, initialise, loader);
            // Linking (verification) happens at a class's first use otherwise; asking for its
            // constructors links it without initialising it.
            c.getDeclaredConstructors();
            return true;
        } catch (ClassNotFoundException | LinkageError | SecurityException e) {
            return false;
        }
    }

    /** For tests: a preloader on {@code loader} that loads nothing until asked. */
    static ClassPreloader forTest(ClassLoader loader) {
        return new ClassPreloader(loader, false);
    }
}
