package io.bloomstore.bloom.storage;

import java.io.EOFException;
import java.io.IOException;
import java.lang.reflect.Field;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import sun.misc.Unsafe;

/**
 * {@link WordMemory} from the JDK alone, for JVMs where Chronicle Bytes cannot initialize
 * (no {@code --add-opens} flags): direct {@link ByteBuffer}s, each a region of at most
 * {@value #REGION_BYTES} bytes so memory past the 2 GiB limit of one buffer still works. A
 * mapping is made with {@link FileChannel#map} and the channel is closed at once.
 *
 * <p>{@link #free()} releases every buffer at once through {@code sun.misc.Unsafe.invokeCleaner}
 * (module {@code jdk.unsupported}, open to every class without flags), so a deleted file is
 * really unmapped; where a JDK lacks it, the garbage collector releases them later, and that is
 * logged once.
 *
 * <p>Thread safety: as {@link WordMemory}.
 */
final class JdkMemory implements WordMemory {
    /** 1 GiB: a multiple of 8, so no word straddles two regions. */
    static final int REGION_BYTES = 1 << 30;
    private static final int REGION_SHIFT = 30;
    private static final long REGION_MASK = REGION_BYTES - 1;
    /** The logger, made on first use: a store that logs nothing never starts SLF4J (some 12 ms of a one-shot command). */
    private static final class Log {
        static final Logger LOG = LoggerFactory.getLogger(JdkMemory.class);
    }
    /**
     * The Unsafe instance whose {@code invokeCleaner} releases a buffer, called directly: through
     * {@code Method.invoke}, Java 18 and later link a method handle and parse the method's
     * annotations at the first call, some 20 ms of a one-shot command's close (Java 25,
     * async-profiler), and a method handle of our own would cost its first linkage likewise.
     * Null where the JDK has no such method.
     */
    private static final Unsafe UNSAFE;

    static {
        Unsafe unsafe = null;
        try {
            Field f = Unsafe.class.getDeclaredField("theUnsafe");
            f.setAccessible(true);
            unsafe = (Unsafe) f.get(null);
            // Present since Java 9; a JDK without it fails here, not at the first release.
            Unsafe.class.getMethod("invokeCleaner", ByteBuffer.class);
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            Log.LOG.warn("sun.misc.Unsafe.invokeCleaner is not available ({}): filter mappings are released by the "
                    + "garbage collector, not at close", e.toString());
            unsafe = null;
        }
        UNSAFE = unsafe;
    }

    private ByteBuffer[] regions;
    private ByteBuffer first;

    private JdkMemory(ByteBuffer[] regions) {
        this.regions = regions;
        this.first = regions[0];
    }

    /** Maps {@code bytes} bytes of {@code path} from {@code offset}, read-only; keeps no descriptor. */
    static JdkMemory map(Path path, long offset, long bytes) throws IOException {
        ByteBuffer[] regions = new ByteBuffer[regionCount(bytes)];
        try (FileChannel ch = FileChannel.open(path, StandardOpenOption.READ)) {
            for (int i = 0; i < regions.length; i++) {
                long start = (long) i * REGION_BYTES;
                long size = Math.min(REGION_BYTES, bytes - start);
                regions[i] = ch.map(FileChannel.MapMode.READ_ONLY, offset + start, size).order(ByteOrder.LITTLE_ENDIAN);
            }
        } catch (IOException | RuntimeException e) {
            release(regions);
            throw e;
        }
        return new JdkMemory(regions);
    }

    /**
     * Reads {@code bytes} bytes of {@code path} from {@code offset} into direct buffers
     * ({@link OffHeapBackend#JDK_READ}); keeps no descriptor.
     *
     * @throws java.io.EOFException when the file ends before them
     */
    static JdkMemory read(Path path, long offset, long bytes) throws IOException {
        JdkMemory memory = allocate(bytes);
        try (FileChannel ch = FileChannel.open(path, StandardOpenOption.READ)) {
            for (int i = 0; i < memory.regions.length; i++) {
                ByteBuffer region = memory.regions[i];
                long at = offset + (long) i * REGION_BYTES;
                while (region.hasRemaining()) {
                    int n = ch.read(region, at + region.position());
                    if (n < 0) {
                        throw new EOFException(path + " ends at " + (at + region.position())
                                + " before the " + bytes + " bytes from offset " + offset);
                    }
                }
                region.clear();
            }
        } catch (IOException | RuntimeException e) {
            memory.free();
            throw e;
        }
        return memory;
    }

    /** Allocates {@code bytes} zeroed bytes outside the heap. */
    static JdkMemory allocate(long bytes) {
        ByteBuffer[] regions = new ByteBuffer[regionCount(bytes)];
        try {
            for (int i = 0; i < regions.length; i++) {
                long start = (long) i * REGION_BYTES;
                int size = (int) Math.min(REGION_BYTES, bytes - start);
                regions[i] = ByteBuffer.allocateDirect(size).order(ByteOrder.LITTLE_ENDIAN);
            }
        } catch (RuntimeException | OutOfMemoryError e) {
            release(regions);
            throw e;
        }
        return new JdkMemory(regions);
    }

    private static int regionCount(long bytes) {
        return (int) Math.max(1, (bytes + REGION_MASK) >>> REGION_SHIFT);
    }

    @Override
    public long getLong(long byteOffset) {
        if (byteOffset < REGION_BYTES) {
            return first.getLong((int) byteOffset);
        }
        return regions[(int) (byteOffset >>> REGION_SHIFT)].getLong((int) (byteOffset & REGION_MASK));
    }

    @Override
    public void putLong(long byteOffset, long value) {
        if (byteOffset < REGION_BYTES) {
            first.putLong((int) byteOffset, value);
        } else {
            regions[(int) (byteOffset >>> REGION_SHIFT)].putLong((int) (byteOffset & REGION_MASK), value);
        }
    }

    @Override
    public void free() {
        ByteBuffer[] r = regions;
        // Drop the references first: a use after free then fails with a NullPointerException
        // instead of touching memory that is no longer mapped.
        regions = null;
        first = null;
        if (r != null) {
            release(r);
        }
    }

    /** Whether buffers are released at once (true on every JDK this project runs on). */
    static boolean releasesDeterministically() {
        return UNSAFE != null;
    }

    static void release(ByteBuffer[] buffers) {
        if (UNSAFE == null) {
            return;
        }
        for (ByteBuffer b : buffers) {
            if (b != null) {
                try {
                    UNSAFE.invokeCleaner(b);
                } catch (RuntimeException t) {
                    throw new IllegalStateException("cannot release an off-heap buffer", t);
                }
            }
        }
    }
}
