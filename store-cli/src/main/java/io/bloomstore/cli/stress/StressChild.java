package io.bloomstore.cli.stress;

import io.bloomstore.core.KeyValue;
import io.bloomstore.core.ReadOptions;
import io.bloomstore.core.Snapshot;
import io.bloomstore.core.Store;
import io.bloomstore.core.StoreIterator;
import io.bloomstore.core.StoreOptions;
import io.bloomstore.core.Keyspace;
import io.bloomstore.core.WriteBatch;
import io.bloomstore.core.WriteOptions;
import io.bloomstore.core.fs.FileSystem;
import io.bloomstore.core.fs.LocalFileSystem;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * The child process of {@code bloomstore stress}: opens the store (through a
 * {@link SyncJournalFileSystem} when the parent simulates power loss), prints {@value #READY},
 * then runs writer threads and reader threads until the parent kills it.
 *
 * <p>Writer {@code t} writes only keys {@code k ≡ t (mod threads)}: puts, deletes and batches of 2
 * to 5 of its keys, some with {@link WriteOptions#SYNC}, each logged in its {@link OpLog} before
 * (intent) and after (acknowledgement) the store call. Readers check what they see against what
 * the writers published: every value read is exactly the bytes of a write to that key
 * ({@link StressValues}), never older than the last write acknowledged before the read began nor
 * newer than the last one begun before it ended; an iterator returns keys in order, each with its
 * own value; a snapshot read twice gives the same answer. A violation, or any failure of the
 * store, is printed with {@value #VIOLATION} on stderr and ends the process with status
 * {@value #VIOLATION_STATUS} at once, before the parent's kill.
 *
 * <p>Arguments: {@code store opsDir journal|- threads readers keys cycle seed syncPercent}.
 *
 * <p>Thread safety: a program; its threads share only the store and the published op numbers.
 */
public final class StressChild {
    static final String READY = "BLOOMSTORE-STRESS-READY";
    static final String VIOLATION = "BLOOMSTORE-STRESS-VIOLATION";
    static final int VIOLATION_STATUS = 3;
    /** The child ends itself after this long, in case its parent died without killing it. */
    private static final long MAX_LIFE_MILLIS = 10 * 60_000;
    private static final int MAX_FILLER = 1500;

    private final Store store;
    /**
     * The keyspace every write is mirrored into, in the same batch: after any crash each key must
     * hold the same bytes in both, or a batch was split across keyspaces ({@link CycleCheck}).
     */
    private final Keyspace mirror;
    private final int threads;
    private final int keys;
    private final int cycle;
    private final int syncPercent;
    /** Per key: (op << 1 | delete) of the last write acknowledged in this process, 0 for none. */
    private final AtomicLongArray acknowledged;
    /** Per key: (op << 1 | delete) of the last write begun in this process, 0 for none. */
    private final AtomicLongArray begun;

    /** The name of the keyspace every write is mirrored into. */
    static final String MIRROR = "mirror";

    private StressChild(Store store, int threads, int keys, int cycle, int syncPercent) throws IOException {
        this.store = store;
        this.mirror = store.keyspace(MIRROR);
        this.threads = threads;
        this.keys = keys;
        this.cycle = cycle;
        this.syncPercent = syncPercent;
        this.acknowledged = new AtomicLongArray(keys);
        this.begun = new AtomicLongArray(keys);
    }

    /** The store options of stress runs: small memtables, tables and MANIFEST, so flushes, compactions and rolls run often. */
    static StoreOptions options() {
        return StoreOptions.builder().memtableBytes(256 * 1024).targetFileBytes(256 * 1024)
                .baseLevelBytes(1024 * 1024).maxManifestBytes(64 * 1024).blockSize(1024).build();
    }

    public static void main(String[] args) throws Exception {
        Path storeDir = Path.of(args[0]);
        Path opsDir = Path.of(args[1]);
        FileSystem fs = args[2].equals("-") ? LocalFileSystem.INSTANCE : new SyncJournalFileSystem(Path.of(args[2]));
        int threads = Integer.parseInt(args[3]);
        int readers = Integer.parseInt(args[4]);
        int keys = Integer.parseInt(args[5]);
        int cycle = Integer.parseInt(args[6]);
        long seed = Long.parseLong(args[7]);
        int syncPercent = Integer.parseInt(args[8]);
        Thread reaper = new Thread(() -> {
            sleep(MAX_LIFE_MILLIS);
            Runtime.getRuntime().halt(0);
        }, "stress-reaper");
        reaper.setDaemon(true);
        reaper.start();
        Store store;
        try {
            store = Store.open(fs, storeDir, options());
        } catch (Throwable t) {
            violation("open failed: " + t, t);
            return;
        }
        StressChild child;
        try {
            child = new StressChild(store, threads, keys, cycle, syncPercent);
        } catch (Throwable t) {
            violation("keyspace " + MIRROR + " could not be opened: " + t, t);
            return;
        }
        for (int t = 0; t < threads; t++) {
            int thread = t;
            OpLog log = OpLog.create(opsDir, t);
            start("stress-writer-" + t, () -> child.write(thread, log, new SplittableRandom(seed * 31 + thread)));
        }
        for (int r = 0; r < readers; r++) {
            SplittableRandom rnd = new SplittableRandom(seed * 37 + 1000 + r);
            start("stress-reader-" + r, () -> child.read(rnd));
        }
        System.out.println(READY);
        System.out.flush();
        Thread.currentThread().join();
    }

    private interface Work {
        void run() throws Exception;
    }

    private static void start(String name, Work work) {
        Thread t = new Thread(() -> {
            try {
                work.run();
            } catch (Throwable e) {
                violation(name + " failed: " + e, e);
            }
        }, name);
        t.start();
    }

    private static void violation(String what, Throwable cause) {
        System.err.println(VIOLATION + " " + what);
        if (cause != null) {
            cause.printStackTrace(System.err);
        }
        System.err.flush();
        Runtime.getRuntime().halt(VIOLATION_STATUS);
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Writer {@code thread}: writes its keys until the process dies. */
    private void write(int thread, OpLog log, SplittableRandom rnd) throws IOException {
        int ownKeys = (keys - thread + threads - 1) / threads;
        for (long op = 1; ; op++) {
            int kind = rnd.nextInt(100);
            int n = kind < 60 ? 1 : kind < 75 ? 1 : 2 + rnd.nextInt(Math.min(4, ownKeys));
            int[] ks = new int[n];
            int[] lengths = new int[n];
            for (int i = 0; i < n; i++) {
                int k;
                do {
                    k = thread + threads * rnd.nextInt(ownKeys);
                } while (contains(ks, i, k));
                ks[i] = k;
                boolean delete = kind >= 60 && kind < 75 || n > 1 && rnd.nextInt(5) == 0;
                lengths[i] = delete ? -1 : rnd.nextInt(MAX_FILLER);
            }
            boolean sync = rnd.nextInt(100) < syncPercent;
            WriteBatch batch = new WriteBatch();
            for (int i = 0; i < n; i++) {
                if (lengths[i] < 0) {
                    batch.delete(StressValues.key(ks[i]));
                    batch.delete(mirror, StressValues.key(ks[i]));
                } else {
                    byte[] value = StressValues.value(new StressValues.ValueId(cycle, thread, op, ks[i], lengths[i]));
                    batch.put(StressValues.key(ks[i]), value);
                    batch.put(mirror, StressValues.key(ks[i]), value);
                }
            }
            log.intent(op, sync, ks, lengths);
            for (int i = 0; i < n; i++) {
                begun.set(ks[i], op << 1 | (lengths[i] < 0 ? 1 : 0));
            }
            store.write(batch, sync ? WriteOptions.SYNC : WriteOptions.DEFAULT);
            for (int i = 0; i < n; i++) {
                acknowledged.set(ks[i], op << 1 | (lengths[i] < 0 ? 1 : 0));
            }
            log.acknowledged(op);
        }
    }

    private static boolean contains(int[] a, int n, int v) {
        for (int i = 0; i < n; i++) {
            if (a[i] == v) {
                return true;
            }
        }
        return false;
    }

    /** Reader: gets, short scans and snapshot rereads until the process dies. */
    private void read(SplittableRandom rnd) throws IOException {
        while (true) {
            int what = rnd.nextInt(10);
            int k = rnd.nextInt(keys);
            if (what < 6) {
                long before = acknowledged.get(k);
                byte[] v = store.get(StressValues.key(k));
                checkRead(k, v, before, begun.get(k));
            } else if (what < 8) {
                scan(k, 1 + rnd.nextInt(30));
            } else {
                try (Snapshot s = store.snapshot()) {
                    byte[] first = store.get(StressValues.key(k), ReadOptions.at(s));
                    Thread.yield();
                    byte[] again = store.get(StressValues.key(k), ReadOptions.at(s));
                    if (!Arrays.equals(first, again)) {
                        violation("snapshot read of key " + k + " changed: " + describe(first) + " then "
                                + describe(again), null);
                    }
                }
            }
        }
    }

    /**
     * A value read for key {@code k} between the published states {@code before} (acknowledged when
     * the read began) and {@code after} (begun when it ended). Keys not written by this process yet
     * may hold anything earlier cycles wrote; the parent checks those.
     */
    private void checkRead(int k, byte[] v, long before, long after) {
        if (v != null) {
            StressValues.ValueId id = StressValues.parse(v);
            if (id == null || id.key() != k) {
                violation("key " + k + " holds bytes no write made: " + describe(v), null);
                return;
            }
            if (before != 0 && (id.cycle() != cycle || id.op() < before >>> 1)) {
                violation("key " + k + " holds " + id + ", older than op " + (before >>> 1)
                        + " acknowledged before the read", null);
            }
            if (id.cycle() == cycle && id.op() > after >>> 1) {
                violation("key " + k + " holds " + id + ", newer than any write begun (" + (after >>> 1) + ")", null);
            }
        } else if (before != 0 && (before & 1) == 0 && after == before) {
            violation("key " + k + " is absent, but op " + (before >>> 1) + " put it and nothing since deleted it",
                    null);
        }
    }

    private void scan(int from, int limit) throws IOException {
        int previous = -1;
        int seen = 0;
        try (StoreIterator it = store.iterator(StressValues.key(from), null)) {
            while (seen < limit && it.hasNext()) {
                KeyValue kv = it.next();
                int k = StressValues.keyIndex(kv.key());
                StressValues.ValueId id = StressValues.parse(kv.value());
                if (k < from || k <= previous || k >= keys || id == null || id.key() != k) {
                    violation("scan from key " + from + " returned key " + k + " after " + previous + " with "
                            + describe(kv.value()), null);
                }
                previous = k;
                seen++;
            }
        }
    }

    private static String describe(byte[] v) {
        if (v == null) {
            return "nothing";
        }
        String s = new String(v, 0, Math.min(v.length, 60), java.nio.charset.StandardCharsets.ISO_8859_1);
        return "'" + s + (v.length > 60 ? "...'" : "'") + " (" + v.length + " bytes)";
    }
}
