package io.bloomstore.core.backup;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bloomstore.bloom.CorruptionException;
import io.bloomstore.core.BackupInfo;
import io.bloomstore.core.Store;
import io.bloomstore.core.StoreBackup;
import io.bloomstore.core.StoreDirs;
import io.bloomstore.core.StoreIterator;
import io.bloomstore.core.StoreOptions;
import io.bloomstore.core.KeyValue;
import io.bloomstore.core.db.DbImpl;
import io.bloomstore.core.db.LiveFiles;
import io.bloomstore.core.fs.FaultInjectionFileSystem;
import io.bloomstore.core.fs.LocalFileSystem;
import io.bloomstore.core.fs.MemoryFileSystem;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Backups and restores ({@link StoreBackup}, {@link BackupEngine}, {@link BackupRestorer}):
 * incremental copies, verification, retention, damage, and a crash at every step.
 */
class BackupTest {
    @TempDir
    Path tmp;

    private static byte[] key(int i) {
        return String.format("key%07d", i).getBytes(StandardCharsets.UTF_8);
    }

    private static StoreOptions options() {
        return StoreOptions.builder().memtableBytes(32 << 10).targetFileBytes(32 << 10).build();
    }

    /** Puts keys [from, to) with values tagged {@code round}, into the store and the model. */
    private static void write(Store store, Map<String, String> model, int from, int to, String round)
            throws IOException {
        for (int i = from; i < to; i++) {
            String v = round + "-" + i;
            store.put(key(i), v.getBytes(StandardCharsets.UTF_8));
            model.put(new String(key(i), StandardCharsets.UTF_8), v);
        }
    }

    private static Map<String, String> contents(Path dir) throws IOException {
        Map<String, String> out = new TreeMap<>();
        try (Store s = Store.open(dir, StoreOptions.builder().createIfMissing(false).build());
             StoreIterator it = s.iterator(null, null)) {
            while (it.hasNext()) {
                KeyValue kv = it.next();
                out.put(new String(kv.key(), StandardCharsets.UTF_8), new String(kv.value(), StandardCharsets.UTF_8));
            }
        }
        return out;
    }

    @Test
    void secondBackupCopiesOnlyNewTablesAndEachRestoresItsMoment() throws IOException {
        Path dir = tmp.resolve("store");
        Path backups = tmp.resolve("backups");
        Map<String, String> model = new TreeMap<>();
        List<Map<String, String>> moments = new ArrayList<>();
        List<BackupInfo> infos = new ArrayList<>();
        try (Store store = Store.open(dir, options())) {
            write(store, model, 0, 4000, "a");
            store.flush();
            store.awaitCompactions();
            moments.add(new TreeMap<>(model));
            infos.add(StoreBackup.create(store, backups));
            write(store, model, 3990, 4010, "b");
            store.delete(key(5));
            model.remove(new String(key(5), StandardCharsets.UTF_8));
            moments.add(new TreeMap<>(model));
            infos.add(StoreBackup.create(store, backups));
        }
        BackupInfo first = infos.get(0);
        BackupInfo second = infos.get(1);
        assertEquals(first.files(), first.filesCopied(), "a first backup copies everything: " + first);
        assertTrue(second.bytesCopied() * 4 < second.bytes(), "the second copies the WAL, MANIFEST and CURRENT, not"
                + " the tables already there: " + second);
        assertEquals(List.of(1L, 2L), StoreBackup.list(backups).stream().map(BackupInfo::id).toList());
        for (int b = 0; b < 2; b++) {
            Path target = tmp.resolve("restored-" + b);
            StoreBackup.restore(backups, b + 1, target);
            assertEquals(moments.get(b), contents(target), "backup " + (b + 1));
        }
        Path latest = tmp.resolve("latest");
        assertEquals(2, StoreBackup.restore(backups, -1, latest).id());
        assertEquals(moments.get(1), contents(latest));
    }

    /** A backup taken while two writers and the compactions they cause run holds every write acknowledged before it. */
    @Test
    void backupOfALiveStoreHoldsEveryWriteAcknowledgedBeforeIt() throws Exception {
        Path dir = tmp.resolve("store");
        Path backups = tmp.resolve("backups");
        int writers = 2;
        AtomicLongArray acked = new AtomicLongArray(writers);
        long[] before = new long[writers];
        AtomicBoolean stop = new AtomicBoolean();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        try (Store store = Store.open(dir, options())) {
            List<Thread> threads = new ArrayList<>();
            for (int t = 0; t < writers; t++) {
                int thread = t;
                acked.set(t, -1);
                Thread w = new Thread(() -> {
                    try {
                        for (int i = 0; !stop.get(); i++) {
                            store.put(key(thread * 10_000_000 + i), ("v" + i).getBytes(StandardCharsets.UTF_8));
                            acked.set(thread, i);
                        }
                    } catch (Throwable e) {
                        failure.compareAndSet(null, e);
                    }
                });
                w.start();
                threads.add(w);
            }
            Thread.sleep(300);
            for (int t = 0; t < writers; t++) {
                before[t] = acked.get(t);
            }
            StoreBackup.create(store, backups);
            stop.set(true);
            for (Thread w : threads) {
                w.join();
            }
            assertTrue(failure.get() == null, () -> "writer failed: " + failure.get());
        }
        Path target = tmp.resolve("restored");
        StoreBackup.restore(backups, -1, target);
        Map<String, String> restored = contents(target);
        for (int t = 0; t < writers; t++) {
            int i = 0;
            while (restored.containsKey(new String(key(t * 10_000_000 + i), StandardCharsets.UTF_8))) {
                i++;
            }
            assertTrue(i > before[t], "writer " + t + " acknowledged " + before[t] + " before the backup, restored 0.."
                    + (i - 1));
        }
        assertEquals(restored.size(), countPrefixes(restored, writers), "every writer's restored writes are gap-free");
    }

    /** How many keys the gap-free runs 0.. of each writer add up to. */
    private static long countPrefixes(Map<String, String> restored, int writers) {
        long n = 0;
        for (int t = 0; t < writers; t++) {
            for (int i = 0; restored.containsKey(new String(key(t * 10_000_000 + i), StandardCharsets.UTF_8)); i++) {
                n++;
            }
        }
        return n;
    }

    /** A full disk mid-backup: a clear error, the earlier backup intact, the next backup works once there is room. */
    @Test
    void fullDiskDuringABackupLeavesTheSetUsable() throws IOException {
        MemoryFileSystem memory = new MemoryFileSystem();
        Path dir = Path.of("/store");
        Path backups = Path.of("/backups");
        FaultInjectionFileSystem fs = new FaultInjectionFileSystem(memory, 7).onlyFiles(p -> p.startsWith(backups));
        Map<String, String> model = new TreeMap<>();
        try (Store store = Store.open(fs, dir, options())) {
            write(store, model, 0, 2000, "a");
            store.flush();
            Map<String, String> first = new TreeMap<>(model);
            try (LiveFiles live = ((DbImpl) store).liveFiles()) {
                new BackupEngine(fs, backups, null).create(live, 0);
            }
            write(store, model, 1000, 4000, "b");
            store.flush();
            fs.failWritesAfterBytes(20_000);
            IOException full;
            try (LiveFiles live = ((DbImpl) store).liveFiles()) {
                full = assertThrows(IOException.class, () -> new BackupEngine(fs, backups, null).create(live, 0));
            }
            assertTrue(full.getMessage().contains(FaultInjectionFileSystem.DISK_FULL), full.getMessage());
            assertEquals(List.of(1L), new BackupEngine(fs, backups, null).list().stream().map(BackupMeta::id).toList());
            store.put(key(9999), "still writable".getBytes(StandardCharsets.UTF_8));
            fs.failWritesAfterBytes(Long.MAX_VALUE);
            StoreBackup.restore(fs, backups, 1, Path.of("/restored-1"));
            try (Store restored = Store.open(fs, Path.of("/restored-1"), options())) {
                assertEquals(first.get(new String(key(1500), StandardCharsets.UTF_8)),
                        new String(restored.get(key(1500)), StandardCharsets.UTF_8));
            }
            BackupMeta next;
            try (LiveFiles live = ((DbImpl) store).liveFiles()) {
                next = new BackupEngine(fs, backups, null).create(live, 0);
            }
            assertTrue(next.id() > 2, "the failed backup's id is not taken again: " + next.id());
            model.put(new String(key(9999), StandardCharsets.UTF_8), "still writable");
        }
        StoreBackup.restore(fs, backups, -1, Path.of("/restored-2"));
        try (Store restored = Store.open(fs, Path.of("/restored-2"), options())) {
            assertEquals("still writable", new String(restored.get(key(9999)), StandardCharsets.UTF_8));
            assertEquals(model.get(new String(key(3999), StandardCharsets.UTF_8)),
                    new String(restored.get(key(3999)), StandardCharsets.UTF_8));
        }
    }

    @Test
    void retentionKeepsTheNewestAndOnlyTheirFiles() throws IOException {
        Path dir = tmp.resolve("store");
        Path backups = tmp.resolve("backups");
        Map<String, String> model = new TreeMap<>();
        try (Store store = Store.open(dir, options())) {
            for (int round = 0; round < 4; round++) {
                write(store, model, round * 1000, round * 1000 + 2000, "r" + round);
                store.compact();
                StoreBackup.create(store, backups, 2);
            }
        }
        BackupEngine engine = new BackupEngine(LocalFileSystem.INSTANCE, backups, null);
        List<BackupMeta> left = engine.list();
        assertEquals(List.of(3L, 4L), left.stream().map(BackupMeta::id).toList());
        Set<String> named = new HashSet<>();
        left.forEach(m -> m.files().forEach(e -> named.add(e.backupPath())));
        Set<String> present = new HashSet<>();
        try (Stream<Path> files = Files.walk(backups)) {
            files.filter(Files::isRegularFile).map(p -> backups.relativize(p).toString().replace('\\', '/'))
                    .filter(p -> p.startsWith("shared/") || p.startsWith("private/")).forEach(present::add);
        }
        assertEquals(named, present, "files of purged backups are deleted, the kept ones' stay");
        Path target = tmp.resolve("restored");
        StoreBackup.restore(backups, 4, target);
        assertEquals(model, contents(target));
    }

    @Test
    void clearErrorsForAForeignDirectoryATakenTargetAndDamage() throws IOException {
        Path dir = tmp.resolve("store");
        Path backups = tmp.resolve("backups");
        Path foreign = Files.createDirectories(tmp.resolve("photos"));
        Files.writeString(foreign.resolve("cat.jpg"), "meow");
        try (Store store = Store.open(dir, options())) {
            write(store, new TreeMap<>(), 0, 3000, "a");
            store.flush();
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> StoreBackup.create(store, foreign));
            assertTrue(e.getMessage().contains("not a BloomStore backup directory"), e.getMessage());
            assertEquals(List.of("cat.jpg"), List.of(foreign.toFile().list()));
            IllegalArgumentException inside = assertThrows(IllegalArgumentException.class,
                    () -> StoreBackup.create(store, dir.resolve("backups")));
            assertTrue(inside.getMessage().contains("inside the store directory"), inside.getMessage());
            StoreBackup.create(store, backups);
        }
        assertEquals(1, StoreBackup.verify(backups).size());
        assertThrows(IllegalArgumentException.class, () -> StoreBackup.list(foreign));
        IllegalArgumentException taken = assertThrows(IllegalArgumentException.class,
                () -> StoreBackup.restore(backups, -1, dir));
        assertTrue(taken.getMessage().contains("not empty"), taken.getMessage());
        IllegalArgumentException noSuch = assertThrows(IllegalArgumentException.class,
                () -> StoreBackup.restore(backups, 7, tmp.resolve("x")));
        assertTrue(noSuch.getMessage().contains("no backup 7"), noSuch.getMessage());

        // A flipped byte in a shared table: the restore names the file and leaves no target.
        Path table;
        try (Stream<Path> shared = Files.list(backups.resolve("shared"))) {
            table = shared.filter(p -> p.toString().endsWith(".sst")).findFirst().orElseThrow();
        }
        try (FileChannel ch = FileChannel.open(table, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            ByteBuffer b = ByteBuffer.allocate(1);
            ch.read(b, 10);
            b.put(0, (byte) (b.get(0) ^ 0x40)).rewind();
            ch.write(b, 10);
        }
        CorruptionException found = assertThrows(CorruptionException.class, () -> StoreBackup.verify(backups));
        assertTrue(found.getMessage().contains(table.getFileName().toString()), found.getMessage());
        Path target = tmp.resolve("restored");
        CorruptionException damaged = assertThrows(CorruptionException.class,
                () -> StoreBackup.restore(backups, -1, target));
        assertTrue(damaged.getMessage().contains(table.getFileName().toString()), damaged.getMessage());
        assertFalse(Files.exists(target), "a failed restore removes what it wrote");
    }

    /**
     * Kill -9 at every step of a backup and of a restore, simulated by an image of the directories
     * taken before the step (a killed process writes nothing more; what it wrote stays): in every
     * image of the backup directory the earlier backups restore intact and a new backup works; in
     * every image of a restore target the target is a complete store or refused as one.
     */
    @Test
    void aCrashAtAnyStepLeavesTheBackupSetUsableAndARestoreCompleteOrRefused() throws IOException {
        Path dir = tmp.resolve("store");
        Path backups = tmp.resolve("backups");
        Map<String, String> model = new TreeMap<>();
        Map<String, String> firstMoment;
        List<Path> images = new ArrayList<>();
        Map<String, String> secondMoment;
        try (Store store = Store.open(dir, options())) {
            write(store, model, 0, 3000, "a");
            store.flush();
            StoreBackup.create(store, backups);
            firstMoment = new TreeMap<>(model);
            write(store, model, 2000, 5000, "b");
            store.compact();
            write(store, model, 0, 10, "c");
            secondMoment = new TreeMap<>(model);
            BackupEngine engine = new BackupEngine(LocalFileSystem.INSTANCE, backups, step -> {
                Path image = tmp.resolve("backup-image-" + images.size());
                StoreDirs.copyTree(backups, image);
                images.add(image);
            });
            try (LiveFiles live = ((DbImpl) store).liveFiles()) {
                engine.create(live, 1);
            }
        }
        assertTrue(images.size() >= 6, "steps seen: " + images.size());
        for (int i = 0; i < images.size(); i++) {
            Path image = images.get(i);
            List<BackupInfo> listed = StoreBackup.list(image);
            long newest = listed.get(listed.size() - 1).id();
            Path target = tmp.resolve("from-image-" + i);
            StoreBackup.restore(image, newest, target);
            assertEquals(newest == 1 ? firstMoment : secondMoment, contents(target), "image " + i);
            // The next backup into the image cleans up and works.
            long highestDir = 0;
            for (String id : image.resolve("private").toFile().list()) {
                highestDir = Math.max(highestDir, Long.parseLong(id));
            }
            try (Store store = Store.open(dir, options())) {
                BackupInfo next = StoreBackup.create(store, image);
                assertTrue(next.id() > highestDir, "an unfinished backup's id " + highestDir + " is not taken again");
                Path again = tmp.resolve("again-" + i);
                StoreBackup.restore(image, next.id(), again);
                assertEquals(secondMoment, contents(again), "image " + i + " after a new backup");
            }
        }

        // A restore killed at each step: the target is refused as a store and by a second restore.
        List<Path> targets = new ArrayList<>();
        Path target = tmp.resolve("restore");
        BackupRestorer.restore(new BackupEngine(LocalFileSystem.INSTANCE, backups, null), LocalFileSystem.INSTANCE,
                -1, target, step -> {
                    Path image = tmp.resolve("restore-image-" + targets.size());
                    StoreDirs.copyTree(target, image);
                    targets.add(image);
                });
        assertTrue(targets.size() >= 4, "steps seen: " + targets.size());
        for (Path image : targets) {
            assertFalse(Files.exists(image.resolve("CURRENT")), image + " has CURRENT before the last step");
            if (image.toFile().list().length > 0) {
                assertThrows(IllegalArgumentException.class, () -> Store.open(image,
                        StoreOptions.builder().createIfMissing(false).build()), image.toString());
                IllegalArgumentException again = assertThrows(IllegalArgumentException.class,
                        () -> StoreBackup.restore(backups, -1, image));
                assertTrue(again.getMessage().contains("cut short"), again.getMessage());
            }
        }
        assertEquals(secondMoment, contents(target));
    }
}
