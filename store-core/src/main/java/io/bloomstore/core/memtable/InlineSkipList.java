package io.bloomstore.core.memtable;

import io.bloomstore.core.internal.ValueType;
import java.lang.invoke.VarHandle;
import java.util.Arrays;

/**
 * The memtable's sorted index: a skip list whose nodes are records packed into large int arrays
 * (an arena, as the LevelDB and RocksDB memtables keep theirs) instead of a tree of objects. A
 * node holds its tower of next pointers, the entry's trailer ({@code sequence << 8 | type}) and a
 * copy of the user key, packed big-endian four bytes to an int and zero-padded; the value is
 * copied into a second arena of large byte arrays. A search walks only the int arena, whose records
 * sit next to each other in insertion order, so a comparison costs one memory access instead of
 * four dependent ones (skip-list node, index node, key object, key array) and an insert allocates
 * no objects but the searched key's packed copy.
 *
 * <p>Why values in an arena and not one array each: a memtable's values live until its flush, so
 * every young collection while it fills copied each of them (a 4 MiB memtable of 1 KiB values is
 * some 4,000 objects; with two waiting for the flush thread, three times that), and each put
 * allocated its value's copy. A value chunk as large as {@link #MAX_VALUE_CHUNK} is, on a heap
 * whose G1 regions are 4 MiB or smaller, a humongous object: allocated outside the young
 * generation, never copied, freed as a whole once the memtable is gone. The first chunk is sized
 * for the memtable's expected bytes, so a default memtable keeps its values in one or two such
 * chunks; the cost is that a memtable holds its first chunk (its configured size, at most 4 MiB)
 * from its first put on, as RocksDB's arena holds its first block.
 *
 * <p>Why ints and not bytes read through a byte-array view {@code VarHandle}: every view access
 * inlines seven JDK methods, and this list is on the path of every put and of every get, so a
 * fresh JVM's compilers parsed them into each compile of those paths (and ran them slowly before
 * compiling). Packed keys compare as unsigned ints in the order of their unsigned bytes: the first
 * differing int decides; when the ints the two keys share are equal, the shorter key is a prefix of
 * the longer (its padding is zeros), so the byte lengths decide.
 *
 * <p>Node record, at address {@code chunk << 16 | index} of int chunks (address 0 is "none";
 * chunks grow from 4 Ki to 64 Ki ints):
 * <pre>
 *   height keyLength valueAddress trailerHigh trailerLow next^height key(ceil(keyLength / 4) ints)
 * </pre>
 * Value record, at {@code valueAddress = chunk << 20 | offset / 4} of the value chunks (offsets
 * four-byte aligned): {@code length(4 bytes, big-endian) bytes(length)}.
 * Order: user keys ascending as unsigned bytes, then sequence numbers descending; the type does
 * not take part (sequence numbers are unique).
 *
 * <p>Thread safety: one writer at a time (the caller serialises inserts) with any number of
 * concurrent readers. A node is fully written before it is linked; a release fence precedes each
 * link and an acquire fence follows each read of one, so a reader that reaches a node sees its
 * fields, its value and the arena chunk holding it. Readers may or may not see nodes inserted
 * while they search.
 */
final class InlineSkipList {
    static final int MAX_HEIGHT = 12;
    static final int NONE = 0;
    private static final byte[] EMPTY = new byte[0];
    private static final int BRANCHING = 4;
    private static final int CHUNK_BITS = 16;
    private static final int CHUNK_INTS = 1 << CHUNK_BITS;
    /** The first chunk's size; each next one doubles up to {@link #CHUNK_INTS}, so a small memtable stays small. */
    private static final int FIRST_CHUNK_INTS = 4 * 1024;
    private static final int OFFSET_MASK = CHUNK_INTS - 1;
    private static final int MAX_CHUNKS = 1 << (31 - CHUNK_BITS);
    /** Bits of a value address holding the offset in its chunk, in four-byte units. */
    private static final int VALUE_OFFSET_BITS = 20;
    private static final int MAX_VALUE_CHUNKS = 1 << (31 - VALUE_OFFSET_BITS);
    /**
     * The largest value chunk: 4 MiB less an array's header, so that one fills a 4 MiB G1 region
     * (a humongous object there, and on smaller regions) and its offsets fit the address.
     */
    static final int MAX_VALUE_CHUNK = (4 << 20) - 16;
    /** The smallest value chunk, for a memtable that expects little. */
    static final int MIN_VALUE_CHUNK = 16 << 10;
    /** A value taking more than this gets a chunk of its own rather than a new shared one. */
    private static final int OWN_CHUNK_ABOVE = 1 << 20;

    private static final int HEIGHT = 0;
    private static final int KEY_LENGTH = 1;
    private static final int VALUE_ADDRESS = 2;
    private static final int TRAILER_HIGH = 3;
    private static final int TRAILER_LOW = 4;
    private static final int NEXT = 5;

    /** The head node: a full-height tower and no key, at index 1 of chunk 0 (0 stays "none"). */
    private static final int HEAD = 1;

    /** Arena chunks; replaced (never modified in place below the chunk count) when it grows. */
    private volatile int[][] chunks = new int[16][];
    /** Value chunks; replaced (never modified in place below the chunk count) when it grows. */
    private volatile byte[][] valueChunks = new byte[16][];
    /** Height of the tallest tower so far; a reader that sees a stale value only searches lower. */
    private volatile int maxHeight = 1;
    private volatile int size;

    // Writer-only state.
    private int chunkCount;
    private int used;
    private long random = 0x2545F4914F6CDD1DL;
    /**
     * The splice (RocksDB's {@code seq_splice_}): after an insert, each level's node just before
     * the position right after the inserted entry: the inserted node on its own levels, its
     * predecessors above. A key that falls between {@code prev[0]} and the node after it has
     * exactly these predecessors on every level, so it is linked in without a search: a batch of
     * ascending keys, or a fill in key order, compares each key twice instead of some twenty times
     * (the search's compares were half a batched fill's time). Valid only while {@link #spliceValid}.
     */
    private final int[] prev = new int[MAX_HEIGHT];
    /** Whether {@link #prev} is the splice of the last insert (a search that ended in a replacement leaves it torn). */
    private boolean spliceValid = true;
    /** Whether the last insert's key fell in the splice; after a miss the splice is tried every 16th insert. */
    private boolean spliceHit = true;
    private int sinceSpliceTried;
    /** The key being inserted, packed ({@link #pack}); grown as keys need. */
    private int[] packScratch = new int[8];
    private int valueChunkCount;
    /** The shared value chunk being filled, -1 before the first. */
    private int valueCurrent = -1;
    private int valueUsed;
    private final int firstValueChunk;

    /** A list whose first value chunk holds about {@code expectedValueBytes} (clamped to the chunk limits). */
    InlineSkipList(long expectedValueBytes) {
        firstValueChunk = (int) Math.max(MIN_VALUE_CHUNK, Math.min(MAX_VALUE_CHUNK, expectedValueBytes));
        newChunk(FIRST_CHUNK_INTS);
        used = HEAD;
        allocate(MAX_HEIGHT, 0);
        Arrays.fill(prev, HEAD);
    }

    int size() {
        return size;
    }

    /**
     * Inserts an entry, or replaces the value of an equal one (same user key and sequence), and
     * returns the arena bytes it took. Key and value are copied: the caller keeps its arrays.
     * REQUIRES: the caller serialises inserts.
     */
    long insert(byte[] key, long sequence, ValueType type, byte[] value) {
        int keyInts = (key.length + 3) >>> 2;
        if (packScratch.length < keyInts) {
            packScratch = new int[Math.max(keyInts, 2 * packScratch.length)];
        }
        // The writer's own array: the insert copies the packed key into the arena and keeps no reference.
        int[] packed = packScratch;
        packInto(key, packed);
        int[] update = prev;
        search:
        {
            // Random keys miss the splice: after a miss it is tried again every 16th insert only.
            if (spliceValid && (spliceHit || (++sinceSpliceTried & 15) == 0)) {
                int p = update[0];
                if (p == HEAD || compareAt(p, packed, key.length, sequence) < 0) {
                    int after = next(p, 0);
                    if (after == NONE || compareAt(after, packed, key.length, sequence) > 0) {
                        spliceHit = true;
                        break search;
                    }
                }
                spliceHit = false;
            }
            // The search rewrites the splice from the top: torn if it ends in a replacement.
            spliceValid = false;
            // The search is written out here rather than called (findGreaterOrEqual): this method is
            // then longer than the 325 bytecodes C2 inlines into a hot caller, so a fresh JVM compiles
            // it once, on its own, instead of once more inside each layer of the put path above it.
            // One compare call site in the search: C2 compiles each site's inlined copy.
            int x = HEAD;
            int level = maxHeight - 1;
            while (true) {
                int next = next(x, level);
                int order = next == NONE ? 1 : compare(next, packed, key.length, sequence);
                if (order < 0) {
                    x = next;
                } else if (order == 0) {
                    int address = putValue(value);
                    // The new value is written before a reader can find its address.
                    VarHandle.releaseFence();
                    chunk(next)[(next & OFFSET_MASK) + VALUE_ADDRESS] = address;
                    return value.length;
                } else {
                    update[level] = x;
                    if (level == 0) {
                        break;
                    }
                    level--;
                }
            }
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
        int address = putValue(value);
        int node = allocate(height, keyInts);
        int[] c = chunk(node);
        int off = node & OFFSET_MASK;
        long trailer = sequence << 8 | type.code();
        c[off + KEY_LENGTH] = key.length;
        c[off + VALUE_ADDRESS] = address;
        c[off + TRAILER_HIGH] = (int) (trailer >>> 32);
        c[off + TRAILER_LOW] = (int) trailer;
        System.arraycopy(packed, 0, c, off + NEXT + height, keyInts);
        for (int i = 0; i < height; i++) {
            c[off + NEXT + i] = next(update[i], i);
            // Publish the node: everything written above is visible to a reader that sees the link.
            VarHandle.releaseFence();
            chunk(update[i])[(update[i] & OFFSET_MASK) + NEXT + i] = node;
        }
        // The splice for the next insert: the new node precedes what comes right after it on its own levels.
        for (int i = 0; i < height; i++) {
            update[i] = node;
        }
        spliceValid = true;
        size = index + 1;
        return 4L * (NEXT + height + keyInts) + value.length + 20L;
    }

    /** The first node at or after ({@code key}, {@code sequence}) in internal order, or {@link #NONE}. */
    int seek(byte[] key, long sequence) {
        return findGreaterOrEqual(pack(key), key.length, sequence, null);
    }

    /**
     * The first node at or after ({@code key}, {@code sequence}) in internal order if its user key
     * is {@code key}, else {@link #NONE}: the newest entry of {@code key} at or below {@code sequence}.
     */
    int find(byte[] key, long sequence) {
        int[] packed = pack(key);
        int node = findGreaterOrEqual(packed, key.length, sequence, null);
        return node != NONE && keyEquals(node, packed, key.length) ? node : NONE;
    }

    /** The last node before ({@code key}, {@code sequence}), or {@link #NONE}. */
    int before(byte[] key, long sequence) {
        int[] packed = pack(key);
        int x = HEAD;
        int level = maxHeight - 1;
        while (true) {
            int next = next(x, level);
            if (next != NONE && compare(next, packed, key.length, sequence) < 0) {
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

    /** For tests: the first node on {@code level}, or {@link #NONE}. */
    int firstAt(int level) {
        return next(HEAD, level);
    }

    /** For tests: the node after {@code node} on {@code level}, or {@link #NONE}. */
    int nextAt(int node, int level) {
        return next(node, level);
    }

    /** For tests: the number of levels in use. */
    int levels() {
        return maxHeight;
    }

    /** The node after {@code node} in internal order, or {@link #NONE}. */
    int next(int node) {
        return next(node, 0);
    }

    /** A copy of {@code node}'s user key. */
    byte[] key(int node) {
        int[] c = chunk(node);
        int off = node & OFFSET_MASK;
        int length = c[off + KEY_LENGTH];
        int at = off + NEXT + c[off + HEIGHT];
        byte[] key = new byte[length];
        // Four bytes at a time: a flush unpacks every key of the memtable (a fifth of its time byte by byte).
        int full = length >>> 2;
        for (int j = 0; j < full; j++) {
            int w = c[at + j];
            int b = j << 2;
            key[b] = (byte) (w >>> 24);
            key[b + 1] = (byte) (w >>> 16);
            key[b + 2] = (byte) (w >>> 8);
            key[b + 3] = (byte) w;
        }
        for (int i = full << 2; i < length; i++) {
            key[i] = (byte) (c[at + (i >>> 2)] >>> (24 - 8 * (i & 3)));
        }
        return key;
    }

    long sequence(int node) {
        return trailer(node) >>> 8;
    }

    ValueType type(int node) {
        return ValueType.byCode((int) (trailer(node) & 0xff));
    }

    /** A copy of {@code node}'s value (a shared empty array when it has none). */
    byte[] value(int node) {
        int address = valueAddress(node);
        byte[] chunk = valueChunk(address);
        int at = valueStart(address);
        int length = readInt(chunk, at - Integer.BYTES);
        return length == 0 ? EMPTY : Arrays.copyOfRange(chunk, at, at + length);
    }

    /** The value address of {@code node}: its chunk ({@link #valueChunk}) and start ({@link #valueStart}). */
    int valueAddress(int node) {
        int address = chunk(node)[(node & OFFSET_MASK) + VALUE_ADDRESS];
        // Pairs with the release fence before a replaced value's address is written.
        VarHandle.acquireFence();
        return address;
    }

    /** The value chunk holding the value at {@code address} (do not modify). */
    byte[] valueChunk(int address) {
        return valueChunks[address >>> VALUE_OFFSET_BITS];
    }

    /** Where the value at {@code address} starts in its chunk. */
    static int valueStart(int address) {
        return ((address & ((1 << VALUE_OFFSET_BITS) - 1)) << 2) + Integer.BYTES;
    }

    /** The length of the value at {@code address}. */
    int valueLength(int address) {
        return readInt(valueChunk(address), valueStart(address) - Integer.BYTES);
    }

    private static int readInt(byte[] b, int at) {
        return (b[at] & 0xFF) << 24 | (b[at + 1] & 0xFF) << 16 | (b[at + 2] & 0xFF) << 8 | (b[at + 3] & 0xFF);
    }

    private long trailer(int node) {
        int[] c = chunk(node);
        int off = node & OFFSET_MASK;
        return (long) c[off + TRAILER_HIGH] << 32 | (c[off + TRAILER_LOW] & 0xFFFF_FFFFL);
    }

    /** {@code key} packed as the arena holds it: big-endian, four bytes to an int, the last zero-padded. */
    static int[] pack(byte[] key) {
        int[] packed = new int[(key.length + 3) >>> 2];
        packInto(key, packed);
        return packed;
    }

    /** {@link #pack} into the first {@code ceil(key.length / 4)} ints of {@code packed}, four bytes at a time. */
    private static void packInto(byte[] key, int[] packed) {
        int full = key.length >>> 2;
        for (int j = 0; j < full; j++) {
            int b = j << 2;
            packed[j] = (key[b] & 0xFF) << 24 | (key[b + 1] & 0xFF) << 16 | (key[b + 2] & 0xFF) << 8 | (key[b + 3] & 0xFF);
        }
        if ((key.length & 3) != 0) {
            int last = 0;
            for (int i = full << 2; i < key.length; i++) {
                last |= (key[i] & 0xFF) << (24 - 8 * (i & 3));
            }
            packed[full] = last;
        }
    }

    /** Whether {@code node}'s user key is the key of {@code keyLength} bytes packed in {@code packed}. */
    private boolean keyEquals(int node, int[] packed, int keyLength) {
        int[] c = chunk(node);
        int off = node & OFFSET_MASK;
        int at = off + NEXT + c[off + HEIGHT];
        return c[off + KEY_LENGTH] == keyLength && Arrays.equals(c, at, at + packed.length, packed, 0, packed.length);
    }

    /**
     * Negative, zero or positive as {@code node} sorts before, at or after ({@code key},
     * {@code sequence}), the key of {@code keyLength} bytes packed in {@code packed}.
     */
    private int compare(int node, int[] packed, int keyLength, long sequence) {
        int[] c = chunk(node);
        int off = node & OFFSET_MASK;
        int length = c[off + KEY_LENGTH];
        int at = off + NEXT + c[off + HEIGHT];
        // A plain loop, not Arrays.mismatch: keys are a few ints, and its range checks and
        // vectorised stub are more code for the JIT to compile into every search.
        int common = Math.min(length + 3, keyLength + 3) >>> 2;
        for (int i = 0; i < common; i++) {
            int a = c[at + i];
            int b = packed[i];
            if (a != b) {
                return Integer.compareUnsigned(a, b);
            }
        }
        if (length != keyLength) {
            return length < keyLength ? -1 : 1;
        }
        long nodeSequence = ((long) c[off + TRAILER_HIGH] << 32 | (c[off + TRAILER_LOW] & 0xFFFF_FFFFL)) >>> 8;
        return Long.compare(sequence, nodeSequence);
    }

    /** {@link #compare}, for the splice's checks: a call site of its own, apart from the search's. */
    private int compareAt(int node, int[] packed, int keyLength, long sequence) {
        return compare(node, packed, keyLength, sequence);
    }

    private int findGreaterOrEqual(int[] packed, int keyLength, long sequence, int[] update) {
        int x = HEAD;
        int level = maxHeight - 1;
        while (true) {
            int next = next(x, level);
            if (next != NONE && compare(next, packed, keyLength, sequence) < 0) {
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
        int next = chunk(node)[(node & OFFSET_MASK) + NEXT + level];
        VarHandle.acquireFence();
        return next;
    }

    private int[] chunk(int node) {
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

    /** Reserves a zeroed record with its height written; the caller fills in the rest before linking it. */
    private int allocate(int height, int keyInts) {
        int ints = NEXT + height + keyInts;
        if (ints > CHUNK_INTS) {
            throw new IllegalArgumentException("key of " + 4 * keyInts + " bytes does not fit a memtable arena chunk");
        }
        int[] current = chunks[chunkCount - 1];
        if (used + ints > current.length) {
            newChunk(Math.max(ints, Math.min(CHUNK_INTS, 2 * current.length)));
        }
        int node = (chunkCount - 1) << CHUNK_BITS | used;
        used += ints;
        chunks[chunkCount - 1][node & OFFSET_MASK] = height;
        return node;
    }

    private void newChunk(int ints) {
        if (chunkCount == MAX_CHUNKS) {
            throw new IllegalStateException("memtable index is over " + 4L * MAX_CHUNKS * CHUNK_INTS + " bytes");
        }
        int[][] dir = chunks;
        if (chunkCount == dir.length) {
            dir = Arrays.copyOf(dir, dir.length * 2);
        }
        dir[chunkCount++] = new int[ints];
        chunks = dir;
        used = 0;
    }

    /**
     * Copies {@code value} into the value arena, behind its length, and returns its address: in
     * the shared chunk being filled, else in a new one (as large as the last, doubled, up to
     * {@link #MAX_VALUE_CHUNK}), or, for a value over {@link #OWN_CHUNK_ABOVE} that does not fit,
     * in a chunk of its own. The caller publishes the address after a release fence.
     */
    private int putValue(byte[] value) {
        int record = (Integer.BYTES + value.length + 3) & ~3;
        if (record < 0) {
            throw new IllegalArgumentException("value of " + value.length + " bytes is too large for a memtable");
        }
        byte[] chunk = valueCurrent < 0 ? null : valueChunks[valueCurrent];
        int index;
        int at;
        if (chunk != null && chunk.length - valueUsed >= record) {
            index = valueCurrent;
            at = valueUsed;
            valueUsed += record;
        } else if (value.length > OWN_CHUNK_ABOVE) {
            chunk = new byte[record];
            index = addValueChunk(chunk);
            at = 0;
        } else {
            int size = chunk == null ? firstValueChunk : Math.min(MAX_VALUE_CHUNK, 2 * chunk.length);
            chunk = new byte[Math.max(size, record)];
            index = addValueChunk(chunk);
            valueCurrent = index;
            at = 0;
            valueUsed = record;
        }
        chunk[at] = (byte) (value.length >>> 24);
        chunk[at + 1] = (byte) (value.length >>> 16);
        chunk[at + 2] = (byte) (value.length >>> 8);
        chunk[at + 3] = (byte) value.length;
        System.arraycopy(value, 0, chunk, at + Integer.BYTES, value.length);
        return index << VALUE_OFFSET_BITS | at >>> 2;
    }

    /** Adds a value chunk and returns its index; readers see it once they see a node whose value it holds. */
    private int addValueChunk(byte[] chunk) {
        if (valueChunkCount == MAX_VALUE_CHUNKS) {
            throw new IllegalStateException("memtable values are over " + MAX_VALUE_CHUNKS + " chunks");
        }
        byte[][] dir = valueChunks;
        if (valueChunkCount == dir.length) {
            dir = Arrays.copyOf(dir, dir.length * 2);
        }
        dir[valueChunkCount] = chunk;
        valueChunks = dir;
        return valueChunkCount++;
    }

    /**
     * Drops the arenas, once no reader can reach this list ({@link MemTable#releaseForReaders()}):
     * a read after that (a bug in the holds) fails at once, never answers wrongly.
     */
    void discard() {
        int[][] nodes = chunks;
        byte[][] values = valueChunks;
        chunks = null;
        valueChunks = null;
        // Emptied too: a directory made before the last young collection is in the old
        // generation, and would keep the chunks it lists reachable until it is marked dead.
        if (nodes != null) {
            Arrays.fill(nodes, null);
        }
        if (values != null) {
            Arrays.fill(values, null);
        }
    }

    boolean discarded() {
        return chunks == null;
    }
}
