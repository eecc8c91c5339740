package io.bloomstore.core.memtable;

import io.bloomstore.core.internal.ValueType;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * The memtable's sorted index: a skip list whose nodes are records packed into large byte arrays
 * (an arena, as the LevelDB and RocksDB memtables keep theirs) instead of a tree of objects. A
 * node holds its tower of next pointers, the entry's trailer ({@code sequence << 8 | type}) and a
 * copy of the user key; the value stays the array the writer handed over, in a side table indexed
 * by the node. A search walks only the arena, whose records sit next to each other in insertion
 * order, so a comparison costs one memory access instead of four dependent ones (skip-list node,
 * index node, key object, key array) and an insert allocates no objects.
 *
 * <p>Node record, at a 4-byte aligned address {@code chunk << 18 | offset} (address 0 is "none";
 * chunks grow from 16 KiB to 256 KiB):
 * <pre>
 *   height(i32) keyLength(i32) valueIndex(i32) trailer(i64) next(i32)^height key(keyLength bytes)
 * </pre>
 * Order: user keys ascending as unsigned bytes, then sequence numbers descending; the type does
 * not take part (sequence numbers are unique).
 *
 * <p>Thread safety: one writer at a time (the caller serialises inserts) with any number of
 * concurrent readers. A node is fully written before it is linked; each link is stored with
 * release semantics and read with acquire semantics, so a reader that reaches a node sees its
 * fields, its value and the arena chunk holding it. Readers may or may not see nodes inserted
 * while they search.
 */
final class InlineSkipList {
    static final int MAX_HEIGHT = 12;
    static final int NONE = 0;
    private static final int BRANCHING = 4;
    private static final int CHUNK_BITS = 18;
    private static final int CHUNK_BYTES = 1 << CHUNK_BITS;
    /** The first chunk's size; each next one doubles up to {@link #CHUNK_BYTES}, so a small memtable stays small. */
    private static final int FIRST_CHUNK_BYTES = 16 * 1024;
    private static final int OFFSET_MASK = CHUNK_BYTES - 1;
    private static final int MAX_CHUNKS = 1 << (31 - CHUNK_BITS);
    private static final int VALUE_CHUNK_BITS = 12;
    private static final int VALUE_CHUNK_SIZE = 1 << VALUE_CHUNK_BITS;

    private static final int HEIGHT = 0;
    private static final int KEY_LENGTH = 4;
    private static final int VALUE_INDEX = 8;
    private static final int TRAILER = 12;
    private static final int NEXT = 20;

    private static final VarHandle INT = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle LONG = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    /** The head node: a full-height tower and no key, at offset 8 of chunk 0 (0 stays "none"). */
    private static final int HEAD = 8;

    /** Arena chunks; replaced (never modified in place below the chunk count) when it grows. */
    private volatile byte[][] chunks = new byte[16][];
    private volatile byte[][][] values = new byte[16][][];
    /** Height of the tallest tower so far; a reader that sees a stale value only searches lower. */
    private volatile int maxHeight = 1;
    private volatile int size;

    // Writer-only state.
    private int chunkCount;
    private int used;
    private long random = 0x2545F4914F6CDD1DL;
    private final int[] prev = new int[MAX_HEIGHT];

    InlineSkipList() {
        newChunk(FIRST_CHUNK_BYTES);
        used = HEAD;
        allocate(MAX_HEIGHT, 0);
    }

    int size() {
        return size;
    }

    /**
     * Inserts an entry, or replaces the value of an equal one (same user key and sequence), and
     * returns the arena and side-table bytes it took. REQUIRES: the caller serialises inserts.
     */
    long insert(byte[] key, long sequence, ValueType type, byte[] value) {
        int[] update = prev;
        int found = findGreaterOrEqual(key, sequence, update);
        if (found != NONE && compare(found, key, sequence) == 0) {
            setValue(valueIndex(found), value);
            return value.length;
        }
        int height = randomHeight();
        int top = maxHeight;
        if (height > top) {
            for (int i = top; i < height; i++) {
                update[i] = HEAD;
            }
            maxHeight = height;
        }
        int index = size;
        setValue(index, value);
        int node = allocate(height, key.length);
        byte[] c = chunk(node);
        int off = node & OFFSET_MASK;
        INT.set(c, off + KEY_LENGTH, key.length);
        INT.set(c, off + VALUE_INDEX, index);
        LONG.set(c, off + TRAILER, sequence << 8 | type.code());
        System.arraycopy(key, 0, c, off + NEXT + 4 * height, key.length);
        for (int i = 0; i < height; i++) {
            INT.set(c, off + NEXT + 4 * i, next(update[i], i));
            // Publish the node: everything written above is visible to a reader that sees the link.
            VarHandle.releaseFence();
            INT.set(chunk(update[i]), (update[i] & OFFSET_MASK) + NEXT + 4 * i, node);
        }
        size = index + 1;
        return recordBytes(height, key.length) + value.length + 20L;
    }

    /** The first node at or after ({@code key}, {@code sequence}) in internal order, or {@link #NONE}. */
    int seek(byte[] key, long sequence) {
        return findGreaterOrEqual(key, sequence, null);
    }

    /** The last node before ({@code key}, {@code sequence}), or {@link #NONE}. */
    int before(byte[] key, long sequence) {
        int x = HEAD;
        int level = maxHeight - 1;
        while (true) {
            int next = next(x, level);
            if (next != NONE && compare(next, key, sequence) < 0) {
                x = next;
            } else if (level == 0) {
                return x == HEAD ? NONE : x;
            } else {
                level--;
            }
        }
    }

    int first() {
        return next(HEAD, 0);
    }

    int last() {
        int x = HEAD;
        int level = maxHeight - 1;
        while (true) {
            int next = next(x, level);
            if (next != NONE) {
                x = next;
            } else if (level == 0) {
                return x == HEAD ? NONE : x;
            } else {
                level--;
            }
        }
    }

    /** The node after {@code node} in internal order, or {@link #NONE}. */
    int next(int node) {
        return next(node, 0);
    }

    /** Whether {@code node}'s user key equals {@code key}. */
    boolean keyEquals(int node, byte[] key) {
        byte[] c = chunk(node);
        int off = node & OFFSET_MASK;
        int keyStart = off + NEXT + 4 * (int) INT.get(c, off + HEIGHT);
        return Arrays.equals(c, keyStart, keyStart + (int) INT.get(c, off + KEY_LENGTH), key, 0, key.length);
    }

    byte[] key(int node) {
        byte[] c = chunk(node);
        int off = node & OFFSET_MASK;
        int keyStart = off + NEXT + 4 * (int) INT.get(c, off + HEIGHT);
        return Arrays.copyOfRange(c, keyStart, keyStart + (int) INT.get(c, off + KEY_LENGTH));
    }

    long sequence(int node) {
        return trailer(node) >>> 8;
    }

    ValueType type(int node) {
        return ValueType.byCode((int) (trailer(node) & 0xff));
    }

    byte[] value(int node) {
        int index = valueIndex(node);
        return values[index >>> VALUE_CHUNK_BITS][index & (VALUE_CHUNK_SIZE - 1)];
    }

    private long trailer(int node) {
        return (long) LONG.get(chunk(node), (node & OFFSET_MASK) + TRAILER);
    }

    private int valueIndex(int node) {
        return (int) INT.get(chunk(node), (node & OFFSET_MASK) + VALUE_INDEX);
    }

    /** Negative, zero or positive as {@code node} sorts before, at or after ({@code key}, {@code sequence}). */
    private int compare(int node, byte[] key, long sequence) {
        byte[] c = chunk(node);
        int off = node & OFFSET_MASK;
        int keyStart = off + NEXT + 4 * (int) INT.get(c, off + HEIGHT);
        int r = Arrays.compareUnsigned(c, keyStart, keyStart + (int) INT.get(c, off + KEY_LENGTH), key, 0, key.length);
        if (r != 0) {
            return r;
        }
        return Long.compare(sequence, (long) LONG.get(c, off + TRAILER) >>> 8);
    }

    private int findGreaterOrEqual(byte[] key, long sequence, int[] update) {
        int x = HEAD;
        int level = maxHeight - 1;
        while (true) {
            int next = next(x, level);
            if (next != NONE && compare(next, key, sequence) < 0) {
                x = next;
            } else {
                if (update != null) {
                    update[level] = x;
                }
                if (level == 0) {
                    return next;
                }
                level--;
            }
        }
    }

    private int next(int node, int level) {
        // Fences rather than getAcquire/setRelease: from Java 22 on, byte-array views refuse
        // atomic access modes (a heap byte[] is only byte-aligned); plain aligned int access stays atomic.
        int next = (int) INT.get(chunk(node), (node & OFFSET_MASK) + NEXT + 4 * level);
        VarHandle.acquireFence();
        return next;
    }

    private byte[] chunk(int node) {
        return chunks[node >>> CHUNK_BITS];
    }

    private int randomHeight() {
        int height = 1;
        while (height < MAX_HEIGHT) {
            random ^= random << 13;
            random ^= random >>> 7;
            random ^= random << 17;
            if ((random & (BRANCHING - 1)) != 0) {
                break;
            }
            height++;
        }
        return height;
    }

    private static int recordBytes(int height, int keyLength) {
        return (NEXT + 4 * height + keyLength + 3) & ~3;
    }

    /** Reserves a zeroed record with its height written; the caller fills in the rest before linking it. */
    private int allocate(int height, int keyLength) {
        int bytes = recordBytes(height, keyLength);
        if (bytes > CHUNK_BYTES) {
            throw new IllegalArgumentException("key of " + keyLength + " bytes does not fit a memtable arena chunk");
        }
        byte[] current = chunks[chunkCount - 1];
        if (used + bytes > current.length) {
            newChunk(Math.max(bytes, Math.min(CHUNK_BYTES, 2 * current.length)));
        }
        int node = (chunkCount - 1) << CHUNK_BITS | used;
        used += bytes;
        INT.set(chunks[chunkCount - 1], node & OFFSET_MASK, height);
        return node;
    }

    private void newChunk(int size) {
        if (chunkCount == MAX_CHUNKS) {
            throw new IllegalStateException("memtable index is over " + ((long) MAX_CHUNKS << CHUNK_BITS) + " bytes");
        }
        byte[][] dir = chunks;
        if (chunkCount == dir.length) {
            dir = Arrays.copyOf(dir, dir.length * 2);
        }
        dir[chunkCount++] = new byte[size];
        chunks = dir;
        used = 0;
    }

    private void setValue(int index, byte[] value) {
        byte[][][] dir = values;
        int c = index >>> VALUE_CHUNK_BITS;
        if (c == dir.length) {
            dir = Arrays.copyOf(dir, dir.length * 2);
        }
        if (dir[c] == null) {
            dir[c] = new byte[VALUE_CHUNK_SIZE][];
        }
        dir[c][index & (VALUE_CHUNK_SIZE - 1)] = value;
        values = dir;
    }
}
