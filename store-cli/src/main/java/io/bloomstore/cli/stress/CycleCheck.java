package io.bloomstore.cli.stress;

import io.bloomstore.core.KeyValue;
import io.bloomstore.core.Store;
import io.bloomstore.core.StoreIterator;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Checks a store after a cycle of {@code bloomstore stress} against the expected state: the values
 * every key held before the cycle ({@code baseline}) and the writer threads' {@link OpLog}s.
 *
 * <p>For one writer thread with ops 1..m, recovery must have kept a prefix 1..c of them (the WAL is
 * one sequence; a thread's writes are ordered in it), with c at least the last op that must have
 * survived: the last acknowledged sync write (it synced everything before it), or without power
 * loss the last acknowledged write (the operating system has it). So each of the thread's keys must
 * hold the state after op c for one c shared by all of them. Per key, the states after each of its
 * ops (and its baseline) give intervals of c; the check intersects them over the thread's keys with
 * a difference array, O(ops + keys). A key whose value fits no c at or above that bound is a lost
 * write if the value is an older state, phantom if no write to it made those bytes, torn if the
 * value names a write but its bytes differ; keys each fine on their own but with no common c are a
 * hole. Keys outside the stress key space found by a full scan are phantoms too.
 *
 * <p>Thread safety: confined to the calling thread.
 */
final class CycleCheck {
    /** What one cycle's check found. */
    record Outcome(long acknowledged, long acknowledgedSync, long verifiedKeys, long lost, long phantom, long torn,
                   long holes, List<String> examples) {
        boolean clean() {
            return lost == 0 && phantom == 0 && torn == 0 && holes == 0;
        }
    }

    private static final int MAX_EXAMPLES = 10;

    private CycleCheck() {
    }

    /**
     * Checks the open {@code store}; on return {@code baseline} holds what each key holds now (the
     * next cycle's baseline), null for absent.
     */
    static Outcome check(Store store, Path opsDir, int threads, int cycle, boolean powerLoss,
                         StressValues.ValueId[] baseline) throws IOException {
        int keys = baseline.length;
        StressValues.ValueId[] now = new StressValues.ValueId[keys];
        long lost = 0;
        long phantom = 0;
        long torn = 0;
        long holes = 0;
        long acknowledged = 0;
        long acknowledgedSync = 0;
        List<String> examples = new ArrayList<>();
        boolean[] unreadable = new boolean[keys];
        for (int k = 0; k < keys; k++) {
            byte[] v = store.get(StressValues.key(k));
            if (v != null) {
                now[k] = StressValues.parse(v);
                if (now[k] == null || now[k].key() != k) {
                    unreadable[k] = true;
                    boolean names = now[k] != null || new String(v, 0, Math.min(v.length, 80),
                            java.nio.charset.StandardCharsets.ISO_8859_1).startsWith("c" + cycle + ".");
                    if (names) {
                        torn++;
                    } else {
                        phantom++;
                    }
                    example(examples, "key " + k + ": " + (names ? "torn" : "phantom") + " value of " + v.length
                            + " bytes");
                }
            }
        }
        torn += checkMirror(store, keys, examples);
        try (StoreIterator it = store.iterator(null, null)) {
            while (it.hasNext()) {
                KeyValue kv = it.next();
                int k = StressValues.keyIndex(kv.key());
                if (k < 0 || k >= keys) {
                    phantom++;
                    example(examples, "phantom key of " + kv.key().length + " bytes");
                }
            }
        }
        for (int t = 0; t < threads; t++) {
            List<OpLog.Op> ops = OpLog.read(opsDir, t);
            int m = ops.size();
            int mustKeep = 0;
            for (int i = 0; i < m; i++) {
                OpLog.Op op = ops.get(i);
                if (op.acknowledged()) {
                    acknowledged++;
                    acknowledgedSync += op.sync() ? 1 : 0;
                    if (op.sync() || !powerLoss) {
                        mustKeep = i + 1;
                    }
                }
            }
            // Per key of this thread, the positions (1-based) of the ops that wrote it, in order.
            List<List<Integer>> positions = new ArrayList<>();
            for (int k = t; k < keys; k += threads) {
                positions.add(new ArrayList<>());
            }
            for (int i = 0; i < m; i++) {
                for (int k : ops.get(i).keys()) {
                    positions.get(k / threads).add(i + 1);
                }
            }
            int[] fits = new int[m + 2];
            int threadKeys = 0;
            boolean threadFailed = false;
            for (int k = t; k < keys; k += threads) {
                threadKeys++;
                if (unreadable[k]) {
                    threadFailed = true;
                    continue;
                }
                List<Integer> pos = positions.get(k / threads);
                boolean fitsAtOrAbove = false;
                boolean fitsBelow = false;
                // State before the first op: the baseline, for c in [0, first - 1].
                int start = 0;
                StressValues.ValueId state = baseline[k];
                for (int j = 0; j <= pos.size(); j++) {
                    int endExclusive = j < pos.size() ? pos.get(j) : m + 1;
                    if (same(state, now[k])) {
                        fits[start]++;
                        fits[endExclusive]--;
                        fitsAtOrAbove |= endExclusive - 1 >= mustKeep;
                        fitsBelow |= start < mustKeep;
                    }
                    if (j < pos.size()) {
                        OpLog.Op op = ops.get(pos.get(j) - 1);
                        state = stateAfter(op, k, cycle, t);
                        start = pos.get(j);
                    }
                }
                if (!fitsAtOrAbove) {
                    threadFailed = true;
                    if (fitsBelow) {
                        lost++;
                        example(examples, "key " + k + " (thread " + t + "): holds " + now[k]
                                + ", lost a write acknowledged by op " + mustKeep + " or earlier");
                    } else {
                        phantom++;
                        example(examples, "key " + k + " (thread " + t + "): holds " + now[k]
                                + ", which no write of this cycle or before made");
                    }
                }
            }
            if (!threadFailed) {
                boolean cut = false;
                int running = 0;
                for (int c = 0; c <= m; c++) {
                    running += fits[c];
                    if (c >= mustKeep && running == threadKeys) {
                        cut = true;
                        break;
                    }
                }
                if (!cut) {
                    holes++;
                    example(examples, "thread " + t + ": every key holds a state it may hold, but no prefix of its "
                            + m + " writes (at least " + mustKeep + ") explains them all: a hole");
                }
            }
        }
        System.arraycopy(now, 0, baseline, 0, keys);
        return new Outcome(acknowledged, acknowledgedSync, keys, lost, phantom, torn, holes, examples);
    }

    /**
     * Every write went into the default keyspace and keyspace {@link StressChild#MIRROR} in one
     * batch: each key holding different bytes in the two is a batch split across keyspaces,
     * counted as torn. Before the mirror keyspace exists, no key may hold anything.
     */
    private static long checkMirror(Store store, int keys, List<String> examples) throws IOException {
        io.bloomstore.core.Keyspace mirror = store.keyspaces().contains(StressChild.MIRROR)
                ? store.keyspace(StressChild.MIRROR) : null;
        long split = 0;
        for (int k = 0; k < keys; k++) {
            byte[] v = store.get(StressValues.key(k));
            byte[] m = mirror == null ? null : store.get(mirror, StressValues.key(k));
            if (!java.util.Arrays.equals(v, m)) {
                split++;
                example(examples, "key " + k + ": " + (v == null ? "absent" : v.length + " bytes")
                        + " in the default keyspace but " + (m == null ? "absent" : m.length + " bytes")
                        + " in keyspace " + StressChild.MIRROR + ": a batch split across keyspaces");
            }
        }
        return split;
    }

    private static StressValues.ValueId stateAfter(OpLog.Op op, int k, int cycle, int thread) {
        for (int i = 0; i < op.keys().length; i++) {
            if (op.keys()[i] == k) {
                return op.fillerLengths()[i] < 0 ? null
                        : new StressValues.ValueId(cycle, thread, op.op(), k, op.fillerLengths()[i]);
            }
        }
        throw new IllegalStateException("op " + op.op() + " does not write key " + k);
    }

    private static boolean same(StressValues.ValueId a, StressValues.ValueId b) {
        return a == null ? b == null : a.equals(b);
    }

    private static void example(List<String> examples, String what) {
        if (examples.size() < MAX_EXAMPLES) {
            examples.add(what);
        }
    }
}
