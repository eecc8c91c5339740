package io.bloomstore.core.manifest;

import io.bloomstore.bloom.CorruptionException;
import io.bloomstore.core.rangedel.RangeTombstone;
import io.bloomstore.core.wal.RecordBuffer;
import io.bloomstore.core.wal.RecordParser;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
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
        if (logNumber != null) {
            out.putVarint(TAG_LOG_NUMBER).putVarint(logNumber);
        }
        if (nextFileNumber != null) {
            out.putVarint(TAG_NEXT_FILE_NUMBER).putVarint(nextFileNumber);
        }
        if (lastSequence != null) {
            out.putVarint(TAG_LAST_SEQUENCE).putVarint(lastSequence);
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
        return out.toByteArray();
    }

    public static VersionEdit decode(byte[] record, Path file, long recordOffset) throws CorruptionException {
        RecordParser in = new RecordParser(record, file, recordOffset);
        VersionEdit e = new VersionEdit();
        while (in.hasRemaining()) {
            long tag = in.getVarint();
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
            } else {
                throw in.corrupt("unknown version edit tag " + tag);
            }
        }
        return e;
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
        return "VersionEdit[log=" + logNumber + ", nextFile=" + nextFileNumber + ", lastSeq=" + lastSequence
                + ", added=" + added + ", deleted=" + deleted
                + (addedTombstones.isEmpty() ? "" : ", addedRangeTombstones=" + addedTombstones)
                + (deletedTombstones.isEmpty() ? "" : ", deletedRangeTombstones=" + deletedTombstones) + "]";
    }
}
