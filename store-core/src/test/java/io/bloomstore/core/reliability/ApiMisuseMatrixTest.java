package io.bloomstore.core.reliability;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.bloomstore.bloom.storage.MappedBitStore;
import io.bloomstore.core.CheckpointReport;
import io.bloomstore.core.KeyValue;
import io.bloomstore.core.Keyspace;
import io.bloomstore.core.KeyspaceOptions;
import io.bloomstore.core.MergeOperator;
import io.bloomstore.core.ReadOptions;
import io.bloomstore.core.Snapshot;
import io.bloomstore.core.Store;
import io.bloomstore.core.StoreIterator;
import io.bloomstore.core.StoreOptions;
import io.bloomstore.core.TableWriter;
import io.bloomstore.core.WriteBatch;
import io.bloomstore.core.WriteOptions;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The API-misuse matrix: every public method of {@link Store}, {@link Snapshot},
 * {@link StoreIterator} and {@link WriteBatch} after close; a store's close racing every one of its
 * methods on other threads; an iterator closed by another thread while it is being read; a store
 * closed while other threads read its iterators. The only outcomes allowed are a correct value
 * or the documented {@link IllegalStateException} ("store ... is closed", "iterator is closed",
 * "snapshot is closed"): never a wrong value, a {@link NullPointerException}, another exception
 * or a read of freed memory (a freed index buffer or an unmapped filter would crash the JVM or
 * return garbage, which the value checks catch). Values are a function of the key, so any value
 * read can be checked whatever the interleaving. Prints its seed ({@code -Dbloomstore.seed=N}
 * replays).
 */
class ApiMisuseMatrixTest {
    private static final int KEYS = 600;
    /** Keys below this are written before the race and never touched again: a read must find them. */
    private static final int STABLE = 400;
    /** Small tables so the store has several of them, in level 0 and below, plus a memtable. */
    /**
     * Merges to the one value a key ever has ({@link #value}), so that merges keep the matrix's
     * check "any other value read is wrong".
     */
    private static final MergeOperator KEY_VALUE = new MergeOperator() {
        @Override
        public String name() {
            return "keyValue";
        }

        @Override
        public byte[] fullMerge(byte[] key, byte[] existing, java.util.List<byte[]> operands) {
            return value(key);
        }
    };
    private static final StoreOptions OPTIONS = StoreOptions.builder().memtableBytes(16 * 1024).blockSize(512)
            .baseLevelBytes(16 * 1024).targetFileBytes(8 * 1024).mergeOperator(KEY_VALUE).build();
    private static final long SEED = Long.getLong("bloomstore.seed", System.nanoTime());

    @TempDir
    Path dir;

    /** Keys from here on are ingested, ten per call of {@code ingest}. */
    private static final int INGESTED_FROM = 90_000;
    private static final AtomicInteger INGESTS = new AtomicInteger();

    static byte[] key(int i) {
        return String.format("k%05d", i).getBytes(StandardCharsets.UTF_8);
    }

    /** The only value ever written to a key: any other value read is wrong. */
    static byte[] value(byte[] key) {
        byte[] v = new byte[40];
        for (int i = 0; i < v.length; i++) {
            v[i] = (byte) (key[i % key.length] * 31 + i);
        }
        return v;
    }

    /** A store with {@link #KEYS} keys in flushed, compacted and level-0 tables and the memtable. */
    private Store filledStore() throws Exception {
        Store store = Store.open(dir, OPTIONS);
        for (int i = 0; i < KEYS; i++) {
            if (i == KEYS / 3) {
                store.compact();
            }
            if (i == 2 * KEYS / 3) {
                store.flush();
            }
            store.put(key(i), value(key(i)));
        }
        return store;
    }

    private static void checkValue(byte[] key, byte[] value) {
        if (value != null && !Arrays.equals(value(key), value)) {
            throw new AssertionError("wrong value for " + new String(key, StandardCharsets.UTF_8) + ": "
                    + Arrays.toString(value));
        }
    }

    private static void checkStable(int i, byte[] value) {
        if (i < STABLE && value == null) {
            throw new AssertionError("stable key " + i + " read as absent");
        }
        checkValue(key(i), value);
    }

    /** One use of every public method of {@link Store}, each checking what it returned. */
    private static Map<String, Op> storeOps(Random random) {
        Map<String, Op> ops = new LinkedHashMap<>();
        ops.put("put(byte[],byte[])", s -> {
            byte[] k = key(STABLE + random.nextInt(KEYS - STABLE));
            s.put(k, value(k));
        });
        ops.put("put(byte[],byte[],WriteOptions)", s -> {
            byte[] k = key(STABLE + random.nextInt(KEYS - STABLE));
            s.put(k, value(k), random.nextBoolean() ? WriteOptions.SYNC : WriteOptions.DEFAULT);
        });
        ops.put("delete(byte[])", s -> s.delete(key(STABLE + random.nextInt(KEYS - STABLE))));
        ops.put("delete(byte[],WriteOptions)", s -> s.delete(key(STABLE + random.nextInt(KEYS - STABLE)),
                WriteOptions.DEFAULT));
        ops.put("deleteRange(byte[],byte[])", s -> {
            int from = STABLE + random.nextInt(KEYS - STABLE);
            s.deleteRange(key(from), key(Math.min(KEYS, from + 1 + random.nextInt(5))));
        });
        ops.put("deleteRange(byte[],byte[],WriteOptions)", s -> {
            int from = STABLE + random.nextInt(KEYS - STABLE);
            s.deleteRange(key(from), key(Math.min(KEYS, from + 1 + random.nextInt(5))),
                    random.nextBoolean() ? WriteOptions.SYNC : WriteOptions.DEFAULT);
        });
        ops.put("merge(byte[],byte[])", s -> {
            byte[] k = key(STABLE + random.nextInt(KEYS - STABLE));
            s.merge(k, value(k));
        });
        ops.put("merge(byte[],byte[],WriteOptions)", s -> {
            byte[] k = key(STABLE + random.nextInt(KEYS - STABLE));
            s.merge(k, value(k), random.nextBoolean() ? WriteOptions.SYNC : WriteOptions.DEFAULT);
        });
        ops.put("write(WriteBatch,WriteOptions)", s -> {
            WriteBatch b = new WriteBatch();
            for (int j = 0; j < 5; j++) {
                byte[] k = key(STABLE + random.nextInt(KEYS - STABLE));
                if (random.nextBoolean()) {
                    b.put(k, value(k));
                } else {
                    b.delete(k);
                }
            }
            s.write(b, WriteOptions.DEFAULT);
        });
        ops.put("get(byte[])", s -> {
            int i = random.nextInt(KEYS);
            checkStable(i, s.get(key(i)));
        });
        ops.put("get(byte[],ReadOptions)", s -> {
            try (Snapshot snap = s.snapshot()) {
                int i = random.nextInt(KEYS);
                checkStable(i, s.get(key(i), ReadOptions.at(snap)));
            }
        });
        ops.put("iterator(byte[],byte[])", s -> {
            try (StoreIterator it = s.iterator(null, null)) {
                scan(it, false);
            }
        });
        ops.put("iterator(byte[],byte[],ReadOptions)", s -> {
            try (StoreIterator it = s.iterator(key(100), key(300), ReadOptions.DEFAULT)) {
                assertEquals(200, scan(it, false));
            }
        });
        ops.put("prefixIterator(byte[])", s -> {
            try (StoreIterator it = s.prefixIterator("k0010".getBytes(StandardCharsets.UTF_8))) {
                assertEquals(10, scan(it, false));
            }
        });
        ops.put("prefixIterator(byte[],ReadOptions)", s -> {
            try (Snapshot snap = s.snapshot();
                 StoreIterator it = s.prefixIterator("k0020".getBytes(StandardCharsets.UTF_8), ReadOptions.at(snap))) {
                assertEquals(10, scan(it, false));
            }
        });
        ops.put("reverseIterator(byte[],byte[])", s -> {
            try (StoreIterator it = s.reverseIterator(null, null)) {
                scan(it, true);
            }
        });
        ops.put("reverseIterator(byte[],byte[],ReadOptions)", s -> {
            try (StoreIterator it = s.reverseIterator(key(0), key(STABLE), ReadOptions.DEFAULT)) {
                assertEquals(STABLE, scan(it, true));
            }
        });
        ops.put("snapshot()", s -> s.snapshot().close());
        ops.put("flush()", Store::flush);
        ops.put("compact()", Store::compact);
        ops.put("awaitCompactions()", Store::awaitCompactions);
        ops.put("stats()", s -> assertTrue(s.stats().levels().size() > 1));
        ops.put("checkpoint(Path)", s -> {
            Path parent = Files.createTempDirectory("bloomstore-misuse-checkpoint");
            try {
                CheckpointReport r = s.checkpoint(parent.resolve("cp"));
                assertTrue(Files.exists(r.target().resolve("CURRENT")));
            } finally {
                try (Stream<Path> files = Files.walk(parent)) {
                    for (Path f : files.sorted(Comparator.reverseOrder()).toList()) {
                        Files.delete(f);
                    }
                }
            }
        });
        ops.put("ingest(List)", s -> {
            Path parent = Files.createTempDirectory("bloomstore-misuse-ingest");
            try {
                Path table = parent.resolve("t.sst");
                // Keys above every other key of the store (each call's range above the last), with
                // the one value the matrix allows.
                int first = INGESTED_FROM + 10 * INGESTS.getAndIncrement();
                try (TableWriter w = TableWriter.create(table)) {
                    for (int i = first; i < first + 10; i++) {
                        w.put(key(i), value(key(i)));
                    }
                    w.finish();
                }
                assertEquals(10, s.ingest(List.of(table)).entries());
            } finally {
                try (Stream<Path> files = Files.walk(parent)) {
                    for (Path f : files.sorted(Comparator.reverseOrder()).toList()) {
                        Files.delete(f);
                    }
                }
            }
        });
        ops.put("options()", s -> assertEquals(OPTIONS, s.options()));
        keyspaceOps(ops, random);
        ops.put("close()", Store::close);
        return ops;
    }

    /** Keyspaces dropped by the matrix: each call drops one of its own. */
    private static final AtomicInteger DROPS = new AtomicInteger();

    /**
     * The keyspace forms: in keyspace {@code ks} (made on first use, written with the same one
     * value per key), so their reads check values only.
     */
    private static void keyspaceOps(Map<String, Op> ops, Random random) {
        ops.put("keyspace(String)", s -> assertEquals("ks", s.keyspace("ks").name()));
        ops.put("keyspace(String,KeyspaceOptions)", s -> assertEquals("ks",
                s.keyspace("ks", KeyspaceOptions.DEFAULT).name()));
        ops.put("keyspaces()", s -> assertEquals("default", s.keyspaces().get(0)));
        ops.put("dropKeyspace(String)", s -> {
            String name = "drop" + DROPS.incrementAndGet();
            Keyspace k = s.keyspace(name);
            s.put(k, key(1), value(key(1)));
            s.dropKeyspace(name);
        });
        ops.put("put(Keyspace,byte[],byte[])", s -> {
            byte[] k = key(random.nextInt(KEYS));
            s.put(s.keyspace("ks"), k, value(k));
        });
        ops.put("put(Keyspace,byte[],byte[],WriteOptions)", s -> {
            byte[] k = key(random.nextInt(KEYS));
            s.put(s.keyspace("ks"), k, value(k), random.nextBoolean() ? WriteOptions.SYNC : WriteOptions.DEFAULT);
        });
        ops.put("delete(Keyspace,byte[])", s -> s.delete(s.keyspace("ks"), key(random.nextInt(KEYS))));
        ops.put("delete(Keyspace,byte[],WriteOptions)", s -> s.delete(s.keyspace("ks"), key(random.nextInt(KEYS)),
                WriteOptions.DEFAULT));
        ops.put("merge(Keyspace,byte[],byte[])", s -> {
            byte[] k = key(random.nextInt(KEYS));
            s.merge(s.keyspace("ks"), k, value(k));
        });
        ops.put("deleteRange(Keyspace,byte[],byte[])", s -> {
            int from = random.nextInt(KEYS);
            s.deleteRange(s.keyspace("ks"), key(from), key(Math.min(KEYS, from + 1 + random.nextInt(5))));
        });
        ops.put("get(Keyspace,byte[])", s -> {
            byte[] k = key(random.nextInt(KEYS));
            checkValue(k, s.get(s.keyspace("ks"), k));
        });
        ops.put("get(Keyspace,byte[],ReadOptions)", s -> {
            try (Snapshot snap = s.snapshot()) {
                byte[] k = key(random.nextInt(KEYS));
                checkValue(k, s.get(s.keyspace("ks"), k, ReadOptions.at(snap)));
            }
        });
        ops.put("iterator(Keyspace,byte[],byte[])", s -> {
            try (StoreIterator it = s.iterator(s.keyspace("ks"), null, null)) {
                scan(it, false);
            }
        });
        ops.put("iterator(Keyspace,byte[],byte[],ReadOptions)", s -> {
            try (StoreIterator it = s.iterator(s.keyspace("ks"), key(100), key(300), ReadOptions.DEFAULT)) {
                scan(it, false);
            }
        });
        ops.put("prefixIterator(Keyspace,byte[])", s -> {
            try (StoreIterator it = s.prefixIterator(s.keyspace("ks"), "k001".getBytes(StandardCharsets.UTF_8))) {
                scan(it, false);
            }
        });
        ops.put("prefixIterator(Keyspace,byte[],ReadOptions)", s -> {
            try (Snapshot snap = s.snapshot();
                 StoreIterator it = s.prefixIterator(s.keyspace("ks"), "k002".getBytes(StandardCharsets.UTF_8),
                         ReadOptions.at(snap))) {
                scan(it, false);
            }
        });
        ops.put("reverseIterator(Keyspace,byte[],byte[])", s -> {
            try (StoreIterator it = s.reverseIterator(s.keyspace("ks"), null, null)) {
                scan(it, true);
            }
        });
        ops.put("reverseIterator(Keyspace,byte[],byte[],ReadOptions)", s -> {
            try (StoreIterator it = s.reverseIterator(s.keyspace("ks"), key(0), key(STABLE), ReadOptions.DEFAULT)) {
                scan(it, true);
            }
        });
        ops.put("stats(Keyspace)", s -> assertTrue(s.stats(s.keyspace("ks")).levels().size() > 1));
        ops.put("ingest(Keyspace,List)", s -> {
            Path parent = Files.createTempDirectory("bloomstore-misuse-ingest-ks");
            try {
                Path table = parent.resolve("t.sst");
                int first = INGESTED_FROM + 10 * INGESTS.getAndIncrement();
                try (TableWriter w = TableWriter.create(table)) {
                    for (int i = first; i < first + 10; i++) {
                        w.put(key(i), value(key(i)));
                    }
                    w.finish();
                }
                assertEquals(10, s.ingest(s.keyspace("ks"), List.of(table)).entries());
            } finally {
                try (Stream<Path> files = Files.walk(parent)) {
                    for (Path f : files.sorted(Comparator.reverseOrder()).toList()) {
                        Files.delete(f);
                    }
                }
            }
        });
    }

    /**
     * Reads an iterator to its end checking order and values.
     * Returns the number of stable keys seen.
     */
    private static int scan(StoreIterator it, boolean reverse) {
        byte[] previous = null;
        int stable = 0;
        while (it.hasNext()) {
            KeyValue kv = it.next();
            checkValue(kv.key(), kv.value());
            if (previous != null) {
                int c = Arrays.compareUnsigned(previous, kv.key());
                if (reverse ? c <= 0 : c >= 0) {
                    throw new AssertionError("out of order: " + new String(kv.key(), StandardCharsets.UTF_8));
                }
            }
            previous = kv.key();
            int i = Integer.parseInt(new String(kv.key(), 1, 5, StandardCharsets.UTF_8));
            if (i < STABLE) {
                stable++;
            }
        }
        return stable;
    }

    interface Op {
        void run(Store store) throws Exception;
    }

    private static String signature(Method m) {
        StringBuilder sb = new StringBuilder(m.getName()).append('(');
        Class<?>[] types = m.getParameterTypes();
        for (int i = 0; i < types.length; i++) {
            sb.append(i == 0 ? "" : ",").append(types[i].getSimpleName());
        }
        return sb.append(')').toString();
    }

    @Test
    void theMatrixCoversEveryPublicMethodOfTheStore() {
        List<String> methods = new ArrayList<>();
        for (Method m : Store.class.getMethods()) {
            if (!Modifier.isStatic(m.getModifiers())) {
                methods.add(signature(m));
            }
        }
        Map<String, Op> ops = storeOps(new Random(SEED));
        for (String m : methods) {
            assertTrue(ops.containsKey(m), "the misuse matrix has no entry for Store." + m);
        }
        assertEquals(methods.size(), ops.size(), "entries for methods Store does not have: " + ops.keySet());
    }

    @Test
    void everyPublicMethodAfterCloseIsAnIllegalStateNamingTheClosedObject() throws Exception {
        System.out.println("ApiMisuseMatrixTest seed " + SEED);
        Store store = filledStore();
        Snapshot snap = store.snapshot();
        StoreIterator it = store.iterator(null, null);
        StoreIterator closedIt = store.iterator(null, null);
        closedIt.close();
        WriteBatch batch = new WriteBatch().put(key(1), value(key(1)));
        store.close();
        for (Map.Entry<String, Op> e : storeOps(new Random(SEED)).entrySet()) {
            String m = e.getKey();
            if (m.equals("close()") || m.equals("options()")) {
                e.getValue().run(store); // idempotent; the options stay readable
                continue;
            }
            IllegalStateException ise = assertThrows(IllegalStateException.class, () -> e.getValue().run(store),
                    "Store." + m + " after close");
            assertTrue(ise.getMessage().matches("store .* is closed"), m + ": " + ise.getMessage());
        }
        // A read-only open, closed, answers the same: the closed error comes before the read-only one.
        Store readOnly = Store.openReadOnly(dir, OPTIONS);
        readOnly.close();
        for (Map.Entry<String, Op> e : storeOps(new Random(SEED)).entrySet()) {
            if (!e.getKey().equals("close()") && !e.getKey().equals("options()")) {
                IllegalStateException ise = assertThrows(IllegalStateException.class,
                        () -> e.getValue().run(readOnly), "read-only Store." + e.getKey() + " after close");
                assertTrue(ise.getMessage().matches("store .* is closed"), e.getKey() + ": " + ise.getMessage());
            }
        }
        // The iterator opened before the close still reads its pinned tables, to the end.
        assertEquals(STABLE, scan(it, false));
        it.close();
        it.close();
        for (Op op : List.<Op>of(s -> it.hasNext(), s -> it.next(), s -> closedIt.hasNext(), s -> closedIt.next(),
                s -> it.forEachRemaining(kv -> { }))) {
            IllegalStateException ise = assertThrows(IllegalStateException.class, () -> op.run(store));
            assertEquals("iterator is closed", ise.getMessage());
        }
        assertThrows(UnsupportedOperationException.class, it::remove);
        // A snapshot outlives its store: its sequence stays readable until it is closed.
        assertTrue(snap.sequence() > 0);
        snap.close();
        snap.close();
        assertEquals("snapshot is closed", assertThrows(IllegalStateException.class, snap::sequence).getMessage());
        // A batch is the caller's: usable after the store closed, refused only by the closed store.
        batch.delete(key(2));
        assertEquals(2, batch.count());
        batch.clear();
        assertEquals(0, batch.count());
        try (Store reopened = Store.open(dir, OPTIONS)) {
            for (int i = 0; i < KEYS; i++) {
                assertArrayEquals(value(key(i)), reopened.get(key(i)), "key " + i);
            }
            // A closed snapshot is refused; so is one of another store or of an earlier open,
            // rather than read at a sequence this store's compactions never kept versions for.
            Snapshot closedSnap = reopened.snapshot();
            closedSnap.close();
            assertEquals("snapshot is closed", assertThrows(IllegalStateException.class,
                    () -> reopened.get(key(1), ReadOptions.at(closedSnap))).getMessage());
            assertThrows(IllegalArgumentException.class, () -> reopened.get(key(1), ReadOptions.at(snap)));
            Snapshot foreign = snapshotOfAnotherStore();
            IllegalArgumentException iae = assertThrows(IllegalArgumentException.class,
                    () -> reopened.get(key(1), ReadOptions.at(foreign)));
            assertTrue(iae.getMessage().contains("snapshot"), iae.getMessage());
            assertThrows(IllegalArgumentException.class, () -> reopened.iterator(null, null, ReadOptions.at(foreign)));
            foreign.close();
        }
    }

    private Snapshot snapshotOfAnotherStore() throws Exception {
        try (Store other = Store.open(dir.resolveSibling(dir.getFileName() + "-other"), OPTIONS)) {
            other.put(key(1), value(key(1)));
            return other.snapshot();
        }
    }

    /**
     * Each round: one thread per public method of the store, each calling it in a loop, while the
     * main thread closes the store at a random moment. Every call must either do its job (values
     * checked) or throw the store's "is closed" {@link IllegalStateException}.
     */
    @Test
    void closeRacingEveryMethodGivesCorrectResultsOrTheClosedError() throws Exception {
        System.out.println("ApiMisuseMatrixTest seed " + SEED);
        Random random = new Random(SEED);
        filledStore().close();
        long mappingsBefore = MappedBitStore.openMappings();
        for (int round = 0; round < 8; round++) {
            Store store = Store.open(dir, OPTIONS);
            ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
            Map<String, Op> ops = storeOps(new Random(random.nextLong()));
            ops.remove("close()");
            CountDownLatch started = new CountDownLatch(ops.size());
            List<Thread> threads = new ArrayList<>();
            for (Map.Entry<String, Op> e : ops.entrySet()) {
                Thread t = new Thread(() -> {
                    started.countDown();
                    while (true) {
                        try {
                            e.getValue().run(store);
                        } catch (IllegalStateException ise) {
                            if (ise.getMessage() == null || !ise.getMessage().matches("store .* is closed")) {
                                failures.add(new AssertionError(e.getKey() + " threw an unexpected ISE", ise));
                            }
                            return;
                        } catch (Throwable other) {
                            failures.add(new AssertionError(e.getKey() + " racing close threw", other));
                            return;
                        }
                        if (e.getKey().equals("options()")) {
                            return;
                        }
                    }
                }, "misuse-" + e.getKey());
                threads.add(t);
                t.start();
            }
            assertTrue(started.await(10, TimeUnit.SECONDS));
            Thread.sleep(random.nextInt(30));
            store.close();
            for (Thread t : threads) {
                t.join(TimeUnit.SECONDS.toMillis(30));
                assertTrue(!t.isAlive(), t.getName() + " still running after the close");
            }
            if (!failures.isEmpty()) {
                AssertionError all = new AssertionError(failures.size() + " calls misbehaved (seed " + SEED + ")");
                failures.forEach(all::addSuppressed);
                throw all;
            }
        }
        awaitMappings(mappingsBefore);
        try (Store store = Store.open(dir, OPTIONS)) {
            for (int i = 0; i < KEYS; i++) {
                checkStable(i, store.get(key(i)));
            }
        }
    }

    /**
     * An iterator closed by another thread while its reader walks it, forwards and backwards:
     * the reader sees correct entries in order, then "iterator is closed"; the tables it pinned
     * are released by whichever thread let go last.
     */
    @Test
    void anIteratorClosedFromAnotherThreadWhileInUse() throws Exception {
        System.out.println("ApiMisuseMatrixTest seed " + SEED);
        Random random = new Random(SEED);
        try (Store store = filledStore()) {
            store.flush();
            for (int round = 0; round < 300; round++) {
                boolean reverse = random.nextBoolean();
                StoreIterator it = reverse ? store.reverseIterator(null, null) : store.iterator(null, null);
                Throwable[] failure = new Throwable[1];
                CountDownLatch reading = new CountDownLatch(1);
                Thread reader = new Thread(() -> {
                    reading.countDown();
                    try {
                        scan(it, reverse);
                    } catch (IllegalStateException e) {
                        if (!"iterator is closed".equals(e.getMessage())) {
                            failure[0] = e;
                        }
                    } catch (Throwable t) {
                        failure[0] = t;
                    }
                });
                reader.start();
                reading.await();
                long pause = random.nextInt(400_000);
                long until = System.nanoTime() + pause;
                while (System.nanoTime() < until) {
                    Thread.onSpinWait();
                }
                it.close();
                reader.join();
                if (failure[0] != null) {
                    throw new AssertionError("round " + round + " (seed " + SEED + ")", failure[0]);
                }
            }
            for (int i = 0; i < STABLE; i++) {
                assertArrayEquals(value(key(i)), store.get(key(i)));
            }
        }
    }

    /**
     * Readers walk iterators on other threads while the store closes: an iterator opened before
     * the close reads on to its end with correct values (its tables stay pinned), one asked for
     * after the close is refused with "store ... is closed"; once all are closed, every filter is
     * unmapped.
     */
    @Test
    void aStoreClosedWhileIteratorsAreInUseOnOtherThreads() throws Exception {
        System.out.println("ApiMisuseMatrixTest seed " + SEED);
        Random random = new Random(SEED);
        filledStore().close();
        long mappingsBefore = MappedBitStore.openMappings();
        for (int round = 0; round < 20; round++) {
            Store store = Store.open(dir, OPTIONS);
            ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
            List<Thread> threads = new ArrayList<>();
            for (int t = 0; t < 3; t++) {
                boolean reverse = t % 2 == 1;
                Thread reader = new Thread(() -> {
                    while (true) {
                        StoreIterator it;
                        try {
                            it = reverse ? store.reverseIterator(null, null) : store.iterator(null, null);
                        } catch (IllegalStateException e) {
                            if (!e.getMessage().matches("store .* is closed")) {
                                failures.add(e);
                            }
                            return;
                        }
                        try (it) {
                            assertEquals(STABLE, scan(it, reverse));
                            assertTrue(!it.hasNext());
                            assertThrows(NoSuchElementException.class, it::next);
                        } catch (Throwable e) {
                            failures.add(e);
                            return;
                        }
                    }
                });
                threads.add(reader);
                reader.start();
            }
            Thread.sleep(random.nextInt(20));
            store.close();
            for (Thread t : threads) {
                t.join();
            }
            if (!failures.isEmpty()) {
                AssertionError all = new AssertionError(failures.size() + " readers misbehaved (seed " + SEED + ")");
                failures.forEach(all::addSuppressed);
                throw all;
            }
            assertThrows(IllegalStateException.class, () -> store.get(key(1)));
        }
        awaitMappings(mappingsBefore);
        try (Store store = Store.open(dir, OPTIONS)) {
            assertNull(store.get(key(KEYS + 1)));
        }
    }

    /**
     * Every filter mapped for the store is unmapped once it is closed and the readers' threads have
     * let go: close waits for every job of the store, a keyspace's drop cut short by it included
     * (one once left its keyspace's last tables mapped for the life of the process). The wait is
     * for a loaded machine's reclaim thread; a filter still mapped 10 s later is a leak, named in
     * the message.
     */
    private static void awaitMappings(long expected) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (MappedBitStore.openMappings() != expected && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        assertEquals(expected, MappedBitStore.openMappings(),
                "every filter unmapped once all are closed; mapped now: " + MappedBitStore.openMappingPaths());
    }
}
