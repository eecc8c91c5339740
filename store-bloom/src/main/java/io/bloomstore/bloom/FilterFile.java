package io.bloomstore.bloom;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.channels.SeekableByteChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.zip.CRC32C;

import io.bloomstore.bloom.storage.BitStore;
import io.bloomstore.bloom.storage.MappedBitStore;
import io.bloomstore.bloom.storage.OffHeapBackend;
import io.bloomstore.bloom.storage.Storage;

/**
 * Reads and writes filter files. The format is specified in docs/format/filter.md:
 * <pre>
 *   FilterFile = Header, Payload, Trailer
 *   Header     = Magic "BSFL", Version u16, Kind u8, HashStrategy u8, K i32, Aux i32, M i64,
 *                N i64, Seed i64, PayloadLength i64, Aux2 i64, Reserved u32, HeaderCRC32C u32
 *   Trailer    = PayloadCRC32C u32, Magic "BSFL"
 * </pre>
 * All integers little-endian; the header is 64 bytes, so the payload starts cache-line
 * and word aligned in a mapping.
 *
 * <p>{@link #open(Path)} maps the payload read-only: nothing is copied onto the heap,
 * and {@link MembershipFilter#close()} unmaps it. It checks the header, the length and, unless
 * told not to, the payload checksum (streamed through a small buffer, so the heap stays flat).
 *
 * <p>Thread safety: stateless; each call works on its own file.
 */
public final class FilterFile {
    /** "BSFL" read as a little-endian int. */
    public static final int MAGIC = 0x4C465342;
    public static final int FORMAT_VERSION = 1;
    public static final int HEADER_BYTES = 64;
    public static final int TRAILER_BYTES = 8;
    private static final int HEADER_CRC_OFFSET = 60;
    private static final int IO_BUFFER = 1 << 20;

    private FilterFile() {
    }

    /** Writes the filter to {@code path} atomically (temporary file, fsync, rename). */
    public static void write(MembershipFilter filter, Path path) throws IOException {
        Path tmp = path.resolveSibling(path.getFileName() + ".tmp");
        try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
            write(filter, ch);
            ch.force(true);
        } catch (IOException | RuntimeException e) {
            Files.deleteIfExists(tmp);
            throw e;
        }
        try {
            Files.move(tmp, path, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (AtomicMoveNotSupportedException e) {
            Files.move(tmp, path, StandardCopyOption.REPLACE_EXISTING);
        }
    }

    /** Writes header, payload and trailer to a channel; returns the bytes written. */
    public static long write(MembershipFilter filter, WritableByteChannel out) throws IOException {
        FilterHeader h = filter.header();
        ByteBuffer header = encodeHeader(h, FORMAT_VERSION);
        writeFully(out, header);
        ChannelPayloadWriter payload = new ChannelPayloadWriter(out);
        filter.writePayload(payload);
        payload.flush();
        if (payload.written != h.payloadLength()) {
            throw new IllegalStateException(filter.kind() + " wrote " + payload.written
                    + " payload bytes but declared " + h.payloadLength());
        }
        ByteBuffer trailer = ByteBuffer.allocate(TRAILER_BYTES).order(ByteOrder.LITTLE_ENDIAN);
        trailer.putInt((int) payload.crc.getValue()).putInt(MAGIC).flip();
        writeFully(out, trailer);
        return HEADER_BYTES + h.payloadLength() + TRAILER_BYTES;
    }

    /** Encodes a header with the given format version (tests use other versions). */
    static ByteBuffer encodeHeader(FilterHeader h, int version) {
        ByteBuffer b = ByteBuffer.allocate(HEADER_BYTES).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(MAGIC).putShort((short) version).put((byte) h.kind().id()).put((byte) h.hashStrategy().id())
                .putInt(h.k()).putInt(h.aux()).putLong(h.m()).putLong(h.n()).putLong(h.seed())
                .putLong(h.payloadLength()).putLong(h.aux2()).putInt(0);
        CRC32C crc = new CRC32C();
        crc.update(b.array(), 0, HEADER_CRC_OFFSET);
        b.putInt((int) crc.getValue());
        return b.flip();
    }

    /** Maps a filter file, verifying header, length and payload checksum. */
    public static MembershipFilter open(Path path) throws IOException {
        return open(path, true);
    }

    /**
     * Maps a filter file read-only. With {@code verifyPayload} false only the header and the
     * length are checked, so opening costs the same whatever the filter's size.
     */
    public static MembershipFilter open(Path path, boolean verifyPayload) throws IOException {
        return open(path, verifyPayload, OffHeapBackend.active());
    }

    /** As {@link #open(Path, boolean)}, mapped through the given backend (benchmarks compare them). */
    public static MembershipFilter open(Path path, boolean verifyPayload, OffHeapBackend backend) throws IOException {
        FilterHeader h;
        try (FileChannel ch = FileChannel.open(path, StandardOpenOption.READ)) {
            h = readAndCheck(path, ch, 0, ch.size(), verifyPayload);
        }
        return construct(h, new MappedPayload(path, 0, h.payloadLength(), backend), path, 0);
    }

    /**
     * Maps the filter file image held in bytes [{@code offset}, {@code offset + length}) of a
     * larger file (a section of a {@link FilterSet}). The checks are those of a whole file, applied
     * to the region; errors name offsets in the enclosing file.
     */
    public static MembershipFilter open(Path path, long offset, long length, boolean verifyPayload)
            throws IOException {
        return open(path, offset, length, verifyPayload, OffHeapBackend.active());
    }

    /** As {@link #open(Path, long, long, boolean)}, mapped through the given backend. */
    public static MembershipFilter open(Path path, long offset, long length, boolean verifyPayload,
                                        OffHeapBackend backend) throws IOException {
        FilterHeader h;
        try (FileChannel ch = FileChannel.open(path, StandardOpenOption.READ)) {
            h = readAndCheck(path, ch, offset, length, verifyPayload);
        }
        return construct(h, new MappedPayload(path, offset, h.payloadLength(), backend), path, offset);
    }

    /**
     * The filter of the image in bytes [{@code offset}, {@code offset + length}) of {@code path},
     * described only: the header is read and checked as by {@link #open(Path, long, long, boolean)},
     * the payload is neither read nor mapped. The result answers what its parameters say (its
     * header, {@link MembershipFilter#expectedFpp()}); a probe, or anything else that needs the
     * payload's words, throws {@link IllegalStateException}. For figures about many tables'
     * filters ({@code stats}) without reading every payload.
     */
    public static MembershipFilter describe(Path path, long offset, long length) throws IOException {
        try (FileChannel ch = FileChannel.open(path, StandardOpenOption.READ)) {
            return describe(path, ch, offset, length);
        }
    }

    /**
     * As {@link #describe(Path, long, long)}, reading the header through {@code ch}, an open channel
     * on {@code path} that the caller keeps and closes: a set's sections are described through the
     * one channel that read its directory.
     */
    public static MembershipFilter describe(Path path, SeekableByteChannel ch, long offset, long length)
            throws IOException {
        FilterHeader h = readAndCheck(path, ch, offset, length, false);
        return construct(h, new UnreadPayload(path, offset, h.payloadLength()), path, offset);
    }

    /** Reads a filter from any channel into memory of the given kind (no mapping). */
    public static MembershipFilter load(Path name, SeekableByteChannel ch, Storage storage) throws IOException {
        return load(name, ch, 0, ch.size(), storage);
    }

    /** As {@link #load(Path, SeekableByteChannel, Storage)} for the image in a region of the channel. */
    public static MembershipFilter load(Path name, SeekableByteChannel ch, long offset, long length, Storage storage)
            throws IOException {
        FilterHeader h = readAndCheck(name, ch, offset, length, true);
        return construct(h, new LoadedPayload(name, ch, offset, h.payloadLength(), storage), name, offset);
    }

    /** Reads and checks the header and the file's length; does not read the payload. */
    public static FilterHeader readHeader(Path path) throws IOException {
        try (FileChannel ch = FileChannel.open(path, StandardOpenOption.READ)) {
            return readAndCheck(path, ch, 0, ch.size(), false);
        }
    }

    /** Checks every checksum of a filter file; returns its header. */
    public static FilterHeader verify(Path path) throws IOException {
        try (FileChannel ch = FileChannel.open(path, StandardOpenOption.READ)) {
            return readAndCheck(path, ch, 0, ch.size(), true);
        }
    }

    /** Checks every checksum of the filter image in a region of a channel; returns its header. */
    public static FilterHeader verify(Path name, SeekableByteChannel ch, long offset, long length) throws IOException {
        return readAndCheck(name, ch, offset, length, true);
    }

    /**
     * The filter of a checked header and its payload, the image starting at {@code base}. A header
     * naming caller-supplied hash functions ({@link HashStrategy#CUSTOM}) cannot be opened: those
     * functions are not in the file, and every kind but Bloom would ask the strategy for a
     * built-in one and fail with an {@link IllegalStateException}; a file saying so is damaged.
     */
    private static MembershipFilter construct(FilterHeader h, FilterPayload payload, Path path, long base)
            throws IOException {
        if (h.hashStrategy() == HashStrategy.CUSTOM) {
            throw new CorruptionException(path, base + 7, "a stored " + h.kind().cliName() + " filter cannot use"
                    + " caller-supplied hash functions (hash strategy 0): they are not in the file");
        }
        try {
            return FilterCodecs.open(h, payload);
        } catch (IllegalArgumentException e) {
            throw new CorruptionException(path, 0, "impossible filter parameters: " + e.getMessage(), e);
        }
    }

    /**
     * Checks the filter image in bytes [{@code base}, {@code base + size}) of the channel: a whole
     * file when base is 0 and size the file's length. Offsets in errors are the channel's.
     */
    private static FilterHeader readAndCheck(Path path, SeekableByteChannel ch, long base, long size,
                                             boolean verifyPayload) throws IOException {
        ByteBuffer b = ByteBuffer.allocate(HEADER_BYTES).order(ByteOrder.LITTLE_ENDIAN);
        if (size < HEADER_BYTES) {
            b.limit((int) Math.max(0, size));
        }
        ch.position(base);
        readFully(ch, b);
        b.flip();
        if (b.remaining() < 4) {
            if (isMagicPrefix(b)) {
                throw new CorruptionException(path, base + size, "truncated: file has " + size
                        + " bytes, a filter file at least " + (HEADER_BYTES + TRAILER_BYTES));
            }
            throw new NotAFilterFileException(path);
        }
        if (b.getInt(0) != MAGIC) {
            throw new NotAFilterFileException(path);
        }
        if (b.remaining() < HEADER_BYTES) {
            throw new CorruptionException(path, base + size, "truncated header: file has " + size
                    + " bytes, header needs " + HEADER_BYTES);
        }
        CRC32C crc = new CRC32C();
        crc.update(b.array(), 0, HEADER_CRC_OFFSET);
        int storedCrc = b.getInt(HEADER_CRC_OFFSET);
        if ((int) crc.getValue() != storedCrc) {
            throw CorruptionException.mismatch(path, base + HEADER_CRC_OFFSET, "header CRC32C",
                    storedCrc & 0xFFFFFFFFL, crc.getValue());
        }
        int version = Short.toUnsignedInt(b.getShort(4));
        if (version != FORMAT_VERSION) {
            throw new FormatVersionException(path, "filter", version, FORMAT_VERSION);
        }
        FilterKind kind;
        HashStrategy strategy;
        try {
            kind = FilterKind.byId(Byte.toUnsignedInt(b.get(6)));
        } catch (IllegalArgumentException e) {
            throw new CorruptionException(path, base + 6, e.getMessage());
        }
        try {
            strategy = HashStrategy.byId(Byte.toUnsignedInt(b.get(7)));
        } catch (IllegalArgumentException e) {
            throw new CorruptionException(path, base + 7, e.getMessage());
        }
        FilterHeader h = new FilterHeader(kind, strategy, b.getInt(8), b.getInt(12), b.getLong(16), b.getLong(24),
                b.getLong(32), b.getLong(40), b.getLong(48));
        long payloadLength = h.payloadLength();
        if (payloadLength < 0 || payloadLength % 8 != 0) {
            throw new CorruptionException(path, base + 40, "impossible payload length " + payloadLength);
        }
        long expected = HEADER_BYTES + payloadLength + TRAILER_BYTES;
        if (size != expected) {
            throw new CorruptionException(path, base + Math.min(size, expected), (size < expected ? "truncated" : "trailing bytes")
                    + ": header declares " + expected + " bytes, file has " + size);
        }
        ByteBuffer trailer = ByteBuffer.allocate(TRAILER_BYTES).order(ByteOrder.LITTLE_ENDIAN);
        ch.position(base + HEADER_BYTES + payloadLength);
        readFully(ch, trailer);
        if (trailer.getInt(4) != MAGIC) {
            throw CorruptionException.mismatch(path, base + HEADER_BYTES + payloadLength + 4, "trailer magic",
                    MAGIC, trailer.getInt(4) & 0xFFFFFFFFL);
        }
        if (verifyPayload) {
            long actual = payloadCrc(ch, base, payloadLength);
            int stored = trailer.getInt(0);
            if ((int) actual != stored) {
                throw CorruptionException.mismatch(path, base + HEADER_BYTES + payloadLength, "payload CRC32C (payload at "
                        + (base + HEADER_BYTES) + ".." + (base + HEADER_BYTES + payloadLength) + ")",
                        stored & 0xFFFFFFFFL, actual);
            }
        }
        return h;
    }

    /** Whether the few bytes of a file shorter than the magic (none included) start it. */
    private static boolean isMagicPrefix(ByteBuffer b) {
        for (int i = 0; i < b.remaining(); i++) {
            if (b.get(i) != (byte) (MAGIC >>> (8 * i))) {
                return false;
            }
        }
        return true;
    }

    private static long payloadCrc(SeekableByteChannel ch, long base, long length) throws IOException {
        CRC32C crc = new CRC32C();
        ByteBuffer buf = ByteBuffer.allocateDirect((int) Math.min(IO_BUFFER, Math.max(8, length)));
        ch.position(base + HEADER_BYTES);
        long left = length;
        while (left > 0) {
            buf.clear();
            if (left < buf.capacity()) {
                buf.limit((int) left);
            }
            int r = ch.read(buf);
            if (r < 0) {
                throw new IOException("unexpected end of file");
            }
            buf.flip();
            crc.update(buf);
            left -= r;
        }
        return crc.getValue();
    }

    private static void readFully(SeekableByteChannel ch, ByteBuffer b) throws IOException {
        while (b.hasRemaining()) {
            if (ch.read(b) < 0) {
                break;
            }
        }
    }

    private static void writeFully(WritableByteChannel out, ByteBuffer b) throws IOException {
        while (b.hasRemaining()) {
            out.write(b);
        }
    }

    /** Buffers payload words little-endian and computes their CRC32C on the way out. */
    private static final class ChannelPayloadWriter implements PayloadWriter {
        private final WritableByteChannel out;
        private final ByteBuffer buf = ByteBuffer.allocate(64 * 1024).order(ByteOrder.LITTLE_ENDIAN);
        private final CRC32C crc = new CRC32C();
        private long written;

        ChannelPayloadWriter(WritableByteChannel out) {
            this.out = out;
        }

        @Override
        public void writeLong(long value) throws IOException {
            if (buf.remaining() < Long.BYTES) {
                flush();
            }
            buf.putLong(value);
        }

        @Override
        public void writeBytes(byte[] bytes, int offset, int length) throws IOException {
            while (length > 0) {
                if (!buf.hasRemaining()) {
                    flush();
                }
                int n = Math.min(length, buf.remaining());
                buf.put(bytes, offset, n);
                offset += n;
                length -= n;
            }
        }

        void flush() throws IOException {
            buf.flip();
            crc.update(buf.array(), buf.arrayOffset(), buf.limit());
            written += buf.limit();
            writeFully(out, buf);
            buf.clear();
        }
    }

    /** Payload regions mapped straight from the file. */
    private static class MappedPayload implements FilterPayload {
        private final Path path;
        private final long base;
        private final long length;
        private final OffHeapBackend backend;

        MappedPayload(Path path, long base, long length, OffHeapBackend backend) {
            this.path = path;
            this.base = base;
            this.length = length;
            this.backend = backend;
        }

        @Override
        public long length() {
            return length;
        }

        @Override
        public BitStore words(long offset, long wordCount) throws IOException {
            checkRange(path, length, offset, wordCount * Long.BYTES);
            return MappedBitStore.open(path, base + HEADER_BYTES + offset, wordCount, backend);
        }

        @Override
        public long readLong(long offset) throws IOException {
            checkRange(path, length, offset, Long.BYTES);
            try (FileChannel ch = FileChannel.open(path, StandardOpenOption.READ)) {
                ByteBuffer b = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN);
                ch.position(base + HEADER_BYTES + offset);
                readFully(ch, b);
                return b.getLong(0);
            }
        }
    }

    /**
     * A payload described, not read: its words throw ({@link UnreadWords}); single longs are read
     * from the file as a mapped payload reads them.
     */
    private static final class UnreadPayload extends MappedPayload {
        UnreadPayload(Path path, long base, long length) {
            super(path, base, length, null);
        }

        @Override
        public BitStore words(long offset, long wordCount) throws IOException {
            checkRange(super.path, super.length, offset, wordCount * Long.BYTES);
            return new UnreadWords(super.path, wordCount);
        }
    }

    /** The words of a described filter: their count only. */
    private static final class UnreadWords implements BitStore {
        private final Path path;
        private final long wordCount;

        UnreadWords(Path path, long wordCount) {
            this.path = path;
            this.wordCount = wordCount;
        }

        @Override
        public long wordCount() {
            return wordCount;
        }

        @Override
        public long getWord(long wordIndex) {
            throw unread();
        }

        @Override
        public void setWord(long wordIndex, long value) {
            throw unread();
        }

        @Override
        public boolean isOffHeap() {
            return false;
        }

        @Override
        public void close() {
        }

        private IllegalStateException unread() {
            return new IllegalStateException("the filter of " + path + " was described, not opened: its payload was "
                    + "not read");
        }
    }

    /** Payload regions copied from a channel into heap or native memory. */
    private static final class LoadedPayload implements FilterPayload {
        private final Path name;
        private final SeekableByteChannel ch;
        private final long base;
        private final long length;
        private final Storage storage;

        LoadedPayload(Path name, SeekableByteChannel ch, long base, long length, Storage storage) {
            this.name = name;
            this.ch = ch;
            this.base = base;
            this.length = length;
            this.storage = storage;
        }

        @Override
        public long length() {
            return length;
        }

        @Override
        public BitStore words(long offset, long wordCount) throws IOException {
            checkRange(name, length, offset, wordCount * Long.BYTES);
            BitStore store = storage.allocate(wordCount);
            ByteBuffer buf = ByteBuffer.allocate(64 * 1024).order(ByteOrder.LITTLE_ENDIAN);
            ch.position(base + HEADER_BYTES + offset);
            long w = 0;
            while (w < wordCount) {
                buf.clear();
                buf.limit((int) Math.min(buf.capacity(), (wordCount - w) * Long.BYTES));
                readFully(ch, buf);
                buf.flip();
                while (buf.remaining() >= Long.BYTES) {
                    store.setWord(w++, buf.getLong());
                }
            }
            return store;
        }

        @Override
        public long readLong(long offset) throws IOException {
            checkRange(name, length, offset, Long.BYTES);
            ByteBuffer b = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN);
            ch.position(base + HEADER_BYTES + offset);
            readFully(ch, b);
            return b.getLong(0);
        }
    }

    private static void checkRange(Path path, long length, long offset, long bytes) throws CorruptionException {
        if (offset < 0 || bytes < 0 || offset + bytes > length) {
            throw new CorruptionException(path, HEADER_BYTES + offset, "filter region of " + bytes
                    + " bytes runs past the payload of " + length + " bytes");
        }
    }
}
