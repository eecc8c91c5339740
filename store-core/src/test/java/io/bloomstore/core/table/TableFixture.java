package io.bloomstore.core.table;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.TreeSet;

import io.bloomstore.core.fs.FileSystem;
import io.bloomstore.core.fs.MemoryFileSystem;
import io.bloomstore.core.internal.ValueType;

/** Random table contents in internal order, with the model answers tests compare against. */
final class TableFixture {
    /** One internal entry. */
    record Entry(byte[] key, long seq, ValueType type, byte[] value) {
    }

    final List<Entry> entries = new ArrayList<>();
    final List<byte[]> userKeys = new ArrayList<>();

    /**
     * {@code keys} distinct user keys sharing prefixes (so prefix compression has work), each with
     * one to three versions at distinct sequence numbers; about a tenth of versions are tombstones.
     */
    static TableFixture random(Random rnd, int keys) {
        TreeSet<byte[]> set = new TreeSet<>(Arrays::compareUnsigned);
        while (set.size() < keys) {
            set.add(randomKey(rnd));
        }
        TableFixture f = new TableFixture();
        for (byte[] k : set) {
            f.userKeys.add(k);
            int versions = 1 + rnd.nextInt(3);
            long seq = 1000L * versions + rnd.nextInt(1000);
            for (int v = 0; v < versions; v++) {
                seq -= 1 + rnd.nextInt(900);
                boolean delete = rnd.nextInt(10) == 0;
                byte[] value = delete ? new byte[0] : randomValue(rnd);
                f.entries.add(new Entry(k, seq, delete ? ValueType.DELETION : ValueType.VALUE, value));
            }
        }
        return f;
    }

    /** An in-memory file system holding an empty {@code dir}. */
    static MemoryFileSystem memoryFileSystem(Path dir) throws IOException {
        MemoryFileSystem fs = new MemoryFileSystem();
        fs.createDirectories(dir);
        return fs;
    }

    static byte[] randomKey(Random rnd) {
        String prefix = switch (rnd.nextInt(3)) {
            case 0 -> "user:";
            case 1 -> "order:" + rnd.nextInt(20) + ":";
            default -> "";
        };
        byte[] p = prefix.getBytes(StandardCharsets.UTF_8);
        byte[] tail = new byte[1 + rnd.nextInt(12)];
        rnd.nextBytes(tail);
        byte[] k = Arrays.copyOf(p, p.length + tail.length);
        System.arraycopy(tail, 0, k, p.length, tail.length);
        return k;
    }

    static byte[] randomValue(Random rnd) {
        int len = rnd.nextInt(8) == 0 ? rnd.nextInt(3000) : rnd.nextInt(60);
        byte[] v = new byte[len];
        // Half the values repeat a short pattern so LZ4 finds something to compress.
        if (rnd.nextBoolean()) {
            for (int i = 0; i < len; i++) {
                v[i] = (byte) ('a' + i % 7);
            }
        } else {
            rnd.nextBytes(v);
        }
        return v;
    }

    TableMetadata write(FileSystem fs, Path dir, long fileNumber, TableOptions opts) throws IOException {
        TableBuilder b = new TableBuilder(fs, dir, fileNumber, opts);
        for (Entry e : entries) {
            b.add(e.key(), e.seq(), e.type(), e.value());
        }
        return b.finish();
    }

    /** The model answer of a table lookup: the newest version with sequence ≤ snapshot. */
    Entry expected(byte[] userKey, long snapshot) {
        for (Entry e : entries) {
            if (Arrays.equals(e.key(), userKey) && e.seq() <= snapshot) {
                return e;
            }
        }
        return null;
    }

    /** Index of the first entry whose user key is ≥ {@code userKey}. */
    int lowerBound(byte[] userKey) {
        int i = 0;
        while (i < entries.size() && Arrays.compareUnsigned(entries.get(i).key(), userKey) < 0) {
            i++;
        }
        return i;
    }
}
