package io.bloomstore.core.stats;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.Path;
import java.nio.file.ReadOnlyFileSystemException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.CRC32C;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.bloomstore.bloom.CorruptionException;
import io.bloomstore.core.CumulativeStats;
import io.bloomstore.core.fs.FileSystem;
import io.bloomstore.core.fs.RandomReadFile;
import io.bloomstore.core.fs.WritableFile;
import io.bloomstore.core.manifest.FileNames;

/**
 * The store's counters since it was created: the sums saved in {@code COUNTERS} by earlier opens
 * plus this open's {@link StoreCounters}. {@link #save()} rewrites the file atomically (a
 * temporary file, synced, renamed over it); {@link #saveWithoutSyncOrWarn()}, at close and after
 * background flushes, overwrites it in place without an fsync ({@code FileSystem.overwrite}: a
 * rename cost a close most of its time), so a crash of the machine may leave it torn, which the
 * next open reads as damaged (below). Format (docs/format/counters.md), little-endian:
 * <pre>
 *   Counters = Magic "BSCN", Version u16, Count u16, Entry^Count, CRC32C u32
 *   Entry    = NameLength u8, Name (UTF-8), Value i64
 * </pre>
 * The CRC covers every byte before it. Names are the counter names of {@link CumulativeStats};
 * a name this version does not know is kept as read and written back, so an older engine does
 * not erase a newer one's counters.
 *
 * <p>A missing file means zeros (a new store, or one from before this file existed). A damaged
 * file is logged at WARN with the {@link CorruptionException}'s message and the sums start again
 * from zero: counters are statistics, not data, and must not keep a store from opening.
 *
 * <p>Thread safety: {@link #save()} and {@link #snapshot()} are safe from any thread.
 */
public final class CountersFile {
    static final int MAGIC = 0x4E435342;
    static final int VERSION = 1;
    /** The logger, made on first use: a store that logs nothing never starts SLF4J (some 12 ms of a one-shot command). */
    private static final class Log {
        static final Logger LOG = LoggerFactory.getLogger(CountersFile.class);
    }
    private static final int MAX_BYTES = 64 * 1024;

    /**
     * The counters kept across opens, in file order. Looked up by {@link #live} with a switch
     * rather than a map of lambdas: each lambda is a class to spin up when first linked, and a
     * one-shot command paid some 4 ms for these 23.
     */
    private static final List<String> NAMES = List.of(
            "gets",
            "tableLookups",
            "filterNegatives",
            "filterPositives",
            "filterTruePositives",
            "dataBlockReads",
            "bytesRead",
            "blockCacheHits",
            "blockCacheMisses",
            "flushes",
            "compactions",
            "compactionBytesRead",
            "compactionBytesWritten",
            "flushBytesWritten",
            "userBytesWritten",
            "writeSlowdowns",
            "writeStops",
            "prefixScans",
            "prefixChecked",
            "prefixUseful",
            "rangeScans",
            "rangeChecked",
            "rangeUseful");

    /** This open's adder of counter {@code name}, one of {@link #NAMES}. */
    private static Counter live(StoreCounters c, String name) {
        return switch (name) {
            case "gets" -> c.gets();
            case "tableLookups" -> c.tableLookups();
            case "filterNegatives" -> c.filterNegatives();
            case "filterPositives" -> c.filterPositives();
            case "filterTruePositives" -> c.filterTruePositives();
            case "dataBlockReads" -> c.dataBlockReads();
            case "bytesRead" -> c.bytesRead();
            case "blockCacheHits" -> c.blockCacheHits();
            case "blockCacheMisses" -> c.blockCacheMisses();
            case "flushes" -> c.flushes();
            case "compactions" -> c.compactions();
            case "compactionBytesRead" -> c.compactionBytesRead();
            case "compactionBytesWritten" -> c.compactionBytesWritten();
            case "flushBytesWritten" -> c.flushBytesWritten();
            case "userBytesWritten" -> c.userBytesWritten();
            case "writeSlowdowns" -> c.writeSlowdowns();
            case "writeStops" -> c.writeStops();
            case "prefixScans" -> c.prefixScans();
            case "prefixChecked" -> c.prefixChecked();
            case "prefixUseful" -> c.prefixUseful();
            case "rangeScans" -> c.rangeScans();
            case "rangeChecked" -> c.rangeChecked();
            case "rangeUseful" -> c.rangeUseful();
            default -> throw new IllegalArgumentException("no counter " + name);
        };
    }

    private final FileSystem fs;
    private final Path file;
    private final Path temp;
    private final StoreCounters live;
    /** Sums saved by earlier opens, including names this version does not know. */
    private final Map<String, Long> base;

    private CountersFile(FileSystem fs, Path dir, StoreCounters live, Map<String, Long> base) {
        this.fs = fs;
        this.file = dir.resolve(FileNames.COUNTERS);
        this.temp = dir.resolve(FileNames.COUNTERS_TEMP);
        this.live = live;
        this.base = base;
    }

    /** Reads the sums of earlier opens from {@code dir}; adds {@code live} to them from now on. */
    public static CountersFile open(FileSystem fs, Path dir, StoreCounters live) throws IOException {
        Path file = dir.resolve(FileNames.COUNTERS);
        Map<String, Long> base = new LinkedHashMap<>();
        if (fs.exists(file)) {
            try {
                base = read(fs, file);
            } catch (CorruptionException e) {
                Log.LOG.warn("Cumulative counters start again from zero: {}", e.getMessage());
            }
        }
        return new CountersFile(fs, dir, live, base);
    }

    /** The sums as of now: earlier opens plus this one. */
    public CumulativeStats snapshot() {
        long[] v = new long[NAMES.size()];
        int i = 0;
        for (String name : NAMES) {
            v[i++] = base.getOrDefault(name, 0L) + live(live, name).sum();
        }
        return new CumulativeStats(v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[9], v[10], v[11], v[12],
                v[13], v[14], v[15], v[16], v[17], v[18], v[19], v[20], v[21], v[22]);
    }

    /** Background saves ({@link #saveOrWarnAtMostEverySecond()}) happen at most this often. */
    private static final long BACKGROUND_SAVE_INTERVAL_NANOS = 1_000_000_000L;
    /** When the sums were last saved, or attempted. */
    private volatile long lastSave = System.nanoTime() - BACKGROUND_SAVE_INTERVAL_NANOS;

    /**
     * After a background flush: {@link #saveWithoutSyncOrWarn()}, unless the sums were saved less
     * than a second ago. The fsync of a new file waits for the journal behind every other process's
     * writes, and a close that begins meanwhile waits for the flush thread.
     * Explicit flushes ({@code Store.flush()}) and close save every time, also without the fsync.
     */
    public void saveOrWarnAtMostEverySecond() {
        if (System.nanoTime() - lastSave >= BACKGROUND_SAVE_INTERVAL_NANOS) {
            saveWithoutSyncOrWarn();
        }
    }

    /** Writes the sums as of now durably, replacing the file atomically. */
    public void save() throws IOException {
        save(true);
    }

    /**
     * At close and after flushes: the sums overwritten in place, without an fsync, logging a failure.
     * The fsync of a new file waits for the file system's journal, behind every other process's
     * writes: 34 ms of a 65 ms close on a busy machine, for statistics. A crash of the machine
     * during the write may tear the file, which the next open reports and restarts from zero, as it
     * does for any damage to this file.
     */
    public void saveWithoutSyncOrWarn() {
        try {
            save(false);
        } catch (IOException | RuntimeException e) {
            Log.LOG.warn("Cannot save the cumulative counters in {}: {}", file.getParent(), e.toString());
        }
    }

    private synchronized void save(boolean sync) throws IOException {
        lastSave = System.nanoTime();
        Map<String, Long> all = new LinkedHashMap<>(base);
        for (String name : NAMES) {
            all.put(name, base.getOrDefault(name, 0L) + live(live, name).sum());
        }
        ByteBuffer b = encode(all);
        if (!sync) {
            // In place (FileSystem.overwrite): a crash of the machine may tear it, and the sums
            // then start again from zero (a warning at the next open), as documented.
            fs.overwrite(file, b);
            return;
        }
        try (WritableFile out = fs.create(temp)) {
            out.write(b);
            out.sync();
        }
        fs.rename(temp, file);
    }

    /**
     * For a store open read-only, at its close: adds this open's counters (without an fsync) to the sums the file
     * holds now — other read-only opens of the store may have saved theirs since this one read it —
     * under the update lock of {@code lockFile} ({@code FileSystem.lockForUpdate}), so none of
     * their counts is lost. Nothing is written when this open counted nothing. A directory this
     * process may not write to is skipped quietly (its counters are statistics; reading such a
     * store is allowed); any other failure is logged at WARN.
     */
    public void addToFileOrSkip(Path lockFile) {
        boolean counted = false;
        for (String name : NAMES) {
            counted |= live(live, name).sum() != 0;
        }
        if (!counted) {
            return;
        }
        try (Closeable update = fs.lockForUpdate(lockFile)) {
            Map<String, Long> all = new LinkedHashMap<>();
            if (fs.exists(file)) {
                try {
                    all.putAll(read(fs, file));
                } catch (CorruptionException e) {
                    // The open read the same file and warned already.
                    Log.LOG.debug("Cumulative counters start again from zero: {}", e.getMessage());
                }
            }
            for (String name : NAMES) {
                all.put(name, all.getOrDefault(name, 0L) + live(live, name).sum());
            }
            ByteBuffer b = encode(all);
            // No fsync, as at a writer's close (saveWithoutSyncOrWarn): it would cost a one-shot
            // command more than its lookup, for statistics a power loss may cost at worst.
            try (WritableFile out = fs.create(temp)) {
                out.write(b);
            }
            fs.rename(temp, file);
        } catch (AccessDeniedException | ReadOnlyFileSystemException e) {
            Log.LOG.debug("Cumulative counters of {} not saved: the directory is not writable ({})", file.getParent(),
                    e.toString());
        } catch (FileSystemException e) {
            if (e.getReason() != null && e.getReason().contains("Read-only file system")) {
                Log.LOG.debug("Cumulative counters of {} not saved: {}", file.getParent(), e.toString());
            } else {
                Log.LOG.warn("Cannot save the cumulative counters in {}: {}", file.getParent(), e.toString());
            }
        } catch (IOException | RuntimeException e) {
            Log.LOG.warn("Cannot save the cumulative counters in {}: {}", file.getParent(), e.toString());
        }
    }

    static ByteBuffer encode(Map<String, Long> counters) {
        List<Map.Entry<String, Long>> entries = List.copyOf(counters.entrySet());
        byte[][] names = new byte[entries.size()][];
        int size = 4 + 2 + 2 + 4;
        for (int i = 0; i < names.length; i++) {
            names[i] = entries.get(i).getKey().getBytes(StandardCharsets.UTF_8);
            size += 1 + names[i].length + 8;
        }
        // Sized to the counters, not to MAX_BYTES: a save at every flush of every store allocated 64 KiB.
        ByteBuffer b = ByteBuffer.allocate(Math.min(size, MAX_BYTES)).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(MAGIC).putShort((short) VERSION).putShort((short) counters.size());
        for (int i = 0; i < names.length; i++) {
            b.put((byte) names[i].length).put(names[i]).putLong(entries.get(i).getValue());
        }
        CRC32C crc = new CRC32C();
        crc.update(b.array(), 0, b.position());
        b.putInt((int) crc.getValue());
        return b.flip();
    }

    /** Reads and checks a counters file: its counters by name. */
    public static Map<String, Long> read(FileSystem fs, Path file) throws IOException {
        long size = fs.size(file);
        if (size < 12 || size > MAX_BYTES) {
            throw new CorruptionException(file, 0, "a counters file has 12 to " + MAX_BYTES + " bytes, not " + size);
        }
        ByteBuffer b = ByteBuffer.allocate((int) size).order(ByteOrder.LITTLE_ENDIAN);
        try (RandomReadFile in = fs.openRead(file)) {
            while (b.hasRemaining()) {
                if (in.read(b.position(), b) < 0) {
                    throw new CorruptionException(file, b.position(), "file ends early");
                }
            }
        }
        b.flip();
        int stored = b.getInt((int) size - 4);
        CRC32C crc = new CRC32C();
        crc.update(b.array(), 0, (int) size - 4);
        if ((int) crc.getValue() != stored) {
            throw CorruptionException.mismatch(file, size - 4, "counters CRC32C", stored & 0xFFFFFFFFL, crc.getValue());
        }
        if (b.getInt(0) != MAGIC) {
            throw CorruptionException.mismatch(file, 0, "counters magic", MAGIC, b.getInt(0) & 0xFFFFFFFFL);
        }
        int version = Short.toUnsignedInt(b.getShort(4));
        if (version != VERSION) {
            throw new CorruptionException(file, 4, "counters format version " + version + ", this engine reads "
                    + VERSION);
        }
        int count = Short.toUnsignedInt(b.getShort(6));
        b.position(8).limit((int) size - 4);
        Map<String, Long> counters = new LinkedHashMap<>();
        for (int i = 0; i < count; i++) {
            int at = b.position();
            if (b.remaining() < 1 || b.remaining() < 1 + Byte.toUnsignedInt(b.get(at)) + Long.BYTES) {
                throw new CorruptionException(file, at, "counter " + i + " of " + count + " runs past the end");
            }
            byte[] name = new byte[Byte.toUnsignedInt(b.get())];
            b.get(name);
            counters.put(new String(name, StandardCharsets.UTF_8), b.getLong());
        }
        if (b.hasRemaining()) {
            throw new CorruptionException(file, b.position(), b.remaining() + " bytes after the last counter");
        }
        return counters;
    }
}
