package io.bloomstore.bloom.storage;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

import net.openhft.chronicle.bytes.BytesStore;
import net.openhft.chronicle.core.OS;

/**
 * {@link WordMemory} through Chronicle Bytes: native memory from
 * {@code BytesStore.nativeStoreWithFixedCapacity}, or a read-only mapping made with
 * {@code OS.map} and read through a {@code BytesStore} over its address. The channel is closed
 * as soon as the mapping exists, so a mapping holds no file descriptor; {@link #free()} unmaps
 * with {@code OS.unmap} at once. Needs the {@code --add-opens} flags (DESIGN.md); see
 * {@link OffHeapBackend}.
 *
 * <p>Thread safety: as {@link WordMemory}.
 */
final class ChronicleMemory implements WordMemory {
    private final long mapAddress;
    private final long mapSize;
    private BytesStore<?, ?> store;

    private ChronicleMemory(BytesStore<?, ?> store, long mapAddress, long mapSize) {
        this.store = store;
        this.mapAddress = mapAddress;
        this.mapSize = mapSize;
    }

    /** Maps {@code bytes} bytes of {@code path} from {@code offset}, read-only; keeps no descriptor. */
    static ChronicleMemory map(Path path, long offset, long bytes) throws IOException {
        // OS.map wants a start aligned to the mapping granularity: map from the file's start.
        long size = Math.max(OS.pageSize(), offset + bytes);
        long address;
        try (FileChannel ch = FileChannel.open(path, StandardOpenOption.READ)) {
            address = OS.map(ch, FileChannel.MapMode.READ_ONLY, 0, size);
        }
        try {
            return new ChronicleMemory(BytesStore.wrap(address + offset, bytes), address, size);
        } catch (RuntimeException e) {
            OS.unmap(address, size);
            throw e;
        }
    }

    /** Allocates {@code bytes} zeroed bytes outside the heap. */
    static ChronicleMemory allocate(long bytes) {
        long capacity = Math.max(Long.BYTES, bytes);
        BytesStore<?, Void> memory = BytesStore.nativeStoreWithFixedCapacity(capacity);
        memory.zeroOut(0, capacity);
        return new ChronicleMemory(memory, 0, 0);
    }

    /**
     * Allocates, maps and unmaps a little, to learn whether Chronicle works in this JVM; throws
     * what Chronicle throws when it does not (typically an {@link ExceptionInInitializerError}
     * or {@link IllegalAccessError} for lack of {@code --add-opens}).
     */
    static void probe() throws IOException {
        ChronicleMemory m = allocate(64);
        m.putLong(8, 42);
        boolean ok = m.getLong(8) == 42;
        m.free();
        Path tmp = Files.createTempFile("bloomstore-probe", ".bin");
        try {
            Files.write(tmp, new byte[] {1, 0, 0, 0, 0, 0, 0, 0});
            ChronicleMemory mapped = map(tmp, 0, 8);
            ok &= mapped.getLong(0) == 1;
            mapped.free();
        } finally {
            Files.deleteIfExists(tmp);
        }
        if (!ok) {
            throw new IllegalStateException("Chronicle Bytes read back other words than it wrote");
        }
    }

    @Override
    public long getLong(long byteOffset) {
        return store.readLong(byteOffset);
    }

    @Override
    public void putLong(long byteOffset, long value) {
        store.writeLong(byteOffset, value);
    }

    @Override
    public void free() {
        BytesStore<?, ?> s = store;
        store = null;
        if (s == null) {
            return;
        }
        s.releaseLast();
        if (mapSize == 0) {
            return;
        }
        try {
            OS.unmap(mapAddress, mapSize);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot unmap a filter region", e);
        }
    }
}
