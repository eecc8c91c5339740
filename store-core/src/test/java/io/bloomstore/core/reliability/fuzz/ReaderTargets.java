package io.bloomstore.core.reliability.fuzz;

import io.bloomstore.bloom.FilterKind;
import io.bloomstore.bloom.FilterSet;
import io.bloomstore.bloom.MembershipFilter;
import io.bloomstore.core.Compression;
import io.bloomstore.core.PrefixExtractor;
import io.bloomstore.core.RangeFilterOptions;
import io.bloomstore.core.Store;
import io.bloomstore.core.StoreOptions;
import io.bloomstore.core.WriteBatch;
import io.bloomstore.core.WriteOptions;
import io.bloomstore.core.cache.BlockCache;
import io.bloomstore.core.fs.FileSystem;
import io.bloomstore.core.fs.LocalFileSystem;
import io.bloomstore.core.fs.MemoryFileSystem;
import io.bloomstore.core.fs.RandomReadFile;
import io.bloomstore.core.fs.WritableFile;
import io.bloomstore.core.internal.InternalIterator;
import io.bloomstore.core.manifest.FileMetaData;
import io.bloomstore.core.manifest.FileNames;
import io.bloomstore.core.manifest.Version;
import io.bloomstore.core.manifest.VersionEdit;
import io.bloomstore.core.manifest.VersionSet;
import io.bloomstore.core.stats.CountersFile;
import io.bloomstore.core.stats.StoreCounters;
import io.bloomstore.core.table.TableLayout;
import io.bloomstore.core.table.TableLookup;
import io.bloomstore.core.table.TableOptions;
import io.bloomstore.core.table.TableReader;
import io.bloomstore.core.wal.BatchCodec;
import io.bloomstore.core.wal.LogFormat;
import io.bloomstore.core.wal.LogReader;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

/**
 * The fuzzing targets: one per file reader of a store — SSTable (footer, properties, index and
 * blocks, uncompressed and LZ4), each table filter kind's sidecar and a filter set with key,
 * prefix and range sections, a WAL segment, a WAL record's batch encoding, MANIFEST, CURRENT
 * and COUNTERS. Seeds are files of real stores written here by BloomStore itself (several
 * flushes, a compaction, overwrites, deletes and a batch, writes left in the WAL); each harness
 * knows what its seed holds and fails on anything else read without an error.
 *
 * <p>Thread safety: a target is used by one thread at a time.
 */
final class ReaderTargets {
    private static final int KEYS = 300;
    private static final Path DIR = Path.of("/fuzz");

    private ReaderTargets() {
    }

    static byte[] key(int i) {
        return String.format("key%05d", i).getBytes(StandardCharsets.UTF_8);
    }

    /** Writes a small store with every kind of file into {@code dir}. */
    static void writeStore(Path dir, StoreOptions options) throws IOException {
        try (Store store = Store.open(dir, options.toBuilder().memtableBytes(16 * 1024).blockSize(512)
                .autoCompaction(false).build())) {
            for (int i = 0; i < KEYS; i++) {
                store.put(key(i), ("value-" + i + "-" + "x".repeat(i % 40)).getBytes(StandardCharsets.UTF_8));
            }
            store.flush();
            for (int i = 0; i < KEYS; i += 7) {
                store.delete(key(i));
            }
            for (int i = 0; i < KEYS; i += 5) {
                store.put(key(i), ("new-" + i).getBytes(StandardCharsets.UTF_8));
            }
            store.compact();
            WriteBatch b = new WriteBatch();
            for (int i = KEYS; i < KEYS + 40; i++) {
                b.put(key(i), new byte[i % 50]);
            }
            b.delete(key(3));
            store.write(b, WriteOptions.SYNC);
            store.put(key(1), "in the wal".getBytes(StandardCharsets.UTF_8), WriteOptions.SYNC);
        }
    }

    /** Every target, from stores written under {@code work}. */
    static List<FuzzTarget> all(Path work) throws IOException {
        List<FuzzTarget> targets = new ArrayList<>();
        Path plain = work.resolve("plain");
        writeStore(plain, StoreOptions.builder().compression(Compression.NONE).filterKind(FilterKind.BLOOM).build());
        Path lz4 = work.resolve("lz4");
        writeStore(lz4, StoreOptions.builder().compression(Compression.LZ4).filterKind(FilterKind.BLOOM).build());
        targets.add(new SstableTarget("sstable", plain));
        targets.add(new SstableTarget("sstable-lz4", lz4));
        for (FilterKind kind : TableOptions.TABLE_FILTER_KINDS.stream().sorted().toList()) {
            Path d = work.resolve("filter-" + kind.name().toLowerCase());
            writeStore(d, StoreOptions.builder().filterKind(kind).build());
            targets.add(new FilterTarget("filter-" + kind.name().toLowerCase(), d));
        }
        Path set = work.resolve("filter-set");
        writeStore(set, StoreOptions.builder().filterKind(FilterKind.BLOOM).prefixExtractor(PrefixExtractor.fixed(6))
                .rangeFilter(RangeFilterOptions.of(12)).build());
        targets.add(new FilterTarget("filter-set", set));
        targets.add(new WalTarget(plain));
        targets.add(new WalRecordTarget(plain));
        targets.add(new ManifestTarget(plain));
        targets.add(new CurrentTarget(plain));
        targets.add(new CountersTarget(plain));
        return targets;
    }

    private static Path only(Path dir, String suffix) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(p -> p.getFileName().toString().endsWith(suffix))
                    .max(Comparator.comparingLong(p -> p.toFile().length())).orElseThrow();
        }
    }

    private static Path manifestOf(Path dir) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(p -> p.getFileName().toString().startsWith("MANIFEST-")).findFirst().orElseThrow();
        }
    }

    /** An in-memory file system holding the directory the harnesses put their files in. */
    static MemoryFileSystem memory() throws IOException {
        MemoryFileSystem fs = new MemoryFileSystem();
        fs.createDirectories(DIR);
        return fs;
    }

    static void write(FileSystem fs, Path path, byte[] bytes) throws IOException {
        try (WritableFile f = fs.create(path)) {
            f.write(ByteBuffer.wrap(bytes));
        }
    }

    private static long number(Path p) {
        return FileNames.parse(p.getFileName().toString()).number();
    }

    /** One entry of a table, as its iterator returns it. */
    private record Entry(byte[] key, long sequence, int type, byte[] value) {
        boolean same(InternalIterator it) {
            return Arrays.equals(key, it.key()) && sequence == it.sequence() && type == it.type().code()
                    && Arrays.equals(value, it.value());
        }
    }

    private static List<Entry> entries(TableReader t) throws IOException {
        List<Entry> out = new ArrayList<>();
        try (InternalIterator it = t.iterator()) {
            for (it.seekToFirst(); it.valid(); it.next()) {
                out.add(new Entry(it.key().clone(), it.sequence(), it.type().code(), it.value().clone()));
            }
        }
        return out;
    }

    /**
     * Reads a table whole and looks up each of its keys (and keys it does not hold): everything
     * must be exactly the seed table's content.
     */
    private static void checkTable(TableReader t, List<Entry> model) throws IOException {
        try (InternalIterator it = t.iterator()) {
            int n = 0;
            for (it.seekToFirst(); it.valid(); it.next()) {
                if (n >= model.size() || !model.get(n).same(it)) {
                    throw new AssertionError("entry " + n + " of " + t.path().getFileName() + " is not the seed's");
                }
                n++;
            }
            if (n != model.size()) {
                throw new AssertionError(t.path().getFileName() + " read " + n + " of " + model.size() + " entries");
            }
        }
        byte[] previous = null;
        for (Entry e : model) {
            // The first entry of a user key is its newest version.
            if (previous == null || !Arrays.equals(previous, e.key())) {
                TableLookup r = t.get(e.key(), Long.MAX_VALUE >>> 8);
                if (r == null || r.type().code() != e.type() || r.sequence() != e.sequence()
                        || !Arrays.equals(r.value(), e.value())) {
                    throw new AssertionError(t.path().getFileName() + ": wrong lookup of "
                            + new String(e.key(), StandardCharsets.UTF_8));
                }
            }
            previous = e.key();
        }
        for (int i = KEYS + 100; i < KEYS + 120; i++) {
            if (t.get(key(i), Long.MAX_VALUE >>> 8) != null) {
                throw new AssertionError(t.path().getFileName() + ": a key never written was found");
            }
        }
    }

    /** Reads a repaired table as {@link #checkTable} does, believing nothing: only failures count. */
    private static void readTable(TableReader t, List<Entry> model) throws IOException {
        try (InternalIterator it = t.iterator()) {
            for (it.seekToFirst(); it.valid(); it.next()) {
                it.value();
            }
        }
        for (Entry e : model) {
            t.get(e.key(), Long.MAX_VALUE >>> 8);
        }
        for (int i = KEYS + 100; i < KEYS + 120; i++) {
            t.get(key(i), Long.MAX_VALUE >>> 8);
        }
    }

    private static void readTable(TableReader t, List<Entry> model, boolean exact) throws IOException {
        if (exact) {
            checkTable(t, model);
        } else {
            readTable(t, model);
        }
    }

    /** The footer, properties, index and data blocks of a table; its filter sidecar is the seed's. */
    static final class SstableTarget implements FuzzTarget {
        private final String name;
        private final byte[] seed;
        private final byte[] sidecar;
        private final long number;
        private final List<Entry> model;
        private final List<long[]> layout;

        SstableTarget(String name, Path store) throws IOException {
            this.name = name;
            Path sst = only(store, ".sst");
            this.number = number(sst);
            this.seed = Files.readAllBytes(sst);
            this.sidecar = Files.readAllBytes(FileNames.filter(store, number));
            try (TableReader t = open(seed)) {
                this.model = entries(t);
                this.layout = TableLayout.blocks(t, seed);
            }
        }

        @Override
        public byte[] repair(byte[] input) {
            return Checksums.table(input, layout);
        }

        private TableReader open(byte[] input) throws IOException {
            MemoryFileSystem fs = memory();
            write(fs, FileNames.table(DIR, number), input);
            write(fs, FileNames.filter(DIR, number), sidecar);
            return TableReader.open(fs, DIR, number, TableOptions.defaults().withVerifyFilterOnOpen(true),
                    BlockCache.disabled(), new StoreCounters());
        }

        @Override
        public String name() {
            return name;
        }

        @Override
        public byte[] seed() {
            return seed;
        }

        @Override
        public String fileName() {
            return FileNames.table(DIR, number).getFileName().toString();
        }

        @Override
        public void run(byte[] input, boolean exact) throws IOException {
            try (TableReader t = open(input)) {
                readTable(t, model, exact);
            }
        }
    }

    /**
     * A table's filter sidecar, opened mapped (the local file system) with the payload checked on
     * open and, separately, unchecked (the store's default: checked before the first "absent"
     * answer is believed): no lookup of a key the table holds may miss it. Also opened directly as
     * a {@link FilterSet}, the store-bloom reader, every section queried.
     */
    static final class FilterTarget implements FuzzTarget {
        private final String name;
        private final byte[] seed;
        private final long number;
        private final Path dir;
        private final List<Entry> model;

        FilterTarget(String name, Path store) throws IOException {
            this.name = name;
            Path sst = only(store, ".sst");
            this.number = number(sst);
            this.seed = Files.readAllBytes(FileNames.filter(store, number));
            this.dir = store.resolveSibling(name + "-work");
            Files.createDirectories(dir);
            Files.copy(sst, FileNames.table(dir, number));
            Files.write(FileNames.filter(dir, number), seed);
            try (TableReader t = open(true)) {
                this.model = entries(t);
            }
        }

        private TableReader open(boolean verify) throws IOException {
            return TableReader.open(LocalFileSystem.INSTANCE, dir, number,
                    TableOptions.defaults().withVerifyFilterOnOpen(verify), BlockCache.disabled(), new StoreCounters());
        }

        @Override
        public String name() {
            return name;
        }

        @Override
        public byte[] seed() {
            return seed;
        }

        @Override
        public String fileName() {
            return FileNames.filter(dir, number).getFileName().toString();
        }

        @Override
        public byte[] repair(byte[] input) {
            return Checksums.filter(input);
        }

        @Override
        public void run(byte[] input, boolean exact) throws IOException {
            Path file = FileNames.filter(dir, number);
            Files.write(file, input);
            IOException first = null;
            for (boolean verify : new boolean[] {true, false}) {
                try (TableReader t = open(verify)) {
                    readTable(t, model, exact);
                    PrefixExtractor prefixes = t.prefixExtractor();
                    if (prefixes != null) {
                        byte[] p = Arrays.copyOf(key(7), 6);
                        t.mayContainPrefix(p, io.bloomstore.bloom.Filters.hash(p), prefixes);
                    }
                    t.mayContainRange(0, 1L << 40);
                    t.verify();
                } catch (IOException e) {
                    first = first == null ? e : first;
                }
            }
            try (FilterSet set = FilterSet.open(file, false)) {
                for (FilterSet.Role role : FilterSet.Role.values()) {
                    FilterSet.Section s = set.section(role);
                    if (s != null) {
                        MembershipFilter f = s.filter();
                        for (int i = 0; i < 50; i++) {
                            f.mightContain(key(i));
                        }
                    }
                }
            } catch (IOException e) {
                first = first == null ? e : first;
            }
            if (first != null) {
                throw first;
            }
        }
    }

    /** A WAL segment: what it yields must be the seed's records, or a prefix of them (a torn tail). */
    static final class WalTarget implements FuzzTarget {
        private final byte[] seed;
        private final Path path;
        private final List<byte[]> model;

        WalTarget(Path store) throws IOException {
            Path log = only(store, ".log");
            this.path = DIR.resolve(log.getFileName().toString());
            this.seed = Files.readAllBytes(log);
            this.model = records(seed);
            if (model.isEmpty()) {
                throw new IllegalStateException("the seed WAL segment holds no record");
            }
        }

        private List<byte[]> records(byte[] input) throws IOException {
            MemoryFileSystem fs = memory();
            write(fs, path, input);
            List<byte[]> out = new ArrayList<>();
            try (RandomReadFile f = fs.openRead(path)) {
                LogReader r = new LogReader(f, path, LogFormat.WAL_MAGIC);
                for (byte[] rec = r.next(); rec != null; rec = r.next()) {
                    out.add(rec);
                    BatchCodec.decode(rec, path, r.lastRecordOffset(), (k, s, t, v) -> { });
                }
            }
            return out;
        }

        @Override
        public String name() {
            return "wal";
        }

        @Override
        public byte[] seed() {
            return seed;
        }

        @Override
        public String fileName() {
            return path.getFileName().toString();
        }

        @Override
        public byte[] repair(byte[] input) {
            return Checksums.log(input);
        }

        @Override
        public void run(byte[] input, boolean exact) throws IOException {
            List<byte[]> read = records(input);
            if (!exact) {
                return;
            }
            if (read.size() > model.size()) {
                throw new AssertionError("read " + read.size() + " records; the seed holds " + model.size());
            }
            for (int i = 0; i < read.size(); i++) {
                if (!Arrays.equals(read.get(i), model.get(i))) {
                    throw new AssertionError("record " + i + " is not the seed's");
                }
            }
        }
    }

    /** A WAL record's payload, a write batch: decoded, or refused as corrupt. */
    static final class WalRecordTarget implements FuzzTarget {
        private static final Path PATH = DIR.resolve("000009.log");
        private final byte[] seed;

        WalRecordTarget(Path store) throws IOException {
            byte[] biggest = null;
            for (byte[] r : new WalTarget(store).model) {
                biggest = biggest == null || r.length > biggest.length ? r : biggest;
            }
            this.seed = biggest;
        }

        @Override
        public String name() {
            return "wal-record";
        }

        @Override
        public byte[] seed() {
            return seed;
        }

        @Override
        public String fileName() {
            return PATH.getFileName().toString();
        }

        @Override
        public void run(byte[] input, boolean exact) throws IOException {
            BatchCodec.decode(input, PATH, 0, (k, s, t, v) -> {
                if (k == null || v == null || t == null) {
                    throw new AssertionError("an entry decoded with a null part");
                }
            });
        }
    }

    /** The files a MANIFEST or CURRENT harness starts from: the store's, less its tables. */
    private static MemoryFileSystem storeFiles(Path store) throws IOException {
        MemoryFileSystem fs = memory();
        try (Stream<Path> files = Files.list(store)) {
            for (Path p : files.toList()) {
                String n = p.getFileName().toString();
                if (n.endsWith(".log") || n.equals(FileNames.CURRENT) || n.startsWith("MANIFEST-")) {
                    write(fs, DIR.resolve(n), Files.readAllBytes(p));
                }
            }
        }
        return fs;
    }

    /** The state a recovered version set holds: every level's files, the log number and last sequence. */
    private static String describe(Version v, long logNumber, long lastSequence) {
        StringBuilder sb = new StringBuilder();
        for (int level = 0; level < Version.NUM_LEVELS; level++) {
            sb.append(level).append(':');
            for (FileMetaData f : v.files(level)) {
                sb.append(f.fileNumber()).append('/').append(f.fileSize()).append('/')
                        .append(Arrays.hashCode(f.smallestKey())).append(',');
            }
        }
        return sb.append(" log ").append(logNumber).append(" seq ").append(lastSequence).toString();
    }

    private static String recover(MemoryFileSystem fs) throws IOException {
        try (VersionSet vs = VersionSet.recover(fs, DIR)) {
            return describe(vs.current(), vs.logNumber(), vs.lastSequence());
        }
    }

    /**
     * The MANIFEST: recovery must give the state after some prefix of the seed's edits (all of
     * them, or fewer when a torn tail was dropped), never a state the seed never held.
     */
    static final class ManifestTarget implements FuzzTarget {
        private final byte[] seed;
        private final Path path;
        private final byte[] storeCurrent;
        private final MemoryFileSystem base;
        private final Set<String> states = new HashSet<>();

        ManifestTarget(Path store) throws IOException {
            Path manifest = manifestOf(store);
            this.path = DIR.resolve(manifest.getFileName().toString());
            this.seed = Files.readAllBytes(manifest);
            this.storeCurrent = Files.readAllBytes(store.resolve(FileNames.CURRENT));
            this.base = storeFiles(store);
            MemoryFileSystem fs = memory();
            write(fs, path, seed);
            try (RandomReadFile f = fs.openRead(path)) {
                LogReader r = new LogReader(f, path, LogFormat.MANIFEST_MAGIC);
                Version v = Version.empty();
                long log = 0;
                long seq = 0;
                for (byte[] rec = r.next(); rec != null; rec = r.next()) {
                    VersionEdit e = VersionEdit.decode(rec, path, r.lastRecordOffset());
                    v = v.apply(e);
                    log = e.logNumber().orElse(log);
                    seq = e.lastSequence().orElse(seq);
                    states.add(describe(v, log, seq));
                }
            }
        }

        @Override
        public String name() {
            return "manifest";
        }

        @Override
        public byte[] seed() {
            return seed;
        }

        @Override
        public String fileName() {
            return path.getFileName().toString();
        }

        @Override
        public byte[] repair(byte[] input) {
            return Checksums.log(input);
        }

        @Override
        public void run(byte[] input, boolean exact) throws IOException {
            MemoryFileSystem fs = copy(base);
            write(fs, path, input);
            write(fs, DIR.resolve(FileNames.CURRENT), storeCurrent);
            String state = recover(fs);
            if (exact && !states.contains(state)) {
                throw new AssertionError("recovered a state the MANIFEST never held: " + state);
            }
        }
    }

    private static MemoryFileSystem copy(MemoryFileSystem from) throws IOException {
        MemoryFileSystem to = memory();
        for (String name : from.list(DIR)) {
            Path p = DIR.resolve(name);
            try (RandomReadFile f = from.openRead(p)) {
                ByteBuffer b = ByteBuffer.allocate((int) f.size());
                f.read(0, b);
                write(to, p, b.array());
            }
        }
        return to;
    }

    /** CURRENT: it names the MANIFEST, or recovery refuses it naming CURRENT. */
    static final class CurrentTarget implements FuzzTarget {
        private final byte[] seed;
        private final MemoryFileSystem base;
        private final String state;

        CurrentTarget(Path store) throws IOException {
            this.seed = Files.readAllBytes(store.resolve(FileNames.CURRENT));
            this.base = storeFiles(store);
            this.state = recover(copy(base));
        }

        @Override
        public String name() {
            return "current";
        }

        @Override
        public byte[] seed() {
            return seed;
        }

        @Override
        public String fileName() {
            return FileNames.CURRENT;
        }

        @Override
        public void run(byte[] input, boolean exact) throws IOException {
            MemoryFileSystem fs = copy(base);
            write(fs, DIR.resolve(FileNames.CURRENT), input);
            if (!state.equals(recover(fs))) {
                throw new AssertionError("CURRENT led to another state");
            }
        }
    }

    /** COUNTERS: the seed's counters, or refused naming the file. */
    static final class CountersTarget implements FuzzTarget {
        private final byte[] seed;
        private final Map<String, Long> model;
        private final Path path = DIR.resolve(FileNames.COUNTERS);

        CountersTarget(Path store) throws IOException {
            this.seed = Files.readAllBytes(store.resolve(FileNames.COUNTERS));
            this.model = read(seed);
        }

        private Map<String, Long> read(byte[] input) throws IOException {
            MemoryFileSystem fs = memory();
            write(fs, path, input);
            return CountersFile.read(fs, path);
        }

        @Override
        public String name() {
            return "counters";
        }

        @Override
        public byte[] seed() {
            return seed;
        }

        @Override
        public String fileName() {
            return FileNames.COUNTERS;
        }

        @Override
        public byte[] repair(byte[] input) {
            return Checksums.counters(input);
        }

        @Override
        public void run(byte[] input, boolean exact) throws IOException {
            if (!model.equals(read(input)) && exact) {
                throw new AssertionError("counters other than the seed's");
            }
        }
    }
}
