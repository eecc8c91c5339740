package io.bloomstore.core.db;

import io.bloomstore.bloom.CorruptionException;
import io.bloomstore.core.fs.RandomReadFile;
import io.bloomstore.core.internal.ValueType;
import io.bloomstore.core.memtable.MemTable;
import io.bloomstore.core.wal.BatchCodec;
import io.bloomstore.core.wal.LogFormat;
import io.bloomstore.core.wal.LogReader;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Follows the WAL segments of a store another process is writing, for a secondary view
 * ({@link SecondaryView}): the segments' records, oldest first, into a memtable, up to the first
 * record that is not there yet, and from there on at the next {@link #readOn}. Unlike recovery
 * ({@link WalReplay}), which reads segments nobody writes any more, what ends a read here is not
 * damage but the present: an incomplete or checksum-failing record (the primary is appending it),
 * a gap in sequence numbers (a newer segment whose predecessor's last writes are not in its file
 * yet), or a checksum error inside a segment (logged: either the segment is damaged, which the
 * primary's own recovery reports, or a read raced a write). So the records read are always a
 * gap-free prefix of the primary's history from the MANIFEST's last sequence on, and the position
 * kept — the segment and the offset just past the last record applied — is where the next read
 * begins: a torn record is read again from its start once it is whole, and nothing before it is
 * read twice (RocksDB's secondary reads on from where it stopped the same way). Format:
 * {@code docs/format/wal.md}.
 *
 * <p>Thread safety: used by one thread at a time (the secondary's catch-ups run one at a time);
 * the memtable it fills may be read meanwhile, the entries hidden until their sequence is published.
 */
final class WalTail {
    /** The logger, made on first use. */
    private static final class Log {
        static final Logger LOG = LoggerFactory.getLogger(WalTail.class);
    }

    /** A segment opened for a read: its number, its path (for messages) and its open descriptor. */
    record Segment(long number, Path path, RandomReadFile file) {
    }

    private final MemTable mem;
    /** The other keyspaces' memtables, by number: those the view's MANIFEST holds (others' records are passed over). */
    private final java.util.Map<Integer, MemTable> keyspaceMems = new java.util.TreeMap<>();
    /** Per keyspace, the segment its records start to count at (its tables hold those before). */
    private final java.util.Map<Integer, Long> keyspaceLogNumbers;
    /** The sequence the next record must start at (after the first, which may start at or below it). */
    private long expected;
    private long last;
    private boolean first = true;
    /** The segment of the last record applied, and the offset just past it; -1 and 0 before any. */
    private long segment = -1;
    private long offset;
    private boolean addedRangeDeletions;

    /**
     * A follower of the WAL after {@code manifestLastSequence}, into a deferred memtable numbered
     * {@code memLogNumber}. The first record may start at or below {@code manifestLastSequence + 1}
     * (the memtable's older entries may be in tables too: a table's version wins only when newer); a
     * first record past it means the segment that held the writes in between is gone, which
     * {@link SecondaryView} rules out before the first read.
     */
    WalTail(long manifestLastSequence, long memLogNumber) {
        this(manifestLastSequence, memLogNumber, java.util.Set.of(), java.util.Map.of());
    }

    /**
     * As {@link #WalTail(long, long)}, with a memtable for each keyspace of {@code keyspaces} besides
     * the default one, each keyspace's records in segments below its {@code keyspaceLogNumbers}
     * entry passed over (its tables hold them).
     */
    WalTail(long manifestLastSequence, long memLogNumber, java.util.Set<Integer> keyspaces,
            java.util.Map<Integer, Long> keyspaceLogNumbers) {
        this.mem = MemTable.deferred(memLogNumber);
        this.keyspaceLogNumbers = keyspaceLogNumbers;
        for (int id : keyspaces) {
            keyspaceMems.put(id, MemTable.deferred(memLogNumber));
        }
        this.expected = manifestLastSequence + 1;
        this.last = manifestLastSequence;
    }

    MemTable memtable() {
        return mem;
    }

    /** The memtables of the keyspaces other than the default one, by number. */
    java.util.Map<Integer, MemTable> keyspaceMemtables() {
        return keyspaceMems;
    }

    /** The last sequence number applied (the MANIFEST's before any). */
    long lastSequence() {
        return last;
    }

    /** The segment the next read begins in (the oldest segment when none has been read): -1 before any. */
    long segment() {
        return segment;
    }

    /** The offset just past the last record applied, in {@link #segment()}. */
    long offset() {
        return offset;
    }

    /** Whether a range deletion was applied since the last call (the view gathers its tombstones again). */
    boolean takeRangeDeletions() {
        boolean r = addedRangeDeletions;
        addedRangeDeletions = false;
        return r;
    }

    /**
     * Reads on in {@code segments} (oldest first, each opened now; any before the current segment
     * are passed over): from the current segment's offset, then each newer one from its start,
     * until a record is not there yet or the segments end.
     * REQUIRES: the current segment, when there is one, is first and at least {@link #offset()} long.
     */
    void readOn(List<Segment> segments) throws IOException {
        for (Segment s : segments) {
            if (s.number() < segment) {
                continue;
            }
            LogReader reader;
            try {
                reader = s.number() == segment ? LogReader.resume(s.file(), s.path(), offset)
                        : new LogReader(s.file(), s.path(), LogFormat.WAL_MAGIC);
            } catch (CorruptionException e) {
                stopped(s.path() + ": header not complete yet");
                return;
            }
            try {
                for (byte[] record = reader.next(); record != null; record = reader.next()) {
                    Collected entries = new Collected();
                    long end = BatchCodec.decode(record, s.path(), reader.lastRecordOffset(), entries);
                    long start = entries.isEmpty() ? end + 1 : entries.get(0).sequence();
                    if (first ? start > expected : start != expected) {
                        stopped(s.path() + " offset " + reader.lastRecordOffset() + ": sequence "
                                + start + " where " + expected + " comes next");
                        return;
                    }
                    first = false;
                    for (Entry e : entries) {
                        MemTable target = e.keyspace() == 0 ? mem : keyspaceMems.get(e.keyspace());
                        Long flushedBelow = keyspaceLogNumbers.get(e.keyspace());
                        if (target == null || flushedBelow != null && s.number() < flushedBelow) {
                            // A keyspace this view's MANIFEST does not hold (dropped, or newer), or a
                            // record its tables hold already.
                            continue;
                        }
                        target.add(e.key(), e.sequence(), e.type(), e.value());
                        addedRangeDeletions |= e.type() == ValueType.RANGE_DELETION;
                    }
                    expected = end + 1;
                    last = Math.max(last, end);
                    segment = s.number();
                    offset = reader.position();
                }
            } catch (CorruptionException e) {
                Log.LOG.warn("secondary view: stopped at damage in {} (the primary's own recovery reports it if it "
                        + "stays): {}", s.path(), e.getMessage());
                return;
            }
            if (reader.droppedTailBytes() > 0) {
                stopped(s.path() + ": its last record is not complete yet ("
                        + reader.droppedTailBytes() + " bytes)");
                return;
            }
        }
    }

    /** Ends a read before the end of the segments: the rest is not there yet. */
    private static void stopped(String why) {
        if (Log.LOG.isDebugEnabled()) {
            Log.LOG.debug("secondary view: WAL read until {}", why);
        }
    }

    private record Entry(int keyspace, byte[] key, long sequence, ValueType type, byte[] value) {
    }

    /** A batch's entries as decoded (a class, not a lambda: the CLI's one-shot reads link none). */
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
}
