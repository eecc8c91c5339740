package io.bloomstore.core.db;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

/**
 * Sets the calling thread's nice value through the C library, with Java 22's foreign-function API:
 * {@code setpriority(PRIO_PROCESS, gettid(), nice)}, which on Linux applies to the one thread. No
 * process is started. This is the multi-release jar's Java 22+ version; Java 17's
 * ({@code src/main/java}) cannot and reports so.
 *
 * <p>The JDK warns once on standard error when a restricted method ({@link Linker#downcallHandle})
 * is first called without {@code --enable-native-access}: the handles are made on the first
 * {@link #set} call only, so a store that does not lower its threads (the default) never causes
 * it.
 *
 * <p>Thread safety: safe for concurrent use.
 */
final class ThreadNice {
    private static final int PRIO_PROCESS = 0;

    private ThreadNice() {
    }

    /** The C functions, linked on first use. */
    private static final class Native {
        static final MethodHandle GETTID;
        static final MethodHandle SETPRIORITY;

        static {
            Linker linker = Linker.nativeLinker();
            SymbolLookup libc = linker.defaultLookup();
            GETTID = linker.downcallHandle(libc.find("gettid").orElseThrow(),
                    FunctionDescriptor.of(ValueLayout.JAVA_INT));
            SETPRIORITY = linker.downcallHandle(libc.find("setpriority").orElseThrow(),
                    FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT,
                            ValueLayout.JAVA_INT));
        }
    }

    /** Whether {@link #set} can work on this JDK. */
    static boolean supported() {
        return true;
    }

    /**
     * Sets the calling thread's nice value to {@code nice}.
     *
     * @throws UnsupportedOperationException when the C library has no such call or it fails
     */
    static void set(int nice) {
        int rc;
        try {
            int tid = (int) Native.GETTID.invokeExact();
            rc = (int) Native.SETPRIORITY.invokeExact(PRIO_PROCESS, tid, nice);
        } catch (Throwable t) {
            throw new UnsupportedOperationException("setpriority through the foreign-function API failed: " + t, t);
        }
        if (rc != 0) {
            throw new UnsupportedOperationException("setpriority(PRIO_PROCESS, tid, " + nice + ") returned " + rc);
        }
    }
}
