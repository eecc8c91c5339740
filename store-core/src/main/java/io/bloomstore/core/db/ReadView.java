package io.bloomstore.core.db;

import io.bloomstore.core.manifest.Version;
import io.bloomstore.core.memtable.MemTable;
import java.util.List;

/**
 * What a read consults, captured together so that a memtable switch or flush between two steps of
 * a read can never hide data from it: the active memtable, the immutable memtables (oldest first)
 * and the table version. Replaced as a whole (RocksDB calls it a super-version).
 *
 * <p>Thread safety: immutable.
 */
record ReadView(MemTable mem, List<MemTable> immutables, Version version) {
}
