package io.bloomstore.core.db;

import io.bloomstore.core.manifest.Version;
import io.bloomstore.core.memtable.MemTable;
import java.util.List;

/**
 * What a read consults, captured together so that a memtable switch, flush or compaction between
 * two steps of a read can never hide data from it: the active memtable, the immutable memtables
 * (oldest first) and the table version with its open tables. Replaced as a whole (RocksDB calls it
 * a super-version); a reader retains {@link #tables()} while it reads.
 *
 * <p>Thread safety: immutable.
 */
record ReadView(MemTable mem, List<MemTable> immutables, VersionRef tables) {

    Version version() {
        return tables.version();
    }
}
