package io.bloomstore.bloom;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.channels.SeekableByteChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.zip.CRC32C;

import io.bloomstore.bloom.storage.OffHeapBackend;
import io.bloomstore.bloom.storage.Storage;

/**
 * Several filters over the same item set in one file: a filter of the keys and, beside it, a
 * filter of their prefixes or of their ranges, each a complete filter file image (its own header
 * and checksums) at a 64-byte aligned offset, behind a directory. Format version 2 of the filter
 * file (docs/format/filter.md, "Filter sets"):
 * <pre>
 *   FilterSet = Header, Directory, DirectoryCRC32C u32, Pad, (FilterFile, Pad)^Count
 *   Header    = Magic "BSFL", Version u16 = 2, Count u16, DirectoryLength u32, Reserved 48 bytes, HeaderCRC32C u32
 *   Directory = (Role u8, DescriptorLength u8, Offset i64, Length i64, Descriptor)^Count
 * </pre>
 * A version 1 file (a single {@link FilterFile}) opens as a set of one {@link Role#KEY} section,
 * so files written before sets existed keep working.
 *
 * <p>Opening maps every section (nothing is copied onto the heap) and checks the header, the
 * directory, each section's header, length and trailer, and that padding bytes are zero; the
 * payload checksums only when asked to. {@link #close()} unmaps every section.
 *
 * <p>Thread safety: the static methods are stateless; an open set is as thread-safe as its filters
 * (queries from many threads; {@link #close()} must not race them).
 */
public final class FilterSet implements Closeable {
    public static final int FORMAT_VERSION = 2;
    private static final int ENTRY_FIXED_BYTES = 18;
    private static final int ALIGN = 64;
    private static final int HEADER_CRC_OFFSET = 60;

    /** What a section's filter holds. The ids are written to disk: never renumber. */
    public enum Role {
        /** The distinct keys (point lookups). */
        KEY(1),
        /** The distinct prefixes of the keys, the descriptor naming the prefix extractor. */
        PREFIX(2),
        /** The keys' ranges, the descriptor naming the range filter's parameters. */
        RANGE(3);

        private final int id;

        Role(int id) {
            this.id = id;
        }

        public int id() {
            return id;
        }

        /** The role with this id, or null for an id this build does not know. */
        static Role byId(int id) {
            for (Role r : values()) {
                if (r.id == id) {
                    return r;
                }
            }
            return null;
        }
    }

    /** A filter to write, under its role, with a descriptor of at most 255 bytes (empty for none). */
    public record Spec(Role role, byte[] descriptor, MembershipFilter filter) {
        public Spec {
            if (role == null || descriptor == null || filter == null) {
                throw new IllegalArgumentException("role, descriptor and filter must not be null");
            }
            if (descriptor.length > 255) {
                throw new IllegalArgumentException("descriptor of " + descriptor.length + " bytes; at most 255");
            }
        }
    }

    /** One section as found on disk: where it lies and, once opened, its filter. */
    public record Section(Role role, byte[] descriptor, long offset, long length, MembershipFilter filter) {
    }

    private final int version;
    private final List<Section> sections;

    private FilterSet(int version, List<Section> sections) {
        this.version = version;
        this.sections = sections;
    }

    /** Writes the set; returns the bytes written. Each role at most once. */
    public static long write(List<Spec> specs, WritableByteChannel out) throws IOException {
        Set<Role> seen = EnumSet.noneOf(Role.class);
        int dirLength = Integer.BYTES;
        for (Spec s : specs) {
            if (!seen.add(s.role())) {
                throw new IllegalArgumentException("role " + s.role() + " given twice");
            }
            dirLength += ENTRY_FIXED_BYTES + s.descriptor().length;
        }
        if (specs.isEmpty() || specs.size() > 255) {
            throw new IllegalArgumentException("a filter set holds 1 to 255 filters: " + specs.size());
        }
        ByteBuffer dir = ByteBuffer.allocate(dirLength).order(ByteOrder.LITTLE_ENDIAN);
        long offset = align(FilterFile.HEADER_BYTES + dirLength);
        long[] offsets = new long[specs.size()];
        for (int i = 0; i < specs.size(); i++) {
            Spec s = specs.get(i);
            long length = imageLength(s.filter());
            offsets[i] = offset;
            dir.put((byte) s.role().id()).put((byte) s.descriptor().length).putLong(offset).putLong(length)
                    .put(s.descriptor());
            offset = align(offset + length);
        }
        CRC32C crc = new CRC32C();
        crc.update(dir.array(), 0, dir.position());
        dir.putInt((int) crc.getValue()).flip();
        ByteBuffer header = ByteBuffer.allocate(FilterFile.HEADER_BYTES).order(ByteOrder.LITTLE_ENDIAN);
        header.putInt(FilterFile.MAGIC).putShort((short) FORMAT_VERSION).putShort((short) specs.size())
                .putInt(dirLength);
        CRC32C hcrc = new CRC32C();
        hcrc.update(header.array(), 0, HEADER_CRC_OFFSET);
        header.putInt(HEADER_CRC_OFFSET, (int) hcrc.getValue()).clear();
        writeFully(out, header);
        writeFully(out, dir);
        long position = FilterFile.HEADER_BYTES + dirLength;
        for (int i = 0; i < specs.size(); i++) {
            position = pad(out, position, offsets[i]);
            position += FilterFile.write(specs.get(i).filter(), out);
        }
        return position;
    }

    /** Bytes of a filter's file image: header, payload, trailer. */
    public static long imageLength(MembershipFilter filter) {
        return FilterFile.HEADER_BYTES + filter.header().payloadLength() + FilterFile.TRAILER_BYTES;
    }

    /** Maps every section of a filter file of version 1 or 2. */
    public static FilterSet open(Path path, boolean verifyPayload) throws IOException {
        return open(path, verifyPayload, OffHeapBackend.active());
    }

    /** As {@link #open(Path, boolean)}, every section mapped through {@code backend}. */
    public static FilterSet open(Path path, boolean verifyPayload, OffHeapBackend backend) throws IOException {
        return mapSections(path, verifyPayload, backend);
    }

    /**
     * Every section of a filter file of version 1 or 2, described only ({@link FilterFile#describe}):
     * headers and directory read and checked, no payload read or mapped. Its filters answer their
     * parameters, not probes.
     */
    public static FilterSet describe(Path path) throws IOException {
        // One open of the file for the directory and every section's header: stats describes the
        // sidecars of every table a store has not opened.
        try (FileChannel ch = FileChannel.open(path, StandardOpenOption.READ)) {
            int version = versionOf(path, ch);
            List<Section> layout = version == FORMAT_VERSION ? readDirectory(path, ch) : single(ch.size());
            List<Section> described = new ArrayList<>();
            try {
                for (Section s : layout) {
                    MembershipFilter f;
                    try {
                        f = FilterFile.describe(path, ch, s.offset(), s.length());
                    } catch (NotAFilterFileException e) {
                        throw version == FORMAT_VERSION ? noMagic(path, s) : e;
                    }
                    described.add(new Section(s.role(), s.descriptor(), s.offset(), s.length(), f));
                }
            } catch (IOException | RuntimeException e) {
                described.forEach(s -> s.filter().close());
                throw e;
            }
            return new FilterSet(version, List.copyOf(described));
        }
    }

    private static FilterSet mapSections(Path path, boolean verifyPayload, OffHeapBackend backend)
            throws IOException {
        List<Section> layout;
        int version;
        try (FileChannel ch = FileChannel.open(path, StandardOpenOption.READ)) {
            version = versionOf(path, ch);
            layout = version == FORMAT_VERSION ? readDirectory(path, ch) : single(ch.size());
        }
        List<Section> open = new ArrayList<>();
        try {
            for (Section s : layout) {
                MembershipFilter f;
                if (version != FORMAT_VERSION) {
                    f = FilterFile.open(path, verifyPayload, backend);
                } else {
                    try {
                        f = FilterFile.open(path, s.offset(), s.length(), verifyPayload, backend);
                    } catch (NotAFilterFileException e) {
                        throw noMagic(path, s);
                    }
                }
                open.add(new Section(s.role(), s.descriptor(), s.offset(), s.length(), f));
            }
        } catch (IOException | RuntimeException e) {
            open.forEach(s -> s.filter().close());
            throw e;
        }
        return new FilterSet(version, List.copyOf(open));
    }

    /** Reads every section from a channel into memory of the given kind, checking every checksum. */
    public static FilterSet load(Path name, SeekableByteChannel ch, Storage storage) throws IOException {
        int version = versionOf(name, ch);
        List<Section> layout = version == FORMAT_VERSION ? readDirectory(name, ch) : single(ch.size());
        List<Section> open = new ArrayList<>();
        try {
            for (Section s : layout) {
                MembershipFilter f;
                try {
                    f = FilterFile.load(name, ch, s.offset(), s.length(), storage);
                } catch (NotAFilterFileException e) {
                    throw version == FORMAT_VERSION ? noMagic(name, s) : e;
                }
                open.add(new Section(s.role(), s.descriptor(), s.offset(), s.length(), f));
            }
        } catch (IOException | RuntimeException e) {
            open.forEach(s -> s.filter().close());
            throw e;
        }
        return new FilterSet(version, List.copyOf(open));
    }

    /** Checks every checksum of a filter file of version 1 or 2; returns its layout (no filters). */
    public static List<Section> verify(Path path) throws IOException {
        try (FileChannel ch = FileChannel.open(path, StandardOpenOption.READ)) {
            int version = versionOf(path, ch);
            List<Section> layout = version == FORMAT_VERSION ? readDirectory(path, ch) : single(ch.size());
            for (Section s : layout) {
                try {
                    FilterFile.verify(path, ch, s.offset(), s.length());
                } catch (NotAFilterFileException e) {
                    throw version == FORMAT_VERSION ? noMagic(path, s) : e;
                }
            }
            return layout;
        }
    }

    /** Inside a set, a section that does not start with the magic is damage, not another format. */
    private static CorruptionException noMagic(Path path, Section s) {
        return new CorruptionException(path, s.offset(), s.role() + " section at " + s.offset()
                + " has no filter magic number");
    }

    private static List<Section> single(long size) {
        return List.of(new Section(Role.KEY, new byte[0], 0, size, null));
    }

    /** The format version at offset 4, after the checks a version-1 reader makes on the magic. */
    private static int versionOf(Path path, SeekableByteChannel ch) throws IOException {
        ByteBuffer b = ByteBuffer.allocate(FilterFile.HEADER_BYTES).order(ByteOrder.LITTLE_ENDIAN);
        ch.position(0);
        readFully(ch, b);
        if (b.position() < 6 || b.getInt(0) != FilterFile.MAGIC) {
            return FilterFile.FORMAT_VERSION; // let the version-1 reader report what is wrong
        }
        int version = Short.toUnsignedInt(b.getShort(4));
        if (version == FORMAT_VERSION || version == FilterFile.FORMAT_VERSION) {
            return version;
        }
        if (b.position() == FilterFile.HEADER_BYTES && headerCrcMatches(b)) {
            throw new FormatVersionException(path, "filter", version, FORMAT_VERSION);
        }
        return FilterFile.FORMAT_VERSION; // damaged: the version-1 reader names the header CRC
    }

    private static boolean headerCrcMatches(ByteBuffer b) {
        CRC32C crc = new CRC32C();
        crc.update(b.array(), 0, HEADER_CRC_OFFSET);
        return (int) crc.getValue() == b.getInt(HEADER_CRC_OFFSET);
    }

    private static List<Section> readDirectory(Path path, SeekableByteChannel ch) throws IOException {
        long size = ch.size();
        ByteBuffer h = ByteBuffer.allocate(FilterFile.HEADER_BYTES).order(ByteOrder.LITTLE_ENDIAN);
        ch.position(0);
        readFully(ch, h);
        if (h.position() < FilterFile.HEADER_BYTES) {
            throw new CorruptionException(path, size, "truncated header: file has " + size + " bytes");
        }
        if (!headerCrcMatches(h)) {
            CRC32C crc = new CRC32C();
            crc.update(h.array(), 0, HEADER_CRC_OFFSET);
            throw CorruptionException.mismatch(path, HEADER_CRC_OFFSET, "header CRC32C",
                    h.getInt(HEADER_CRC_OFFSET) & 0xFFFFFFFFL, crc.getValue());
        }
        int count = Short.toUnsignedInt(h.getShort(6));
        long dirLength = Integer.toUnsignedLong(h.getInt(8));
        for (int i = 12; i < HEADER_CRC_OFFSET; i++) {
            if (h.get(i) != 0) {
                throw new CorruptionException(path, i, "reserved header byte is not zero");
            }
        }
        if (count < 1 || dirLength < Integer.BYTES + (long) count * ENTRY_FIXED_BYTES
                || FilterFile.HEADER_BYTES + dirLength > size) {
            throw new CorruptionException(path, 6, "impossible directory: " + count + " sections in " + dirLength
                    + " bytes of a " + size + "-byte file");
        }
        ByteBuffer dir = ByteBuffer.allocate((int) dirLength).order(ByteOrder.LITTLE_ENDIAN);
        readFully(ch, dir);
        CRC32C crc = new CRC32C();
        crc.update(dir.array(), 0, (int) dirLength - Integer.BYTES);
        int stored = dir.getInt((int) dirLength - Integer.BYTES);
        if ((int) crc.getValue() != stored) {
            throw CorruptionException.mismatch(path, FilterFile.HEADER_BYTES + dirLength - Integer.BYTES,
                    "directory CRC32C", stored & 0xFFFFFFFFL, crc.getValue());
        }
        dir.flip().limit((int) dirLength - Integer.BYTES);
        List<Section> sections = new ArrayList<>();
        Set<Role> seen = EnumSet.noneOf(Role.class);
        long expected = align(FilterFile.HEADER_BYTES + dirLength);
        long previousEnd = FilterFile.HEADER_BYTES + dirLength;
        for (int i = 0; i < count; i++) {
            if (dir.remaining() < ENTRY_FIXED_BYTES) {
                throw new CorruptionException(path, FilterFile.HEADER_BYTES + dir.position(), "directory entry "
                        + i + " runs past the directory");
            }
            int roleId = Byte.toUnsignedInt(dir.get());
            int descLength = Byte.toUnsignedInt(dir.get());
            long offset = dir.getLong();
            long length = dir.getLong();
            if (descLength > dir.remaining()) {
                throw new CorruptionException(path, FilterFile.HEADER_BYTES + dir.position(), "descriptor of entry "
                        + i + " runs past the directory");
            }
            byte[] descriptor = new byte[descLength];
            dir.get(descriptor);
            if (offset != expected || length < FilterFile.HEADER_BYTES + FilterFile.TRAILER_BYTES
                    || offset + length > size) {
                throw new CorruptionException(path, offset, "section " + i + " at " + offset + " of " + length
                        + " bytes; expected at " + expected + " inside the file of " + size + " bytes");
            }
            checkZero(path, ch, previousEnd, offset);
            previousEnd = offset + length;
            expected = align(previousEnd);
            Role role = Role.byId(roleId);
            if (role == null) {
                continue; // a section of a role a later build adds: this build does without it
            }
            if (!seen.add(role)) {
                throw new CorruptionException(path, FilterFile.HEADER_BYTES, "role " + role + " appears twice");
            }
            sections.add(new Section(role, descriptor, offset, length, null));
        }
        if (dir.hasRemaining()) {
            throw new CorruptionException(path, FilterFile.HEADER_BYTES + dir.position(), dir.remaining()
                    + " trailing bytes in the directory");
        }
        if (previousEnd != size) {
            throw new CorruptionException(path, Math.min(previousEnd, size), (size < previousEnd ? "truncated"
                    : "trailing bytes") + ": sections end at " + previousEnd + ", file has " + size);
        }
        return sections;
    }

    /** Padding between sections must be zero, so that every byte of the file is checked. */
    private static void checkZero(Path path, SeekableByteChannel ch, long from, long to) throws IOException {
        if (to <= from) {
            return;
        }
        ByteBuffer pad = ByteBuffer.allocate((int) (to - from));
        ch.position(from);
        readFully(ch, pad);
        for (int i = 0; i < pad.position(); i++) {
            if (pad.get(i) != 0) {
                throw new CorruptionException(path, from + i, "padding byte is not zero");
            }
        }
    }

    private static long align(long offset) {
        return (offset + ALIGN - 1) / ALIGN * ALIGN;
    }

    private static long pad(WritableByteChannel out, long position, long target) throws IOException {
        if (target > position) {
            writeFully(out, ByteBuffer.allocate((int) (target - position)));
        }
        return target;
    }

    /** The format version the file was written in: 1 (a single filter) or 2 (a set). */
    public int version() {
        return version;
    }

    /** The sections this build knows, in file order. */
    public List<Section> sections() {
        return sections;
    }

    /** The section of that role, or null when the file has none. */
    public Section section(Role role) {
        for (Section s : sections) {
            if (s.role() == role) {
                return s;
            }
        }
        return null;
    }

    /** Unmaps (or frees) every section's filter. */
    @Override
    public void close() {
        for (Section s : sections) {
            s.filter().close();
        }
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
}
