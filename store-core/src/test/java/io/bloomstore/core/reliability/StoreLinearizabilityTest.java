package io.bloomstore.core.reliability;

import io.bloomstore.core.KeyValue;
import io.bloomstore.core.ReadOptions;
import io.bloomstore.core.Snapshot;
import io.bloomstore.core.Store;
import io.bloomstore.core.StoreIterator;
import io.bloomstore.core.StoreOptions;
import io.bloomstore.core.WriteBatch;
import io.bloomstore.core.fs.MemoryFileSystem;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicReference;
import org.jetbrains.lincheck.datastructures.IntGen;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Param;
import org.jetbrains.lincheck.datastructures.StressOptions;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Linearizability of {@link Store} with Lincheck: concurrent scenarios of put, get, delete, a
 * write batch, a get at a snapshot and a short iterator, with flushes and compactions among them
 * (explicit ones, and background flushes of a memtable of 1 KiB), are checked against
 * {@link Model}, a sorted map: every parallel execution must be explainable by some order of the
 * operations that respects real time. Stress mode (real threads, many interleavings) runs in CI
 * for a bounded number of invocations, more under {@code -Pstress}. Lincheck's model checking
 * does not fit (tried with Lincheck 3.7): its instrumentation rejects the memtable's byte-array
 * view {@code VarHandle}s ("Unsupported VarHandle type: VarHandleByteArrayAsInts"), and the store
 * hands flushes, compactions and table reclaiming to background threads of its own, which the
 * scenario does not start and Lincheck cannot schedule while the operations wait for them; the
 * run did not finish in 10 minutes.
 *
 * <p>Each scenario runs on a fresh store in a {@link MemoryFileSystem}; Lincheck creates one test
 * instance per invocation without closing it, so each instance closes its predecessor's store.
 */
@Param(name = "key", gen = IntGen.class, conf = "1:5")
@Param(name = "value", gen = IntGen.class, conf = "1:9")
public class StoreLinearizabilityTest {
    private static final StoreOptions OPTIONS = StoreOptions.builder().memtableBytes(1024).blockSize(256)
            .baseLevelBytes(4096).targetFileBytes(2048).build();
    private static final AtomicReference<Store> PREVIOUS = new AtomicReference<>();

    private final Store store;

    public StoreLinearizabilityTest() throws IOException {
        Store s = Store.open(new MemoryFileSystem(), Path.of("/lincheck"), OPTIONS);
        closeQuietly(PREVIOUS.getAndSet(s));
        // Some data in a table and some in the memtable before the scenario starts.
        for (int k = 1; k <= 5; k += 2) {
            s.put(key(k), value(k));
        }
        s.flush();
        s.put(key(2), value(2));
        this.store = s;
    }

    private static void closeQuietly(Store s) {
        if (s != null) {
            try {
                s.close();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    @AfterAll
    static void closeLast() {
        closeQuietly(PREVIOUS.getAndSet(null));
    }

    static byte[] key(int k) {
        return new byte[] {'k', (byte) k};
    }

    static byte[] value(int v) {
        return ByteBuffer.allocate(Integer.BYTES).putInt(v).array();
    }

    static Integer decode(byte[] v) {
        return v == null ? null : ByteBuffer.wrap(v).getInt();
    }

    @Operation
    public void put(@Param(name = "key") int k, @Param(name = "value") int v) throws IOException {
        store.put(key(k), value(v));
    }

    @Operation
    public Integer get(@Param(name = "key") int k) throws IOException {
        return decode(store.get(key(k)));
    }

    @Operation
    public void delete(@Param(name = "key") int k) throws IOException {
        store.delete(key(k));
    }

    /** Puts {@code k} and deletes its neighbour atomically. */
    @Operation
    public void writeBatch(@Param(name = "key") int k, @Param(name = "value") int v) throws IOException {
        store.write(new WriteBatch().put(key(k), value(v)).delete(key(k % 5 + 1)),
                io.bloomstore.core.WriteOptions.DEFAULT);
    }

    /** Takes a snapshot and reads two keys at it: both as of one moment. */
    @Operation
    public String snapshotGet(@Param(name = "key") int k) throws IOException {
        try (Snapshot s = store.snapshot()) {
            ReadOptions at = ReadOptions.at(s);
            return decode(store.get(key(k), at)) + "," + decode(store.get(key(k % 5 + 1), at));
        }
    }

    /** Every key and value, in order: a short iterator over the whole store. */
    @Operation
    public String scan() {
        StringBuilder sb = new StringBuilder();
        try (StoreIterator it = store.iterator(null, null)) {
            while (it.hasNext()) {
                KeyValue kv = it.next();
                sb.append(kv.key()[1]).append('=').append(decode(kv.value())).append(' ');
            }
        }
        return sb.toString();
    }

    @Operation
    public void flush() throws IOException {
        store.flush();
    }

    @Operation
    public void compact() throws IOException {
        store.compact();
    }

    /** The sequential specification: a sorted map; flushes and compactions change nothing visible. */
    public static final class Model {
        private final TreeMap<Integer, Integer> map = new TreeMap<>();

        public Model() {
            for (int k = 1; k <= 5; k += 2) {
                map.put(k, k);
            }
            map.put(2, 2);
        }

        public void put(int k, int v) {
            map.put(k, v);
        }

        public Integer get(int k) {
            return map.get(k);
        }

        public void delete(int k) {
            map.remove(k);
        }

        public void writeBatch(int k, int v) {
            map.put(k, v);
            map.remove(k % 5 + 1);
        }

        public String snapshotGet(int k) {
            return map.get(k) + "," + map.get(k % 5 + 1);
        }

        public String scan() {
            StringBuilder sb = new StringBuilder();
            for (Map.Entry<Integer, Integer> e : map.entrySet()) {
                sb.append(e.getKey()).append('=').append(e.getValue()).append(' ');
            }
            return sb.toString();
        }

        public void flush() {
        }

        public void compact() {
        }
    }

    private static StressOptions stress(int iterations, int invocations) {
        return new StressOptions().sequentialSpecification(Model.class).iterations(iterations)
                .invocationsPerIteration(invocations).threads(3).actorsPerThread(3).actorsBefore(2).actorsAfter(1);
    }

    @Test
    void concurrentOperationsWithFlushesAndCompactionsAreLinearizable() {
        stress(Integer.getInteger("bloomstore.lincheck.iterations", 10), 30).check(StoreLinearizabilityTest.class);
    }

    @Test
    @Tag("stress")
    void longerStressRun() {
        stress(Integer.getInteger("bloomstore.lincheck.iterations", 400), 200).check(StoreLinearizabilityTest.class);
    }
}
