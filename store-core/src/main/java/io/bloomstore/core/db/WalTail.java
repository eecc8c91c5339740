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
 * Replays the WAL segments of a store another process is writing, for a secondary view
 * ({@link SecondaryView}): the segments' records, oldest first, into a memtable, up to the first
 * record that is not there yet. Unlike recovery ({@link WalReplay}), which reads segments nobody
 * writes any more, what ends the replay here is not damage but the present: an incomplete or
 * checksum-failing record (the primary is appending it), a gap in sequence numbers (a segment this
 * replay found before the one that precedes it), or a checksum error inside a segment (logged once:
 * either the primary is rewriting nothing and the segment is damaged, which the primary's own
 * recovery reports, or a read raced a write). What follows is left for a later catch-up. So the
 * replayed records are always a gap-free prefix of the primary's history from the MANIFEST's last
 * sequence on. Format: {@code docs/format/wal.md}.
 *
 * <p>Thread safety: used by one thread, the one making the view.
 */
final class WalTail {
    /** The logger, made on first use. */
    private static final class Log {
        static final Logger LOG = LoggerFactory.getLogger(WalTail.class);
    }

    private WalTail() {
    }

    /**
     * What a replay found: the memtable, the last sequence number it holds (or the MANIFEST's), and
     * why it stopped before the end of the segments (null when it read them all).
     */
    record Result(MemTable memtable, long lastSequence, String stoppedAt) {
    }

    /** A segment opened for the replay: its path, for messages, and its open descriptor. */
    record Segment(Path path, RandomReadFile file) {
    }

    /**
     * Replays {@code segments} (oldest first) after {@code manifestLastSequence} into a deferred
     * memtable numbered {@code memLogNumber}. A first record starting at or below
     * {@code manifestLastSequence + 1} is expected (the memtable's older entries may be in tables
     * too: a table's version wins only when newer); a first record past it means the segment that
     * held the writes in between is gone, which {@link SecondaryView} rules out before calling this.
     */
    static Result replay(List<Segment> segments, long manifestLastSequence, long memLogNumber) throws IOException {
        MemTable mem = MemTable.deferred(memLogNumber);
        long expected = manifestLastSequence + 1;
        long last = manifestLastSequence;
        boolean first = true;
        for (Segment s : segments) {
            LogReader reader;
            try {
                reader = new LogReader(s.file(), s.path(), LogFormat.WAL_MAGIC);
            } catch (CorruptionException e) {
                return stopped(mem, last, s.path() + ": header not complete yet");
            }
            try {
                for (byte[] record = reader.next(); record != null; record = reader.next()) {
                    Collected entries = new Collected();
                    long end = BatchCodec.decode(record, s.path(), reader.lastRecordOffset(), entries);
                    long start = entries.isEmpty() ? end + 1 : entries.get(0).sequence();
                    if (first ? start > expected : start != expected) {
                        return stopped(mem, last, s.path() + " offset " + reader.lastRecordOffset()
                                + ": sequence " + start + " where " + expected + " comes next");
                    }
                    first = false;
                    for (Entry e : entries) {
                        mem.add(e.key(), e.sequence(), e.type(), e.value());
                    }
                    expected = end + 1;
                    last = Math.max(last, end);
                }
            } catch (CorruptionException e) {
                Log.LOG.warn("secondary view: stopped at damage in {} (the primary's own recovery reports it if it "
                        + "stays): {}", s.path(), e.getMessage());
                return stopped(mem, last, e.getMessage());
            }
            if (reader.droppedTailBytes() > 0) {
                return stopped(mem, last, s.path() + ": its last record is not complete yet ("
                        + reader.droppedTailBytes() + " bytes)");
            }
        }
        return new Result(mem, last, null);
    }

    private static Result stopped(MemTable mem, long last, String why) {
        return new Result(mem, last, why);
    }

    private record Entry(byte[] key, long sequence, ValueType type, byte[] value) {
    }

    /** A batch's entries as decoded (a class, not a lambda: the CLI's one-shot reads link none). */
    private static final class Collected extends ArrayList<Entry> implements BatchCodec.EntryHandler {
        @Override
        public void entry(byte[] key, long sequence, ValueType type, byte[] value) {
            add(new Entry(key, sequence, type, value));
        }
    }
}
