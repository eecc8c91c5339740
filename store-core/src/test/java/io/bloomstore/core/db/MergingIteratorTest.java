package io.bloomstore.core.db;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.bloomstore.core.internal.InternalIterator;
import io.bloomstore.core.internal.ValueType;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The merge heap yields the union of its sources in internal order, forwards and backwards, from
 * any start, for 0 to 40 sources of random sizes sharing keys: the order a sort of the union gives.
 * Seed 20261124.
 */
class MergingIteratorTest {

    /** One entry: a user key and a sequence number (unique over all sources). */
    private record Entry(byte[] key, long sequence) {
    }

    private static final Comparator<Entry> ORDER = (a, b) -> {
        int c = Arrays.compareUnsigned(a.key, b.key);
        return c != 0 ? c : Long.compare(b.sequence, a.sequence);
    };

    @Test
    void mergesInInternalOrderBothWays() throws Exception {
        Random random = new Random(20261124);
        long sequence = 1;
        for (int round = 0; round < 300; round++) {
            int n = random.nextInt(41);
            List<List<Entry>> sources = new ArrayList<>();
            List<Entry> all = new ArrayList<>();
            for (int s = 0; s < n; s++) {
                List<Entry> entries = new ArrayList<>();
                int size = random.nextInt(4) == 0 ? 0 : random.nextInt(60);
                for (int i = 0; i < size; i++) {
                    entries.add(new Entry(new byte[] {(byte) random.nextInt(30), (byte) random.nextInt(3)}, sequence++));
                }
                entries.sort(ORDER);
                sources.add(entries);
                all.addAll(entries);
            }
            all.sort(ORDER);
            byte[] from = random.nextBoolean() ? null : new byte[] {(byte) random.nextInt(30)};
            List<Entry> expected = all.stream().filter(e -> from == null || Arrays.compareUnsigned(e.key, from) >= 0)
                    .toList();
            assertEquals(expected, drain(MergingIterator.forward(iterators(sources), from)), "round " + round);

            byte[] to = random.nextBoolean() ? null : new byte[] {(byte) random.nextInt(30), 5};
            List<Entry> backwards = new ArrayList<>(all.stream()
                    .filter(e -> to == null || Arrays.compareUnsigned(e.key, to) <= 0).toList());
            Collections.reverse(backwards);
            assertEquals(backwards, drain(MergingIterator.reverse(iterators(sources), to)), "round " + round);
        }
    }

    private static List<Entry> drain(MergingIterator m) throws Exception {
        List<Entry> out = new ArrayList<>();
        while (m.valid()) {
            out.add(new Entry(m.current().key(), m.current().sequence()));
            m.advance();
        }
        return out;
    }

    private static List<InternalIterator> iterators(List<List<Entry>> sources) {
        List<InternalIterator> out = new ArrayList<>();
        for (List<Entry> s : sources) {
            out.add(new ListIterator(s));
        }
        return out;
    }

    /** An {@link InternalIterator} over a sorted list. */
    private static final class ListIterator implements InternalIterator {
        private final List<Entry> entries;
        private int at = -1;

        ListIterator(List<Entry> entries) {
            this.entries = entries;
        }

        @Override
        public boolean valid() {
            return at >= 0 && at < entries.size();
        }

        @Override
        public void seekToFirst() {
            at = 0;
        }

        @Override
        public void seekToLast() {
            at = entries.size() - 1;
        }

        @Override
        public void seek(byte[] userKey) {
            at = 0;
            while (at < entries.size() && Arrays.compareUnsigned(entries.get(at).key, userKey) < 0) {
                at++;
            }
        }

        @Override
        public void seekForPrev(byte[] userKey) {
            at = entries.size() - 1;
            while (at >= 0 && Arrays.compareUnsigned(entries.get(at).key, userKey) > 0) {
                at--;
            }
        }

        @Override
        public void next() {
            at++;
        }

        @Override
        public void prev() {
            at--;
        }

        @Override
        public byte[] key() {
            return entries.get(at).key;
        }

        @Override
        public long sequence() {
            return entries.get(at).sequence;
        }

        @Override
        public ValueType type() {
            return ValueType.VALUE;
        }

        @Override
        public byte[] value() {
            return new byte[0];
        }

        @Override
        public void close() {
        }
    }
}
