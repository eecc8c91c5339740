package io.bloomstore.core.manifest;

import io.bloomstore.bloom.CorruptionException;
import io.bloomstore.core.fs.FileSystem;
import io.bloomstore.core.fs.RandomReadFile;
import io.bloomstore.core.wal.LogFormat;
import io.bloomstore.core.wal.LogReader;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Collections;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * Recovery's reading of a store's durable file set: {@code CURRENT} read and checked, then the
 * MANIFEST it names replayed edit by edit into the state the edits describe (every keyspace's
 * version and the recorded numbers), refusing a damaged MANIFEST rather than opening without
 * tables or writes. It writes nothing; {@link VersionSet} takes the state from here and starts
 * logging. Formats: {@code docs/format/manifest.md}.
 *
 * <p>Thread safety: confined to the recovering thread.
 */
final class ManifestRecovery {
    /** The default keyspace's version, once replayed. */
    private Version current;
    /** Every other keyspace's name and version by number, once replayed. */
    private Map<Integer, VersionSet.Keyspace> keyspaces;
    private int nextKeyspaceId = 1;
    private Map<Integer, Long> keyspaceLogNumbers;
    /** The last next file number an edit recorded (1 when none did). */
    private long nextFileNumber = 1;
    private long lastSequence;
    private long logNumber;
    /** The number of the MANIFEST read. */
    private long manifestNumber;

    private ManifestRecovery() {
    }

    /**
     * Reads the state from the MANIFEST named by CURRENT in {@code dir}. A torn last edit (a crash
     * while it was written) is dropped: the flush it described was not complete.
     *
     * @throws CorruptionException when CURRENT or the MANIFEST is damaged
     */
    static ManifestRecovery read(FileSystem fs, Path dir) throws IOException {
        ManifestRecovery r = new ManifestRecovery();
        r.replay(fs, dir);
        return r;
    }

    private void replay(FileSystem fs, Path dir) throws IOException {
        Path currentFile = dir.resolve(FileNames.CURRENT);
        String name = readCurrent(fs, currentFile);
        FileNames.Parsed parsed = FileNames.parse(name);
        if (parsed == null || parsed.kind() != FileNames.Kind.MANIFEST) {
            throw new CorruptionException(currentFile, 0, "CURRENT does not name a MANIFEST: '" + name + "'");
        }
        Path manifestPath = dir.resolve(name);
        if (!fs.exists(manifestPath)) {
            throw new CorruptionException(currentFile, 0, "CURRENT names " + name + ", which does not exist");
        }
        try (RandomReadFile f = fs.openRead(manifestPath)) {
            LogReader reader = new LogReader(f, manifestPath, LogFormat.MANIFEST_MAGIC);
            Version.Builder v = new Version.Builder();
            Map<Integer, Version.Builder> others = new TreeMap<>();
            Map<Integer, String> names = new HashMap<>();
            Map<Integer, Long> logNumbers = new HashMap<>();
            int edits = 0;
            for (byte[] record = reader.next(); record != null; record = reader.next()) {
                VersionEdit edit = VersionEdit.decode(record, manifestPath, reader.lastRecordOffset());
                String wrong = applyKeyspaces(edit, others, names);
                for (VersionEdit section : edit.sections()) {
                    if (wrong != null) {
                        break;
                    }
                    Version.Builder target = section.keyspace() == VersionEdit.DEFAULT_KEYSPACE ? v
                            : others.get(section.keyspace());
                    wrong = target == null ? "changes keyspace " + section.keyspace() + ", which does not exist"
                            : target.apply(section);
                    if (wrong == null && section.dropsKeyspace()) {
                        wrong = target.isEmpty() ? null : "drops keyspace " + section.keyspace()
                                + " but leaves tables";
                        others.remove(section.keyspace());
                        names.remove(section.keyspace());
                    }
                    if (wrong == null) {
                        VersionSet.applyKeyspaceLogNumber(section, logNumbers);
                    }
                }
                if (wrong != null) {
                    throw new CorruptionException(manifestPath, reader.lastRecordOffset(), "edit " + (edits + 1)
                            + " " + wrong);
                }
                edits++;
                if (edit.logNumber().isPresent()) {
                    logNumber = Math.max(logNumber, edit.logNumber().getAsLong());
                }
                if (edit.nextFileNumber().isPresent()) {
                    nextFileNumber = edit.nextFileNumber().getAsLong();
                }
                if (edit.lastSequence().isPresent()) {
                    lastSequence = edit.lastSequence().getAsLong();
                }
            }
            checkNothingDropped(fs, dir, manifestPath, f.size() - reader.droppedTailBytes(),
                    reader.droppedTailBytes() > 0, edits, logNumber);
            current = v.build();
            Map<Integer, VersionSet.Keyspace> ks = new TreeMap<>();
            for (Map.Entry<Integer, Version.Builder> e : others.entrySet()) {
                ks.put(e.getKey(), new VersionSet.Keyspace(names.get(e.getKey()), e.getValue().build()));
            }
            keyspaces = Collections.unmodifiableMap(ks);
            keyspaceLogNumbers = Map.copyOf(logNumbers);
        }
        manifestNumber = parsed.number();
    }

    /** Applies an edit's keyspace creations and next number; what is wrong with them, or null. */
    private String applyKeyspaces(VersionEdit edit, Map<Integer, Version.Builder> others, Map<Integer, String> names) {
        for (VersionEdit.CreatedKeyspace c : edit.createdKeyspaces()) {
            if (others.containsKey(c.id()) || names.containsValue(c.name())) {
                return "creates keyspace " + c.id() + " (" + c.name() + "), which exists";
            }
            others.put(c.id(), new Version.Builder());
            names.put(c.id(), c.name());
            nextKeyspaceId = Math.max(nextKeyspaceId, c.id() + 1);
        }
        if (edit.nextKeyspaceId().isPresent()) {
            nextKeyspaceId = Math.max(nextKeyspaceId, edit.nextKeyspaceId().getAsInt());
        }
        return null;
    }

    /**
     * A MANIFEST's tail is dropped as torn only when that loses nothing: a crash during an edit
     * leaves the WAL segments that edit would have made obsolete, while damage to a completed
     * edit (a flipped byte in the last record) does not. So after a dropped tail the WAL the
     * surviving edits name must still exist, and the full-state edit every MANIFEST starts with (synced before CURRENT
     * names it) must be there; otherwise opening would silently drop tables or writes.
     */
    private static void checkNothingDropped(FileSystem fs, Path dir, Path manifest, long validBytes,
                                            boolean tailDropped, int edits, long logNumber)
            throws CorruptionException {
        if (edits == 0) {
            throw new CorruptionException(manifest, validBytes, "MANIFEST holds no complete edit, not even the"
                    + " full state it starts with");
        }
        if (tailDropped && logNumber > 0 && !fs.exists(FileNames.wal(dir, logNumber))) {
            throw new CorruptionException(manifest, validBytes, "the last readable edit needs WAL segment "
                    + FileNames.wal(dir, logNumber).getFileName() + ", which a later edit made obsolete: that edit"
                    + " is damaged or lost");
        }
    }

    private static String readCurrent(FileSystem fs, Path currentFile) throws IOException {
        try (RandomReadFile f = fs.openRead(currentFile)) {
            long size = f.size();
            if (size == 0 || size > 256) {
                throw new CorruptionException(currentFile, 0, "CURRENT has " + size + " bytes");
            }
            ByteBuffer buf = ByteBuffer.allocate((int) size);
            f.readFully(0, buf);
            String text = new String(buf.array(), StandardCharsets.UTF_8);
            if (!text.endsWith("\n")) {
                throw new CorruptionException(currentFile, size, "CURRENT does not end with a newline");
            }
            return text.substring(0, text.length() - 1);
        }
    }

    Version current() {
        return current;
    }

    Map<Integer, VersionSet.Keyspace> keyspaces() {
        return keyspaces;
    }

    int nextKeyspaceId() {
        return nextKeyspaceId;
    }

    /** Per keyspace, the oldest WAL segment it still needs, where recorded. */
    Map<Integer, Long> keyspaceLogNumbers() {
        return keyspaceLogNumbers;
    }

    long nextFileNumber() {
        return nextFileNumber;
    }

    long lastSequence() {
        return lastSequence;
    }

    long logNumber() {
        return logNumber;
    }

    long manifestNumber() {
        return manifestNumber;
    }
}
