package io.bloomstore.cli.store;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.Closeable;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;

/**
 * Sorts key-value pairs by key (unsigned bytes) within a memory budget, for {@code ingest}: pairs
 * are held until the budget is reached, then sorted and written to a run file in a scratch
 * directory; {@link #merge} merges the runs and what is still held. Of pairs with equal keys the
 * one added last is kept, as writing them in turn would keep it.
 *
 * <p>Run file: a sequence of {@code keyLength (int), key, valueLength (int), value}, sorted, keys
 * unique. Thread safety: one thread.
 */
final class ExternalSorter implements Closeable {
    /** Heap bytes a held pair costs beyond its key and value (two arrays and a record). */
    private static final int PAIR_OVERHEAD = 64;
    private static final Comparator<byte[]> KEYS = Arrays::compareUnsigned;

    /** A key and its value. */
    record Pair(byte[] key, byte[] value) {
    }

    /** Receives the merged pairs in key order. */
    interface Sink {
        void accept(byte[] key, byte[] value) throws IOException;
    }

    private final Path scratch;
    private final long memoryBytes;
    private final List<Pair> held = new ArrayList<>();
    private final List<Path> runs = new ArrayList<>();
    private long heldBytes;

    ExternalSorter(Path scratch, long memoryBytes) {
        this.scratch = scratch;
        this.memoryBytes = memoryBytes;
    }

    void add(byte[] key, byte[] value) throws IOException {
        held.add(new Pair(key, value));
        heldBytes += key.length + value.length + PAIR_OVERHEAD;
        if (heldBytes >= memoryBytes) {
            spill();
        }
    }

    /** Run files written so far. */
    int runs() {
        return runs.size();
    }

    /** Sorts what is held (stable, so the last of equal keys comes last) and keeps the last of each key. */
    private List<Pair> sortedHeld() {
        held.sort((a, b) -> KEYS.compare(a.key(), b.key()));
        List<Pair> unique = new ArrayList<>(held.size());
        for (int i = 0; i < held.size(); i++) {
            if (i + 1 < held.size() && KEYS.compare(held.get(i).key(), held.get(i + 1).key()) == 0) {
                continue;
            }
            unique.add(held.get(i));
        }
        held.clear();
        heldBytes = 0;
        return unique;
    }

    private void spill() throws IOException {
        Path run = scratch.resolve("run-" + runs.size());
        try (DataOutputStream out = new DataOutputStream(new BufferedOutputStream(Files.newOutputStream(run), 1 << 16))) {
            for (Pair p : sortedHeld()) {
                out.writeInt(p.key().length);
                out.write(p.key());
                out.writeInt(p.value().length);
                out.write(p.value());
            }
        }
        runs.add(run);
    }

    /** One sorted source: a run file or the pairs still held. Later sources win ties. */
    private abstract static class Source {
        final int rank;
        Pair head;

        Source(int rank) {
            this.rank = rank;
        }

        abstract void advance() throws IOException;
    }

    private static final class RunSource extends Source implements Closeable {
        private final DataInputStream in;

        RunSource(int rank, Path run) throws IOException {
            super(rank);
            this.in = new DataInputStream(new BufferedInputStream(Files.newInputStream(run), 1 << 16));
            advance();
        }

        @Override
        void advance() throws IOException {
            int keyLength;
            try {
                keyLength = in.readInt();
            } catch (EOFException end) {
                head = null;
                return;
            }
            byte[] key = in.readNBytes(keyLength);
            byte[] value = in.readNBytes(in.readInt());
            head = new Pair(key, value);
        }

        @Override
        public void close() throws IOException {
            in.close();
        }
    }

    private static final class ListSource extends Source {
        private final List<Pair> pairs;
        private int next;

        ListSource(int rank, List<Pair> pairs) {
            super(rank);
            this.pairs = pairs;
            advance();
        }

        @Override
        void advance() {
            head = next < pairs.size() ? pairs.get(next++) : null;
        }
    }

    /** Hands every key once, ascending, with the value added last; returns the number of keys. */
    long merge(Sink sink) throws IOException {
        List<Source> sources = new ArrayList<>();
        List<RunSource> open = new ArrayList<>();
        try {
            for (int i = 0; i < runs.size(); i++) {
                RunSource r = new RunSource(i, runs.get(i));
                open.add(r);
                sources.add(r);
            }
            sources.add(new ListSource(runs.size(), sortedHeld()));
            PriorityQueue<Source> heads = new PriorityQueue<>((a, b) -> {
                int c = KEYS.compare(a.head.key(), b.head.key());
                return c != 0 ? c : Integer.compare(b.rank, a.rank);
            });
            for (Source s : sources) {
                if (s.head != null) {
                    heads.add(s);
                }
            }
            long keys = 0;
            while (!heads.isEmpty()) {
                Source top = heads.poll();
                Pair winner = top.head;
                sink.accept(winner.key(), winner.value());
                keys++;
                requeue(heads, top);
                while (!heads.isEmpty() && KEYS.compare(heads.peek().head.key(), winner.key()) == 0) {
                    requeue(heads, heads.poll());
                }
            }
            return keys;
        } finally {
            for (RunSource r : open) {
                r.close();
            }
        }
    }

    private static void requeue(PriorityQueue<Source> heads, Source s) throws IOException {
        s.advance();
        if (s.head != null) {
            heads.add(s);
        }
    }

    @Override
    public void close() throws IOException {
        for (Path run : runs) {
            Files.deleteIfExists(run);
        }
    }
}
