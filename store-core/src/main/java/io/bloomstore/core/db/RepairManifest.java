package io.bloomstore.core.db;

import io.bloomstore.bloom.CorruptionException;
import io.bloomstore.core.fs.FileSystem;
import io.bloomstore.core.fs.RandomReadFile;
import io.bloomstore.core.manifest.FileMetaData;
import io.bloomstore.core.manifest.FileNames;
import io.bloomstore.core.manifest.Version;
import io.bloomstore.core.manifest.VersionEdit;
import io.bloomstore.core.rangedel.RangeTombstone;
import io.bloomstore.core.wal.LogFormat;
import io.bloomstore.core.wal.LogReader;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A MANIFEST that read whole, as {@link Repairer} reads one: its version and recorded numbers; and
 * how repair finds and reads it (the one CURRENT names, else the newest), setting aside a damaged
 * MANIFEST or CURRENT.
 *
 * <p>Thread safety: immutable; {@link #read} runs on the repair's thread.
 */
record RepairManifest(Path path, Version version, long logNumber, long lastSequence) {
    /** The logger, made on first use (repair's own name: its messages read as repair's). */
    private static final class Log {
        static final Logger LOG = LoggerFactory.getLogger(Repairer.class);
    }

    /** Sets a damaged file aside (into {@code lost/}). */
    interface Discard {
        void lose(Path file) throws IOException;
    }

    /** Whether the MANIFEST's version holds exactly the tables in {@code verified}. */
    boolean describesExactly(Set<Long> verified) {
        Set<Long> named = new HashSet<>();
        for (int level = 0; level < Version.NUM_LEVELS; level++) {
            for (FileMetaData f : version().files(level)) {
                named.add(f.fileNumber());
            }
        }
        return named.equals(verified);
    }

    /** The MANIFEST name CURRENT holds, or null when CURRENT is missing or unreadable. */
    private static String readCurrentName(FileSystem fs, Path dir) {
        Path current = dir.resolve(FileNames.CURRENT);
        if (!fs.exists(current)) {
            return null;
        }
        try (RandomReadFile f = fs.openRead(current)) {
            long size = f.size();
            if (size < 2 || size > 256) {
                return null;
            }
            ByteBuffer b = ByteBuffer.allocate((int) size);
            f.readFully(0, b);
            String text = new String(b.array(), StandardCharsets.UTF_8);
            if (!text.endsWith("\n")) {
                return null;
            }
            String name = text.substring(0, text.length() - 1);
            FileNames.Parsed p = FileNames.parse(name);
            return p != null && p.kind() == FileNames.Kind.MANIFEST ? name : null;
        } catch (IOException e) {
            return null;
        }
    }

    /**
     * The MANIFEST CURRENT names (or, when CURRENT is missing or damaged, the newest one), if it
     * reads whole: every record's CRC, every edit, no torn tail. A damaged one is moved into
     * {@code lost/} ({@code discard}), and so is a damaged CURRENT. The range tombstones of the
     * edits read before any damage go into {@code manifestTombstones}.
     */
    static RepairManifest read(FileSystem fs, Path dir, List<String> names, Map<Long, RangeTombstone> manifestTombstones,
            Discard discard) throws IOException {
        String name = readCurrentName(fs, dir);
        if (name == null && fs.exists(dir.resolve(FileNames.CURRENT))) {
            discard.lose(dir.resolve(FileNames.CURRENT));
        }
        if (name == null || !fs.exists(dir.resolve(name))) {
            name = null;
            long newest = -1;
            for (String n : names) {
                FileNames.Parsed p = FileNames.parse(n);
                if (p != null && p.kind() == FileNames.Kind.MANIFEST && p.number() > newest) {
                    newest = p.number();
                    name = n;
                }
            }
        }
        if (name == null) {
            return null;
        }
        Path path = dir.resolve(name);
        try (RandomReadFile f = fs.openRead(path)) {
            LogReader reader = new LogReader(f, path, LogFormat.MANIFEST_MAGIC);
            Version.Builder v = new Version.Builder();
            long logNumber = 0;
            long sequence = 0;
            int edits = 0;
            for (byte[] record = reader.next(); record != null; record = reader.next()) {
                VersionEdit edit = VersionEdit.decode(record, path, reader.lastRecordOffset());
                for (long gone : edit.deletedRangeTombstones()) {
                    manifestTombstones.remove(gone);
                }
                for (RangeTombstone t : edit.addedRangeTombstones()) {
                    manifestTombstones.put(t.sequence(), t);
                }
                String wrong = v.apply(edit);
                if (wrong != null) {
                    throw new CorruptionException(path, reader.lastRecordOffset(), "edit " + (edits + 1) + " " + wrong);
                }
                logNumber = edit.logNumber().orElse(logNumber);
                sequence = edit.lastSequence().orElse(sequence);
                edits++;
            }
            if (edits == 0 || reader.droppedTailBytes() > 0) {
                throw new CorruptionException(path, f.size() - reader.droppedTailBytes(),
                        edits == 0 ? "no complete edit" : "damaged or torn last edit");
            }
            return new RepairManifest(path, v.build(), logNumber, sequence);
        } catch (IOException | RuntimeException e) {
            Log.LOG.warn("repair: {} does not read whole ({}); every kept table is merged instead, under the {} range"
                    + " tombstones of its edits before the damage (range deletions recorded only past it are lost)",
                    path, e.toString(), manifestTombstones.size());
            discard.lose(path);
            return null;
        }
    }
}
