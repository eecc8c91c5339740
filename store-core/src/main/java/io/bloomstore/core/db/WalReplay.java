package io.bloomstore.core.db;

import io.bloomstore.core.fs.FileSystem;
import io.bloomstore.core.fs.RandomReadFile;
import io.bloomstore.core.manifest.FileNames;
import io.bloomstore.core.memtable.MemTable;
import io.bloomstore.core.wal.BatchCodec;
import io.bloomstore.core.wal.LogFormat;
import io.bloomstore.core.wal.LogReader;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Recovery's second half: replays the WAL segments the manifest does not yet cover (numbered at or
 * above its log number), oldest first, into a memtable. Each record is one write batch, applied
 * whole or not at all; a torn final record is dropped (it was never acknowledged as synced).
 *
 * <p>Thread safety: used by the opening thread only.
 */
final class WalReplay {
    private static final Logger LOG = LoggerFactory.getLogger(WalReplay.class);

    private WalReplay() {
    }

    /** The replayed entries, and the largest sequence number seen (or {@code lastSequence}). */
    record Result(MemTable memtable, long lastSequence) {
    }

    static Result replay(FileSystem fs, Path dir, List<Long> walNumbers, long lastSequence) throws IOException {
        MemTable mem = new MemTable(0);
        long last = lastSequence;
        for (long number : walNumbers) {
            Path path = FileNames.wal(dir, number);
            try (RandomReadFile file = fs.openRead(path)) {
                LogReader reader = new LogReader(file, path, LogFormat.WAL_MAGIC);
                for (byte[] record = reader.next(); record != null; record = reader.next()) {
                    long end = BatchCodec.decode(record, path, reader.lastRecordOffset(), mem::add);
                    last = Math.max(last, end);
                }
                if (reader.droppedTailBytes() > 0) {
                    LOG.warn("{}: dropped a torn final record ({} bytes), left by a crash during a write", path,
                            reader.droppedTailBytes());
                }
            }
        }
        return new Result(mem, last);
    }
}
