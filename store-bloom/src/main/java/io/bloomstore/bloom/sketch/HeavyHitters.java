package io.bloomstore.bloom.sketch;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.PriorityQueue;
import java.util.function.ToLongFunction;

/**
 * ε-heavy hitters over a stream with a {@link CountMinSketch}, as the seminar on the Bloom paradox
 * describes: keep m (items seen); for each item x run Inc(x) then Count(x); if Count(x) ≥ m/k put
 * (x, Count(x)) in a min-heap (or update it there); evict heap entries whose count fell below
 * m/k. The heap never holds more than k entries.
 *
 * <p>Guarantees (N = items seen, ε the sketch's error): every item seen at least N/k times is in
 * the heap (its estimate never underestimates, and it was added at its last arrival and never
 * fell below the threshold); with probability at least 1 − δ per item, an item in the heap was
 * seen at least N/k − εN times. Before evicting, an entry's count is refreshed from the sketch,
 * so a stale count never evicts an item that still qualifies. If more than k items qualify (the
 * sketch overestimates), the one with the smallest count is dropped.
 *
 * <p>Thread safety: not thread-safe; confine to one thread.
 *
 * @param <T> item type; equal items must have equal hashes
 */
public final class HeavyHitters<T> {
    private final CountMinSketch sketch;
    private final int k;
    private final ToLongFunction<T> hash;
    private final Map<T, Entry<T>> entries = new HashMap<>();
    private final PriorityQueue<Entry<T>> heap = new PriorityQueue<>(Comparator.comparingLong(e -> e.count));
    private long seen;

    /** One heap entry: an item and its count when last refreshed. */
    private static final class Entry<T> {
        final T item;
        final long hash;
        long count;

        Entry(T item, long hash, long count) {
            this.item = item;
            this.hash = hash;
            this.count = count;
        }
    }

    /** An item reported as a heavy hitter, with its Count-Min estimate. */
    public record Hitter<T>(T item, long estimate) {
    }

    /**
     * Tracks up to {@code k} items over {@code sketch}; {@code hash} maps an item to the
     * 64-bit hash the sketch takes (for byte keys, {@code Filters::hash}).
     */
    public HeavyHitters(CountMinSketch sketch, int k, ToLongFunction<T> hash) {
        if (k < 1) {
            throw new IllegalArgumentException("k must be positive, got " + k);
        }
        this.sketch = Objects.requireNonNull(sketch, "sketch");
        this.k = k;
        this.hash = Objects.requireNonNull(hash, "hash");
    }

    /** Processes one stream item: Inc, Count, heap update, evictions. */
    public void offer(T item) {
        long h = hash.applyAsLong(item);
        seen++;
        sketch.addHash(h, 1);
        long c = sketch.estimateHash(h);
        Entry<T> e = entries.get(item);
        if (e != null) {
            heap.remove(e);
            e.count = c;
            heap.add(e);
        } else if (qualifies(c)) {
            e = new Entry<>(item, h, c);
            entries.put(item, e);
            heap.add(e);
        }
        evict();
    }

    private boolean qualifies(long count) {
        // Count ≥ m/k without rounding: count · k ≥ m.
        return count * k >= seen;
    }

    private void evict() {
        while (!heap.isEmpty() && (!qualifies(heap.peek().count) || heap.size() > k)) {
            Entry<T> min = heap.poll();
            long fresh = sketch.estimateHash(min.hash);
            if (fresh > min.count && qualifies(fresh)) {
                min.count = fresh;
                heap.add(min);
                continue;
            }
            entries.remove(min.item);
        }
    }

    /** Whether the item is currently reported as a heavy hitter. */
    public boolean contains(T item) {
        return entries.containsKey(item);
    }

    /** The current heavy hitters, largest estimate first. */
    public List<Hitter<T>> hitters() {
        List<Hitter<T>> out = new ArrayList<>();
        for (Entry<T> e : entries.values()) {
            out.add(new Hitter<>(e.item, sketch.estimateHash(e.hash)));
        }
        out.sort(Comparator.comparingLong((Hitter<T> x) -> x.estimate()).reversed());
        return out;
    }

    /** m: items seen so far. */
    public long seen() {
        return seen;
    }

    public int k() {
        return k;
    }

    public int size() {
        return entries.size();
    }

    public CountMinSketch sketch() {
        return sketch;
    }
}
