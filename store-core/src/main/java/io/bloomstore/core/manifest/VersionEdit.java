package io.bloomstore.core.manifest;

import io.bloomstore.bloom.CorruptionException;
import io.bloomstore.core.rangedel.RangeTombstone;
import io.bloomstore.core.wal.RecordBuffer;
import io.bloomstore.core.wal.RecordParser;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * One change to the set of live files, written as one MANIFEST record: files added (with their
 * level), files deleted, range tombstones added and removed, and the counters that must survive a restart (WAL log number, next file
 * number, last sequence number). Encoding: tagged fields, {@code docs/format/manifest.md}.
 *
 * <p>Thread safety: not thread-safe; built by one thread, then handed to {@link VersionSet}.
 */
public final class VersionEdit {
    /** Field tags; written to disk, never renumber. */
    static final int TAG_LOG_NUMBER = 1;
    static final int TAG_NEXT_FILE_NUMBER = 2;
    static final int TAG_LAST_SEQUENCE = 3;
    static final int TAG_DELETE_FILE = 4;
    static final int TAG_ADD_FILE = 5;
    static final int TAG_ADD_RANGE_TOMBSTONE = 6;
    static final int TAG_DELETE_RANGE_TOMBSTONE = 7;
    /** The keyspace the edit's files and range tombstones belong to; absent for the default keyspace. */
    static final int TAG_KEYSPACE = 10;
    static final int TAG_CREATE_KEYSPACE = 11;
    static final int TAG_DROP_KEYSPACE = 12;
    static final int TAG_NEXT_KEYSPACE_ID = 13;
    /** The oldest WAL segment the section's keyspace still needs: its records in older ones are in its tables. */
    static final int TAG_KEYSPACE_LOG_NUMBER = 14;

    /** The default keyspace's number: every store has it, and a store without keyspaces has only it. */
    public static final int DEFAULT_KEYSPACE = 0;

    /** A keyspace made by this edit: its number and name. */
    public record CreatedKeyspace(int id, String name) {
    }

    /** A file added at a level. */
    public record Added(int level, FileMetaData file) {
    }

    /** A file removed from a level. */
    public record Deleted(int level, long fileNumber) {
    }

    private Long logNumber;
    private Long nextFileNumber;
    private Long lastSequence;
    private final List<Added> added = new ArrayList<>();
    private final List<Deleted> deleted = new ArrayList<>();
    private final List<RangeTombstone> addedTombstones = new ArrayList<>();
    private final List<Long> deletedTombstones = new ArrayList<>();
    private int keyspace = DEFAULT_KEYSPACE;
    private final List<CreatedKeyspace> createdKeyspaces = new ArrayList<>();
    private boolean dropsKeyspace;
    private Integer nextKeyspaceId;
    private Long keyspaceLogNumber;
    /** Further sections of this edit, each the file changes of another keyspace, logged atomically with it. */
    private final List<VersionEdit> more = new ArrayList<>();

    /**
     * Adds {@code section}, the files and range tombstones of another keyspace ({@link #setKeyspace}),
     * to this edit: one MANIFEST record, so recovery's tables of every keyspace and its log number
     * are logged together.
     */
    public VersionEdit addSection(VersionEdit section) {
        if (section.logNumber != null || section.lastSequence != null || section.nextFileNumber != null
                || !section.createdKeyspaces.isEmpty() || section.nextKeyspaceId != null || !section.more.isEmpty()) {
            throw new IllegalArgumentException("a section holds only one keyspace's files and range tombstones");
        }
        more.add(section);
        return this;
    }

    /** This edit and its further sections, in order. */
    public List<VersionEdit> sections() {
        if (more.isEmpty()) {
            return List.of(this);
        }
        List<VersionEdit> all = new ArrayList<>(more.size() + 1);
        all.add(this);
        all.addAll(more);
        return all;
    }

    /**
     * Makes the edit's files and range tombstones those of keyspace {@code id} (the default
     * keyspace's unless set): every edit changes the files of one keyspace.
     */
    public VersionEdit setKeyspace(int id) {
        if (id < 0) {
            throw new IllegalArgumentException("keyspace number must not be negative: " + id);
        }
        keyspace = id;
        return this;
    }

    public int keyspace() {
        return keyspace;
    }

    /** Records a new, empty keyspace {@code id} named {@code name}. */
    public VersionEdit createKeyspace(int id, String name) {
        createdKeyspaces.add(new CreatedKeyspace(id, name));
        return this;
    }

    public List<CreatedKeyspace> createdKeyspaces() {
        return Collections.unmodifiableList(createdKeyspaces);
    }

    /** Drops the edit's keyspace ({@link #setKeyspace}): the edit must delete every file it has left. */
    public VersionEdit dropKeyspace() {
        dropsKeyspace = true;
        return this;
    }

    public boolean dropsKeyspace() {
        return dropsKeyspace;
    }

    /** Keyspace numbers below this were used once and are never used again (a dropped keyspace's WAL records stay skipped). */
    public VersionEdit setNextKeyspaceId(int n) {
        nextKeyspaceId = n;
        return this;
    }

    /**
     * Records that keyspace {@link #keyspace()} needs no WAL segment below {@code n}: replay passes
     * over its records there (another keyspace may still need those segments, so they stay).
     */
    public VersionEdit setKeyspaceLogNumber(long n) {
        keyspaceLogNumber = n;
        return this;
    }

    public OptionalLong keyspaceLogNumber() {
        return keyspaceLogNumber == null ? OptionalLong.empty() : OptionalLong.of(keyspaceLogNumber);
    }

    public OptionalInt nextKeyspaceId() {
        return nextKeyspaceId == null ? OptionalInt.empty() : OptionalInt.of(nextKeyspaceId);
    }

    /** WAL segments numbered below this are no longer needed: their data is in tables. */
    public VersionEdit setLogNumber(long n) {
        logNumber = n;
        return this;
    }

    public VersionEdit setNextFileNumber(long n) {
        nextFileNumber = n;
        return this;
    }

    public VersionEdit setLastSequence(long n) {
        lastSequence = n;
        return this;
    }

    public VersionEdit addFile(int level, FileMetaData file) {
        added.add(new Added(level, file));
        return this;
    }

    public VersionEdit deleteFile(int level, long fileNumber) {
        deleted.add(new Deleted(level, fileNumber));
        return this;
    }

    /** Adds a range tombstone to the store-wide set (a flush of the memtable that took it). */
    public VersionEdit addRangeTombstone(RangeTombstone t) {
        addedTombstones.add(t);
        return this;
    }

    /** Removes the range tombstone of sequence number {@code sequence}: nothing it deletes is left. */
    public VersionEdit deleteRangeTombstone(long sequence) {
        deletedTombstones.add(sequence);
        return this;
    }

    public List<RangeTombstone> addedRangeTombstones() {
        return Collections.unmodifiableList(addedTombstones);
    }

    public List<Long> deletedRangeTombstones() {
        return Collections.unmodifiableList(deletedTombstones);
    }

    public OptionalLong logNumber() {
        return logNumber == null ? OptionalLong.empty() : OptionalLong.of(logNumber);
    }

    public OptionalLong nextFileNumber() {
        return nextFileNumber == null ? OptionalLong.empty() : OptionalLong.of(nextFileNumber);
    }

    public OptionalLong lastSequence() {
        return lastSequence == null ? OptionalLong.empty() : OptionalLong.of(lastSequence);
    }

    public List<Added> added() {
        return Collections.unmodifiableList(added);
    }

    public List<Deleted> deleted() {
        return Collections.unmodifiableList(deleted);
    }

    public byte[] encode() {
        RecordBuffer out = new RecordBuffer(64 + added.size() * 64);
        if (keyspace != DEFAULT_KEYSPACE) {
            out.putVarint(TAG_KEYSPACE).putVarint(keyspace);
        }
        if (nextKeyspaceId != null) {
            out.putVarint(TAG_NEXT_KEYSPACE_ID).putVarint(nextKeyspaceId);
        }
        for (CreatedKeyspace k : createdKeyspaces) {
            out.putVarint(TAG_CREATE_KEYSPACE).putVarint(k.id())
                    .putBytes(k.name().getBytes(java.nio.charset.StandardCharsets.UTF_8));
        }
        if (dropsKeyspace) {
            out.putVarint(TAG_DROP_KEYSPACE);
        }
        if (logNumber != null) {
            out.putVarint(TAG_LOG_NUMBER).putVarint(logNumber);
        }
        if (nextFileNumber != null) {
            out.putVarint(TAG_NEXT_FILE_NUMBER).putVarint(nextFileNumber);
        }
        if (lastSequence != null) {
            out.putVarint(TAG_LAST_SEQUENCE).putVarint(lastSequence);
        }
        encodeFiles(out);
        for (VersionEdit section : more) {
            out.putVarint(TAG_KEYSPACE).putVarint(section.keyspace);
            if (section.dropsKeyspace) {
                out.putVarint(TAG_DROP_KEYSPACE);
            }
            section.encodeFiles(out);
        }
        return out.toByteArray();
    }

    private void encodeFiles(RecordBuffer out) {
        if (keyspaceLogNumber != null) {
            out.putVarint(TAG_KEYSPACE_LOG_NUMBER).putVarint(keyspaceLogNumber);
        }
        for (Deleted d : deleted) {
            out.putVarint(TAG_DELETE_FILE).putVarint(d.level()).putVarint(d.fileNumber());
        }
        for (Added a : added) {
            FileMetaData f = a.file();
            out.putVarint(TAG_ADD_FILE).putVarint(a.level()).putVarint(f.fileNumber()).putVarint(f.fileSize())
                    .putVarint(f.filterFileSize()).putBytes(f.smallestKey()).putBytes(f.largestKey())
                    .putVarint(f.entries()).putVarint(f.smallestSeq()).putVarint(f.largestSeq());
        }
        for (long sequence : deletedTombstones) {
            out.putVarint(TAG_DELETE_RANGE_TOMBSTONE).putVarint(sequence);
        }
        for (RangeTombstone t : addedTombstones) {
            out.putVarint(TAG_ADD_RANGE_TOMBSTONE).putBytes(t.start()).putBytes(t.end()).putVarint(t.sequence());
        }
    }


    public static VersionEdit decode(byte[] record, Path file, long recordOffset) throws CorruptionException {
        RecordParser in = new RecordParser(record, file, recordOffset);
        VersionEdit top = new VersionEdit();
        VersionEdit e = top;
        boolean fresh = true;
        while (in.hasRemaining()) {
            long tag = in.getVarint();
            if (tag == TAG_KEYSPACE && !fresh) {
                // A further section: another keyspace's files, logged with the rest.
                e = new VersionEdit();
                top.more.add(e);
            }
            fresh = false;
            if (tag == TAG_LOG_NUMBER) {
                e.setLogNumber(in.getVarint());
            } else if (tag == TAG_NEXT_FILE_NUMBER) {
                e.setNextFileNumber(in.getVarint());
            } else if (tag == TAG_LAST_SEQUENCE) {
                e.setLastSequence(in.getVarint());
            } else if (tag == TAG_DELETE_FILE) {
                e.deleteFile(level(in), in.getVarint());
            } else if (tag == TAG_ADD_FILE) {
                int level = level(in);
                e.addFile(level, new FileMetaData(in.getVarint(), in.getVarint(), in.getVarint(), in.getBytes(),
                        in.getBytes(), in.getVarint(), in.getVarint(), in.getVarint()));
            } else if (tag == TAG_ADD_RANGE_TOMBSTONE) {
                byte[] start = in.getBytes();
                byte[] end = in.getBytes();
                long sequence = in.getVarint();
                if (java.util.Arrays.compareUnsigned(start, end) >= 0) {
                    throw in.corrupt("range tombstone whose start is not below its end");
                }
                e.addRangeTombstone(new RangeTombstone(start, end, sequence));
            } else if (tag == TAG_DELETE_RANGE_TOMBSTONE) {
                e.deleteRangeTombstone(in.getVarint());
            } else if (tag == TAG_KEYSPACE) {
                e.setKeyspace(keyspaceId(in));
            } else if (tag == TAG_KEYSPACE_LOG_NUMBER) {
                e.setKeyspaceLogNumber(in.getVarint());
            } else if (tag == TAG_NEXT_KEYSPACE_ID) {
                e.setNextKeyspaceId(keyspaceId(in));
            } else if (tag == TAG_CREATE_KEYSPACE) {
                int id = keyspaceId(in);
                byte[] name = in.getBytes();
                if (id == DEFAULT_KEYSPACE || name.length == 0) {
                    throw in.corrupt("keyspace creation with number " + id + " and a name of " + name.length
                            + " bytes");
                }
                e.createKeyspace(id, new String(name, java.nio.charset.StandardCharsets.UTF_8));
            } else if (tag == TAG_DROP_KEYSPACE) {
                if (e.keyspace == DEFAULT_KEYSPACE) {
                    throw in.corrupt("an edit drops the default keyspace");
                }
                e.dropKeyspace();
            } else {
                throw in.corrupt("unknown version edit tag " + tag);
            }
            if (e != top && (e.logNumber != null || e.lastSequence != null || e.nextFileNumber != null
                    || !e.createdKeyspaces.isEmpty() || e.nextKeyspaceId != null)) {
                throw in.corrupt("a keyspace section of an edit holds store-wide fields");
            }
        }
        return top;
    }

    private static int keyspaceId(RecordParser in) throws CorruptionException {
        long id = in.getVarint();
        if (id > Integer.MAX_VALUE) {
            throw in.corrupt("keyspace number " + id + " out of range");
        }
        return (int) id;
    }

    private static int level(RecordParser in) throws CorruptionException {
        int level = in.getVarint32();
        if (level >= Version.NUM_LEVELS) {
            throw in.corrupt("level " + level + " out of range");
        }
        return level;
    }

    @Override
    public String toString() {
        return "VersionEdit[" + (keyspace == DEFAULT_KEYSPACE ? "" : "keyspace=" + keyspace + ", ")
                + (createdKeyspaces.isEmpty() ? "" : "createdKeyspaces=" + createdKeyspaces + ", ")
                + (dropsKeyspace ? "drop, " : "") + (keyspaceLogNumber == null ? "" : "keyspaceLog="
                + keyspaceLogNumber + ", ") + "log=" + logNumber + ", nextFile=" + nextFileNumber + ", lastSeq=" + lastSequence
                + ", added=" + added + ", deleted=" + deleted
                + (addedTombstones.isEmpty() ? "" : ", addedRangeTombstones=" + addedTombstones)
                + (deletedTombstones.isEmpty() ? "" : ", deletedRangeTombstones=" + deletedTombstones) + "]";
    }
}
