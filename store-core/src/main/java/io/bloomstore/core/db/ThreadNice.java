package io.bloomstore.core.db;

/**
 * Sets the calling thread's nice value: Java 17 has no way to do it without starting a process,
 * which an embedded library must not do, so this version cannot. The multi-release jar carries a
 * Java 22+ version ({@code src/main/java22}) that calls the C library's {@code setpriority}
 * through the foreign-function API.
 *
 * <p>Thread safety: stateless.
 */
final class ThreadNice {
    private ThreadNice() {
    }

    /** Whether {@link #set} can work on this JDK: not on Java 17-21. */
    static boolean supported() {
        return false;
    }

    /**
     * Would set the calling thread's nice value to {@code nice}.
     *
     * @throws UnsupportedOperationException always, on this JDK
     */
    static void set(int nice) {
        throw new UnsupportedOperationException("lowering a thread's priority needs Java 22 or later "
                + "(the foreign-function API); on Java " + Runtime.version().feature() + " the background threads keep "
                + "the application's priority");
    }
}
