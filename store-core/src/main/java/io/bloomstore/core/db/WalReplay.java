package io.bloomstore.core.db;

import io.bloomstore.bloom.CorruptionException;
import io.bloomstore.core.WalRecovery;
import io.bloomstore.core.fs.FileSystem;
import io.bloomstore.core.fs.RandomReadFile;
import io.bloomstore.core.internal.ValueType;
import io.bloomstore.core.manifest.FileNames;
import io.bloomstore.core.memtable.MemTable;
import io.bloomstore.core.wal.BatchCodec;
import io.bloomstore.core.wal.LogFormat;
import io.bloomstore.core.wal.LogReader;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Recovery's second half: replays the WAL segments the manifest does not yet cover (numbered at or
 * above its log number), oldest first, into a memtable. Each record is one write batch, applied
 * whole or not at all. Recovery never leaves a hole: only a torn final record of the newest segment
 * holding records is dropped (it was never acknowledged as synced), and so is the torn final record
 * of an older one when no later segment holds a seal record, with every later segment (a crash
 * while that segment was synced after a memtable switch: nothing later was ever synced, so the
 * history ends at the tear), and likewise a gap at the start of a segment that neither holds nor
 * is followed by a seal record (the same crash, the older tail lost whole); any other damage, and any gap
 * in sequence numbers between consecutive records or segments (or between the manifest's last
 * sequence and the first record), is a {@link CorruptionException} naming file and offset — or,
 * with {@link WalRecovery#POINT_IN_TIME}, the end of what is replayed. Rules:
 * {@code docs/format/wal.md}.
 *
 * <p>Thread safety: used by the opening thread only.
 */
final class WalReplay {
    /** The logger, made on first use: a store that logs nothing never starts SLF4J (some 12 ms of a one-shot command). */
    private static final class Log {
        static final Logger LOG = LoggerFactory.getLogger(WalReplay.class);
    }

    private WalReplay() {
    }

    /**
     * The replayed entries, the largest sequence number seen (or the manifest's), what point-in-time
     * recovery dropped (null when nothing was), whether a torn final record was dropped, and the
     * last sequence number the replayed records account for (-1 when no segment holds a record),
     * and whether the newest segment ends with the clean-close mark: two seal records, the second
     * appended by a close only after its final sync succeeded (one segment holds at most one seal
     * otherwise). Only then were the segments' bytes durable when their writer let go of them: a
     * process that died may have left bytes in the page cache whose writeback failed, which Linux
     * reports only to descriptors open at the time, so a sync by the next process proves nothing.
     */
    record Result(MemTable memtable, Map<Integer, MemTable> keyspaceMemtables, long lastSequence, String dropped, boolean tornTail, long walEnd,
                  boolean closedCleanly) {
        /** Whether no keyspace's memtable holds anything. */
        boolean allEmpty() {
            if (!memtable.isEmpty()) {
                return false;
            }
            for (MemTable m : keyspaceMemtables.values()) {
                if (!m.isEmpty()) {
                    return false;
                }
            }
            return true;
        }

        /** What every keyspace's memtable holds, in bytes. */
        long approximateBytes() {
            long n = memtable.approximateBytes();
            for (MemTable m : keyspaceMemtables.values()) {
                n += m.approximateBytes();
            }
            return n;
        }

        /** Every segment read to its end, nothing dropped: the segments may be replayed again as they are. */
        boolean clean() {
            return dropped == null && !tornTail;
        }

        /**
         * Whether the replayed records reach {@code manifestLastSequence} (or there are none), so
         * that a new segment whose first write takes the sequence number after {@link #lastSequence}
         * may follow them without a gap. A flush's MANIFEST edit records the last sequence number
         * assigned, which may belong to writes no WAL sync reached: after a machine crash lost them,
         * the replayed segments end below it, and a segment written after them would start past
         * the lost numbers, a gap the next recovery reads as lost writes.
         */
        boolean reaches(long manifestLastSequence) {
            return walEnd < 0 || walEnd >= manifestLastSequence;
        }
    }

    private record Entry(int keyspace, byte[] key, long sequence, ValueType type, byte[] value) {
    }

    /**
     * Replays segments {@code walNumbers} into a memtable whose {@link MemTable#logNumber()} is
     * {@code memLogNumber}: the oldest segment holding its entries. For a store opened read-only
     * ({@code readOnly}) a {@linkplain MemTable#deferred deferred} one, which sorts the entries
     * only when a use needs them sorted.
     */
    static Result replay(FileSystem fs, Path dir, List<Long> walNumbers, long lastSequence, WalRecovery mode,
                         long memLogNumber, boolean readOnly) throws IOException {
        return replay(fs, dir, walNumbers, lastSequence, mode, memLogNumber, readOnly, Set.of(), Map.of());
    }

    /**
     * As {@link #replay(FileSystem, Path, List, long, WalRecovery, long, boolean)}, with the
     * entries of the keyspaces {@code keyspaces} (their numbers) replayed into a memtable each
     * ({@link Result#keyspaceMemtables}); entries of other keyspaces (dropped ones) are passed over,
     * and so are a keyspace's entries in segments below its {@code keyspaceLogNumbers} entry (its
     * tables hold them: it flushed while another keyspace still needed those segments).
     */
    static Result replay(FileSystem fs, Path dir, List<Long> walNumbers, long lastSequence, WalRecovery mode,
                         long memLogNumber, boolean readOnly, Set<Integer> keyspaces,
                         Map<Integer, Long> keyspaceLogNumbers) throws IOException {
        MemTable mem = readOnly ? MemTable.deferred(memLogNumber) : new MemTable(memLogNumber);
        Map<Integer, MemTable> kmems = new TreeMap<>();
        for (int id : keyspaces) {
            kmems.put(id, readOnly ? MemTable.deferred(memLogNumber) : new MemTable(memLogNumber));
        }
        boolean torn = false;
        long last = lastSequence;
        long walEnd = -1;
        // The next sequence number a record must start at; before the first record, at most this.
        long expected = lastSequence + 1;
        boolean first = true;
        // Seal records ending the segment read last: two mean a clean close (see Result).
        int sealsAtEnd = 0;
        // Segments read since the last record that held none: named when a gap follows them.
        List<String> empty = new ArrayList<>();
        for (int i = 0; i < walNumbers.size(); i++) {
            Path path = FileNames.wal(dir, walNumbers.get(i));
            empty.add(path.getFileName().toString());
            try (RandomReadFile file = fs.openRead(path)) {
                LogReader reader = new LogReader(file, path, LogFormat.WAL_MAGIC);
                boolean segmentStart = true;
                sealsAtEnd = 0;
                for (byte[] record = reader.next(); record != null; record = reader.next()) {
                    sealsAtEnd = BatchCodec.isSeal(record) ? sealsAtEnd + 1 : 0;
                    long offset = reader.lastRecordOffset();
                    Collected entries = new Collected();
                    long end = BatchCodec.decode(record, path, offset, entries);
                    long start = entries.isEmpty() ? end + 1 : entries.get(0).sequence();
                    if (!first && start != expected && segmentStart
                            && laterSegmentSealedOrDamaged(fs, dir, walNumbers, i - 1) == null) {
                        // A gap at the start of a segment that no sealed segment follows: this one and
                        // the later ones were never synced, and a crash kept some of their records but
                        // lost the older segment's tail whole. The history ends before them.
                        Log.LOG.warn("{}: sequence gap (starts at {}, the previous segment ended at {}) in segments never "
                                + "synced: dropped it and every later segment (a crash while the older one was synced "
                                + "after a memtable switch)", path, start, expected - 1);
                        return new Result(mem, kmems, last, null, true, walEnd, false);
                    }
                    if (first ? start > expected : start != expected) {
                        throw new CorruptionException(path, offset, "sequence gap: the batch starts at sequence "
                                + start + " but " + (first ? "the MANIFEST's last sequence is " + (expected - 1)
                                : "the previous batch ended at " + (expected - 1)) + " (a lost write"
                                + (empty.size() > 1 ? "; " + String.join(", ", empty.subList(0, empty.size() - 1))
                                + " held no records" : "") + ")");
                    }
                    first = false;
                    segmentStart = false;
                    empty.clear();
                    for (Entry e : entries) {
                        MemTable target = e.keyspace() == 0 ? mem : kmems.get(e.keyspace());
                        Long flushedBelow = keyspaceLogNumbers.get(e.keyspace());
                        if (target != null && (flushedBelow == null || walNumbers.get(i) >= flushedBelow)) {
                            target.add(e.key(), e.sequence(), e.type(), e.value());
                        }
                    }
                    expected = end + 1;
                    last = Math.max(last, end);
                    walEnd = end;
                }
                if (reader.droppedTailBytes() > 0) {
                    long tail = file.size() - reader.droppedTailBytes();
                    Path later = laterSegmentWithRecords(fs, dir, walNumbers, i);
                    if (later != null) {
                        Path sealed = laterSegmentSealedOrDamaged(fs, dir, walNumbers, i);
                        if (sealed != null) {
                            throw new CorruptionException(path, tail, "damaged final record ("
                                    + reader.droppedTailBytes() + " bytes) in a WAL segment followed by "
                                    + later.getFileName() + ", which holds records, and sealed by "
                                    + sealed.getFileName() + ": writes were lost in between");
                        }
                        // No later segment was ever synced (a segment's first sync waits for the
                        // older ones' and records that first): a crash during a memtable switch.
                        Log.LOG.warn("{}: dropped a torn final record ({} bytes at offset {}) and every later segment "
                                + "(from {} on, never synced): a crash while this segment was being synced after "
                                + "a memtable switch", path, reader.droppedTailBytes(), tail, later.getFileName());
                        return new Result(mem, kmems, last, null, true, walEnd, false);
                    }
                    Log.LOG.warn("{}: dropped a torn final record ({} bytes at offset {}), left by a crash during a write",
                            path, reader.droppedTailBytes(), tail);
                    torn = true;
                }
            } catch (CorruptionException e) {
                if (mode != WalRecovery.POINT_IN_TIME) {
                    throw e;
                }
                String dropped = describeDropped(fs, dir, walNumbers, i, e, expected);
                Log.LOG.warn("point-in-time WAL recovery: {}", dropped);
                return new Result(mem, kmems, last, dropped, torn, walEnd, false);
            }
        }
        return new Result(mem, kmems, last, null, torn, walEnd, !torn && sealsAtEnd >= 2);
    }

    /**
     * A batch's entries as decoded. A class, not a lambda: replay runs at every open, and a
     * one-shot command would pay the JVM's first lambda linkage here (some milliseconds).
     */
    private static final class Collected extends ArrayList<Entry> implements BatchCodec.EntryHandler {
        @Override
        public void entry(byte[] key, long sequence, ValueType type, byte[] value) {
            add(new Entry(0, key, sequence, type, value));
        }

        @Override
        public void entry(int keyspace, byte[] key, long sequence, ValueType type, byte[] value) {
            add(new Entry(keyspace, key, sequence, type, value));
        }
    }

    /** The first segment after index {@code i} that holds a record (or damage), or null. */
    private static Path laterSegmentWithRecords(FileSystem fs, Path dir, List<Long> walNumbers, int i)
            throws IOException {
        for (int j = i + 1; j < walNumbers.size(); j++) {
            Path path = FileNames.wal(dir, walNumbers.get(j));
            try (RandomReadFile file = fs.openRead(path)) {
                if (new LogReader(file, path, LogFormat.WAL_MAGIC).next() != null) {
                    return path;
                }
            } catch (CorruptionException e) {
                return path;
            }
        }
        return null;
    }

    /**
     * The first segment after index {@code i} holding a seal record (written only once every older
     * segment was synced) or damage, or null: then a torn tail in segment {@code i} is what a crash
     * during a memtable switch leaves, not damage.
     */
    private static Path laterSegmentSealedOrDamaged(FileSystem fs, Path dir, List<Long> walNumbers, int i)
            throws IOException {
        for (int j = i + 1; j < walNumbers.size(); j++) {
            Path path = FileNames.wal(dir, walNumbers.get(j));
            try (RandomReadFile file = fs.openRead(path)) {
                LogReader reader = new LogReader(file, path, LogFormat.WAL_MAGIC);
                for (byte[] record = reader.next(); record != null; record = reader.next()) {
                    if (BatchCodec.isSeal(record)) {
                        return path;
                    }
                }
            } catch (CorruptionException e) {
                return path;
            }
        }
        return null;
    }

    /**
     * What point-in-time recovery drops when it stops at {@code damage} in segment {@code i}: the
     * rest of that segment and every later one, with the highest sequence number still readable
     * in them (a best-effort scan that stops at each segment's damage).
     */
    private static String describeDropped(FileSystem fs, Path dir, List<Long> walNumbers, int i,
                                          CorruptionException damage, long firstDropped) throws IOException {
        long highest = -1;
        List<String> later = new ArrayList<>();
        for (int j = i + 1; j < walNumbers.size(); j++) {
            Path path = FileNames.wal(dir, walNumbers.get(j));
            later.add(path.getFileName().toString());
            try (RandomReadFile file = fs.openRead(path)) {
                LogReader reader = new LogReader(file, path, LogFormat.WAL_MAGIC);
                for (byte[] record = reader.next(); record != null; record = reader.next()) {
                    highest = Math.max(highest, BatchCodec.decode(record, path, reader.lastRecordOffset(),
                            new Collected()));
                }
            } catch (CorruptionException e) {
                // Best effort: what lies past damage in a dropped segment is unknown anyway.
            }
        }
        String range = highest >= firstDropped ? "sequences " + firstDropped + ".." + highest + " at least"
                : "sequences from " + firstDropped + " on (no later segment readable)";
        return "dropped " + damage.file().getFileName() + " from offset " + damage.offset()
                + (later.isEmpty() ? "" : " and the later segments " + String.join(", ", later)) + ": " + range
                + "; cause: " + damage.getMessage();
    }
}
