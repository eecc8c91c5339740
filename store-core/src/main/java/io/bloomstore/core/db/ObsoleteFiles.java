package io.bloomstore.core.db;

import io.bloomstore.core.fs.FileSystem;
import io.bloomstore.core.manifest.FileMetaData;
import io.bloomstore.core.manifest.FileNames;
import io.bloomstore.core.manifest.VersionSet;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The files of a store directory nothing needs any more, chosen in one step and deleted in
 * another: choosing must see the directory and the version set at one instant (inside {@link
 * VersionSet#whileManifestStable}, so that no MANIFEST roll runs between the listing and the
 * choice), while deleting — an unlink of a just-flushed 4 MiB WAL segment takes milliseconds —
 * holds nothing. Neither needs the store mutex, so writers never wait for either.
 *
 * <p>Thread safety: stateless.
 */
final class ObsoleteFiles {
    private ObsoleteFiles() {
    }

    /**
     * WAL segments below {@code logNumber} and below the MANIFEST's own log number (a segment the
     * MANIFEST still names is what recovery replays should its next edit be torn), stale MANIFESTs and temporary
     * files; with {@code orphans} (at recovery, before any flush or compaction thread runs) also
     * tables the current version does not hold, left by a crash during a flush or compaction.
     * Tables a compaction replaced are deleted by their {@link TableHandle} once no reader holds
     * them. Once chosen, a file is never needed again.
     */
    static List<Path> choose(DbState db, long logNumber, boolean orphans) throws IOException {
        // An anonymous class, not a lambda: this runs at every open, and a lambda is spun at the first.
        return db.versions.whileManifestStable(new VersionSet.StableAction<List<Path>>() {
            @Override
            public List<Path> run() throws IOException {
                return list(db, logNumber, orphans);
            }
        });
    }

    /**
     * As {@link #choose} with orphans, at recovery, from the directory's names as the open listed
     * them before it wrote anything: every file it wrote since (the new MANIFEST and WAL segment, a
     * level-0 table of the replayed WAL) is live, and listing again cost the open some 3-6 ms at
     * 10 M keys.
     */
    static List<Path> chooseAtOpen(DbState db, long logNumber, List<String> listing) throws IOException {
        return db.versions.whileManifestStable(new VersionSet.StableAction<List<Path>>() {
            @Override
            public List<Path> run() {
                return obsolete(db, logNumber, true, listing);
            }
        });
    }

    private static List<Path> list(DbState db, long logNumber, boolean orphans) throws IOException {
        return obsolete(db, logNumber, orphans, db.fs.list(db.dir));
    }

    private static List<Path> obsolete(DbState db, long logNumber, boolean orphans, List<String> names) {
        List<Path> chosen = new ArrayList<>();
        // Segments a checkpoint or backup is copying stay until it is done.
        long walBelow = Math.min(logNumber, db.pins.walFloor());
        Set<Long> live = new HashSet<>();
        for (FileMetaData f : db.versions.allLiveFiles()) {
            live.add(f.fileNumber());
        }
        for (String name : names) {
            FileNames.Parsed p = FileNames.parse(name);
            if (p == null) {
                continue;
            }
            boolean obsolete = switch (p.kind()) {
                case WAL -> p.number() < Math.min(walBelow, db.versions.logNumber());
                case TABLE, FILTER -> orphans && !live.contains(p.number()) && !held(db, p.number());
                case MANIFEST -> p.number() != db.versions.manifestNumber();
                case TEMP -> true;
                default -> false;
            };
            if (obsolete) {
                chosen.add(db.dir.resolve(name));
            }
        }
        return chosen;
    }

    /** Whether a keyspace's registry still holds table {@code number} open (a reader of a replaced table). */
    private static boolean held(DbState db, long number) {
        for (DbState k : db.root.keyspaces) {
            if (k.tables.holds(number)) {
                return true;
            }
        }
        return false;
    }

    /**
     * At open: deletes the chosen WAL segments, MANIFESTs and temporary files now, and leaves the
     * orphan tables and filter sidecars to the registry's background thread
     * ({@link TableRegistry#deleteOrphans}): after a compaction a close left behind they are
     * gigabytes at 10 M keys, whose unlinks held the open for 1.5 s. The mutex need not be held.
     */
    static void deleteAtOpen(DbState db, List<Path> chosen) throws IOException {
        List<Path> tables = new ArrayList<>();
        for (Path f : chosen) {
            FileNames.Parsed p = FileNames.parse(f.getFileName().toString());
            if (p != null && (p.kind() == FileNames.Kind.TABLE || p.kind() == FileNames.Kind.FILTER)) {
                tables.add(f);
            } else {
                db.fs.delete(f);
            }
        }
        db.tables.deleteOrphans(tables);
    }

    /** Deletes the chosen files; the mutex need not be held. */
    static void delete(FileSystem fs, List<Path> files) throws IOException {
        for (Path f : files) {
            fs.delete(f);
        }
    }
}
