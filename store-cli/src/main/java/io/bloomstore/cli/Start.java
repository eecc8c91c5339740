package io.bloomstore.cli;

import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.nio.charset.Charset;
import java.util.Set;

import io.bloomstore.bloom.storage.OffHeapBackend;
import io.bloomstore.cli.store.QuickCommands;

/**
 * The entry point of {@code bloomstore.jar}: sets the process up for the command it runs, answers a
 * common forms of the short store commands itself ({@link QuickCommands}) and hands every other command to picocli
 * ({@link Main}). It names no picocli type on purpose: the JVM checks a class's verification
 * constraints when it links it, also when the class comes from a class-data-sharing archive, and
 * one picocli type in a signature or a {@code catch} here would load picocli's {@code CommandLine}
 * (some 5 ms of parsing and linking a Java 5 class file that no archive can hold) for a get that
 * never uses it.
 *
 * <p>Thread safety: static methods, run once on the main thread.
 */
public final class Start {
    /**
     * The store commands that touch a few blocks and filters: set up for a fast start rather than
     * for throughput ({@link #prepare}). {@code load}, {@code compact} and {@code verify} read or
     * write whole stores and keep the defaults.
     */
    private static final Set<String> BRIEF = Set.of("get", "put", "delete", "delete-range", "scan", "stats", "flush");

    private Start() {
    }

    public static void main(String[] args) {
        prepare(args);
        int quick = QuickCommands.tryRun(args, stdout(), new PrintWriter(System.err, true));
        System.exit(quick != QuickCommands.NOT_HANDLED ? quick : Main.execute(args));
    }

    /** Standard output in the encoding picocli would write it in: the JVM's stdout encoding. */
    private static PrintWriter stdout() {
        String name = System.getProperty("sun.stdout.encoding", System.getProperty("stdout.encoding"));
        Charset charset;
        try {
            charset = name != null ? Charset.forName(name) : Charset.defaultCharset();
        } catch (IllegalArgumentException e) {
            charset = Charset.defaultCharset();
        }
        return new PrintWriter(new OutputStreamWriter(System.out, charset), true);
    }

    /**
     * What {@link #main} sets up before it runs {@code args}: the deferred logging binding and,
     * for a store command, the JDK's filter mappings (each unless the user set it). The launcher's
     * class-data-sharing training ({@link LauncherTraining}) calls it too, so that it loads the
     * classes real commands load.
     */
    static void prepare(String[] args) {
        // BloomStore's own jars name DeferredLogging as their one SLF4J provider (a service entry);
        // on any other class path (tests, an IDE, a jar beside other jars) the property names it.
        if (System.getProperty("slf4j.provider") == null && !DeferredLogging.ownJarAlone()) {
            System.setProperty("slf4j.provider", DeferredLogging.class.getName());
            if (System.getProperty("slf4j.internal.verbosity") == null) {
                // SLF4J announces a provider named by the property at INFO, on standard error.
                System.setProperty("slf4j.internal.verbosity", "WARN");
            }
        }
        String command = commandName(args);
        boolean brief = command != null && BRIEF.contains(command);
        if (brief && System.getProperty(OffHeapBackend.PROPERTY) == null) {
            // A store command reads a few filters and probes them a few times: the JDK's buffers
            // start some 130 classes (and a tenth of a second) sooner than Chronicle Bytes, and
            // reading a filter into one sooner than mapping it (the JVM's first map starts its
            // method-handle machinery, some 15 ms).
            System.setProperty(OffHeapBackend.PROPERTY, "jdk-read");
        }
        if (brief && System.getProperty("bloomstore.lz4") == null) {
            // The JNI build of LZ4 is unpacked into a temporary file and loaded first: more than a few
            // blocks gain from it.
            System.setProperty("bloomstore.lz4", "java");
        }
    }

    /**
     * The command named in {@code args}: the first argument that is neither a global option
     * ({@code --verbose}, {@code --data DIR}, {@code --data=DIR}, {@code --keyspace NAME}) nor its value; null when there is
     * none or an argument asks for the root's help or version.
     */
    static String commandName(String[] args) {
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if (a.equals("--data") || a.equals("--keyspace")) {
                i++;
            } else if (a.equals("--verbose") || a.startsWith("--data=") || a.startsWith("--keyspace=")) {
                continue;
            } else {
                return a.startsWith("-") ? null : a;
            }
        }
        return null;
    }
}
