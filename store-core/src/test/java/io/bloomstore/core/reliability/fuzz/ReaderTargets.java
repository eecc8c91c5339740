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
 * knows what its seed holds and fails on anything else read without an error. Each target is one
 * factory: it reads the seed and what the seed holds, then hands its harness to {@link FuzzTarget}.
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
        targets.add(sstableTarget("sstable", plain));
        targets.add(sstableTarget("sstable-lz4", lz4));
        for (FilterKind kind : TableOptions.TABLE_FILTER_KINDS.stream().sorted().toList()) {
            Path d = work.resolve("filter-" + kind.name().toLowerCase());
            writeStore(d, StoreOptions.builder().filterKind(kind).build());
            targets.add(filterTarget("filter-" + kind.name().toLowerCase(), d));
        }
        Path set = work.resolve("filter-set");
        writeStore(set, StoreOptions.builder().filterKind(FilterKind.BLOOM).prefixExtractor(PrefixExtractor.fixed(6))
                .rangeFilter(RangeFilterOptions.of(12)).build());
        targets.add(filterTarget("filter-set", set));
        targets.add(walTarget(plain));
        targets.add(walRecordTarget(plain));
        targets.add(manifestTarget(plain));
        targets.add(currentTarget(plain));
        targets.add(countersTarget(plain));
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
    static FuzzTarget sstableTarget(String name, Path store) throws IOException {
        Path sst = only(store, ".sst");
        long number = number(sst);
        byte[] seed = Files.readAllBytes(sst);
        byte[] sidecar = Files.readAllBytes(FileNames.filter(store, number));
        List<Entry> model;
        List<long[]> layout;
        try (TableReader t = openInMemory(number, seed, sidecar)) {
            model = entries(t);
            layout = TableLayout.blocks(t, seed);
        }
        return new FuzzTarget(name, seed, FileNames.table(DIR, number).getFileName().toString(),
                input -> Checksums.table(input, layout), (input, exact) -> {
                    try (TableReader t = openInMemory(number, input, sidecar)) {
                        readTable(t, model, exact);
                    }
                });
    }

    /** Table {@code number} from the bytes of its file and sidecar, in memory, its filter checked on open. */
    private static TableReader openInMemory(long number, byte[] table, byte[] sidecar) throws IOException {
        MemoryFileSystem fs = memory();
        write(fs, FileNames.table(DIR, number), table);
        write(fs, FileNames.filter(DIR, number), sidecar);
        return TableReader.open(fs, DIR, number, TableOptions.defaults().withVerifyFilterOnOpen(true),
                BlockCache.disabled(), new StoreCounters());
    }

    /**
     * A table's filter sidecar, opened mapped (the local file system) with the payload checked on
     * open and, separately, unchecked (the store's default: checked before the first "absent"
     * answer is believed): no lookup of a key the table holds may miss it. Also opened directly as
     * a {@link FilterSet}, the store-bloom reader, every section queried.
     */
    static FuzzTarget filterTarget(String name, Path store) throws IOException {
        Path sst = only(store, ".sst");
        long number = number(sst);
        byte[] seed = Files.readAllBytes(FileNames.filter(store, number));
        Path dir = store.resolveSibling(name + "-work");
        Files.createDirectories(dir);
        Files.copy(sst, FileNames.table(dir, number));
        Files.write(FileNames.filter(dir, number), seed);
        List<Entry> model;
        try (TableReader t = openLocal(dir, number, true)) {
            model = entries(t);
        }
        return new FuzzTarget(name, seed, FileNames.filter(dir, number).getFileName().toString(), Checksums::filter,
                (input, exact) -> readFilter(dir, number, model, input, exact));
    }

    private static TableReader openLocal(Path dir, long number, boolean verify) throws IOException {
        return TableReader.open(LocalFileSystem.INSTANCE, dir, number,
                TableOptions.defaults().withVerifyFilterOnOpen(verify), BlockCache.disabled(), new StoreCounters());
    }

    /** The harness of {@link #filterTarget}: {@code input} as the sidecar of table {@code number} in {@code dir}. */
    private static void readFilter(Path dir, long number, List<Entry> model, byte[] input, boolean exact)
            throws IOException {
        Path file = FileNames.filter(dir, number);
        Files.write(file, input);
        IOException first = null;
        for (boolean verify : new boolean[] {true, false}) {
            try (TableReader t = openLocal(dir, number, verify)) {
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

    /** A WAL segment: what it yields must be the seed's records, or a prefix of them (a torn tail). */
    static FuzzTarget walTarget(Path store) throws IOException {
        Path log = only(store, ".log");
        Path path = DIR.resolve(log.getFileName().toString());
        byte[] seed = Files.readAllBytes(log);
        List<byte[]> model = seedWalRecords(path, seed);
        List<byte[]> modelBatches = batches(model);
        return new FuzzTarget("wal", seed, path.getFileName().toString(), Checksums::log, (input, exact) -> {
            List<byte[]> read = walRecords(path, input);
            if (!exact) {
                return;
            }
            // Each record is checked by its CRC, but a whole record copied or cut out keeps every
            // CRC: the segment reader cannot see that, and recovery refuses it by the batches'
            // sequence numbers (WalReplay's "sequence gap"). Seal records carry no write and a
            // repeated one changes nothing (replay applies none). So: the batches read must be the
            // seed's, in order, unless their sequence numbers break, which recovery refuses.
            List<byte[]> batches = batches(read);
            if (!consecutive(path, batches)) {
                return;
            }
            if (batches.size() > modelBatches.size()) {
                throw new AssertionError("read " + batches.size() + " batches; the seed holds " + modelBatches.size());
            }
            for (int i = 0; i < batches.size(); i++) {
                if (!Arrays.equals(batches.get(i), modelBatches.get(i))) {
                    throw new AssertionError("batch " + i + " is not the seed's");
                }
            }
        });
    }

    /** The records that are write batches, not seals. */
    private static List<byte[]> batches(List<byte[]> records) {
        List<byte[]> out = new ArrayList<>();
        for (byte[] r : records) {
            if (!BatchCodec.isSeal(r)) {
                out.add(r);
            }
        }
        return out;
    }

    /** Whether each batch starts at the sequence after the previous one's last (recovery's rule). */
    private static boolean consecutive(Path path, List<byte[]> batches) throws IOException {
        long expected = -1;
        for (byte[] b : batches) {
            long[] first = {Long.MIN_VALUE};
            long end = BatchCodec.decode(b, path, 0, (k, s, t, v) -> {
                if (first[0] == Long.MIN_VALUE) {
                    first[0] = s;
                }
            });
            long start = first[0] == Long.MIN_VALUE ? end + 1 : first[0];
            if (expected >= 0 && start != expected) {
                return false;
            }
            expected = end + 1;
        }
        return true;
    }

    /** The records of WAL segment {@code input} stored as {@code path}, each decoded as a batch. */
    private static List<byte[]> walRecords(Path path, byte[] input) throws IOException {
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

    /** As {@link #walRecords}, for a seed segment: it must hold a record. */
    private static List<byte[]> seedWalRecords(Path path, byte[] seed) throws IOException {
        List<byte[]> records = walRecords(path, seed);
        if (records.isEmpty()) {
            throw new IllegalStateException("the seed WAL segment holds no record");
        }
        return records;
    }

    /** A WAL record's payload, a write batch: decoded, or refused as corrupt. */
    static FuzzTarget walRecordTarget(Path store) throws IOException {
        Path log = only(store, ".log");
        byte[] biggest = null;
        for (byte[] r : seedWalRecords(DIR.resolve(log.getFileName().toString()), Files.readAllBytes(log))) {
            biggest = biggest == null || r.length > biggest.length ? r : biggest;
        }
        Path path = DIR.resolve("000009.log");
        return new FuzzTarget("wal-record", biggest, path.getFileName().toString(), null, (input, exact) ->
                BatchCodec.decode(input, path, 0, (k, s, t, v) -> {
                    if (k == null || v == null || t == null) {
                        throw new AssertionError("an entry decoded with a null part");
                    }
                }));
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
    static FuzzTarget manifestTarget(Path store) throws IOException {
        Path manifest = manifestOf(store);
        Path path = DIR.resolve(manifest.getFileName().toString());
        byte[] seed = Files.readAllBytes(manifest);
        byte[] storeCurrent = Files.readAllBytes(store.resolve(FileNames.CURRENT));
        MemoryFileSystem base = storeFiles(store);
        Set<String> states = manifestStates(path, seed);
        return new FuzzTarget("manifest", seed, path.getFileName().toString(), Checksums::log, (input, exact) -> {
            MemoryFileSystem fs = copy(base);
            write(fs, path, input);
            write(fs, DIR.resolve(FileNames.CURRENT), storeCurrent);
            String state = recover(fs);
            if (exact && !states.contains(state)) {
                throw new AssertionError("recovered a state the MANIFEST never held: " + state);
            }
        });
    }

    /** The state after each edit of MANIFEST {@code seed} stored as {@code path}. */
    private static Set<String> manifestStates(Path path, byte[] seed) throws IOException {
        Set<String> states = new HashSet<>();
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
        return states;
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
    static FuzzTarget currentTarget(Path store) throws IOException {
        byte[] seed = Files.readAllBytes(store.resolve(FileNames.CURRENT));
        MemoryFileSystem base = storeFiles(store);
        String state = recover(copy(base));
        return new FuzzTarget("current", seed, FileNames.CURRENT, null, (input, exact) -> {
            MemoryFileSystem fs = copy(base);
            write(fs, DIR.resolve(FileNames.CURRENT), input);
            if (!state.equals(recover(fs))) {
                throw new AssertionError("CURRENT led to another state");
            }
        });
    }

    /** COUNTERS: the seed's counters, or refused naming the file. */
    static FuzzTarget countersTarget(Path store) throws IOException {
        byte[] seed = Files.readAllBytes(store.resolve(FileNames.COUNTERS));
        Map<String, Long> model = readCounters(seed);
        return new FuzzTarget("counters", seed, FileNames.COUNTERS, Checksums::counters, (input, exact) -> {
            if (!model.equals(readCounters(input)) && exact) {
                throw new AssertionError("counters other than the seed's");
            }
        });
    }

    private static Map<String, Long> readCounters(byte[] input) throws IOException {
        Path path = DIR.resolve(FileNames.COUNTERS);
        MemoryFileSystem fs = memory();
        write(fs, path, input);
        return CountersFile.read(fs, path);
    }
}
