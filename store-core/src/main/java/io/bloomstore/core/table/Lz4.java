package io.bloomstore.core.table;

import java.util.Locale;

import net.jpountz.lz4.LZ4Factory;

/**
 * The LZ4 implementation blocks are compressed and decompressed with: lz4-java's fastest (its JNI
 * library where the platform has one, else its pure-Java code), unless the system property
 * {@value #PROPERTY} says {@code java} (any other value means the default). Both read and write
 * the same LZ4 block format. The JNI
 * library is unpacked from the jar into a temporary file and loaded on first use, which costs a
 * one-shot command more (a temporary file, a secure random seed, a native library) than its two or
 * three blocks gain; the command line sets {@code java} for its store commands.
 *
 * <p>Thread safety: the factory is chosen once, when this class initializes.
 */
final class Lz4 {
    /** System property choosing the implementation: {@code java}, else the fastest. */
    static final String PROPERTY = "bloomstore.lz4";
    static final LZ4Factory FACTORY = choose(System.getProperty(PROPERTY, "fastest"));

    private Lz4() {
    }

    static LZ4Factory choose(String setting) {
        return setting.trim().toLowerCase(Locale.ROOT).equals("java") ? LZ4Factory.fastestJavaInstance()
                : LZ4Factory.fastestInstance();
    }
}
