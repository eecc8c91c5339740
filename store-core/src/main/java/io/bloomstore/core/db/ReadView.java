package io.bloomstore.core.db;

import io.bloomstore.core.manifest.Version;
import io.bloomstore.core.memtable.MemTable;
import io.bloomstore.core.rangedel.RangeTombstone;
import io.bloomstore.core.rangedel.RangeTombstones;
import java.util.ArrayList;
import java.util.List;

/**
 * What a read consults, captured together so that a memtable switch, flush or compaction between
 * two steps of a read can never hide data from it: the active memtable, the immutable memtables
 * (oldest first), the table version with its open tables, and every live range tombstone (the
 * version's and the memtables'), fragmented once per view rather than per read. Replaced as a whole
 * (RocksDB calls it a super-version); a reader retains {@link #tables()} while it reads.
 *
 * <p>Thread safety: immutable.
 */
record ReadView(MemTable mem, List<MemTable> immutables, VersionRef tables, RangeTombstones rangeDeletions) {

    /** Every view's memtables are held by its version for as long as a reader may hold the view. */
    ReadView {
        tables.holdMemtables(mem, immutables);
    }

    /** The view of these memtables and tables, with their range tombstones gathered. */
    static ReadView of(MemTable mem, List<MemTable> immutables, VersionRef tables) {
        return new ReadView(mem, immutables, tables, gather(mem, immutables, tables.version()));
    }

    /** This view with the active memtable's range tombstones gathered again (after a write added one). */
    ReadView withMemtableRangeDeletions() {
        return new ReadView(mem, immutables, tables, gather(mem, immutables, tables.version()));
    }

    private static RangeTombstones gather(MemTable mem, List<MemTable> immutables, Version version) {
        boolean any = mem.hasRangeDeletions();
        for (MemTable m : immutables) {
            any |= m.hasRangeDeletions();
        }
        if (!any) {
            return version.rangeTombstones();
        }
        List<RangeTombstone> more = new ArrayList<>(mem.rangeDeletions());
        for (MemTable m : immutables) {
            more.addAll(m.rangeDeletions());
        }
        return version.rangeTombstones().plus(more);
    }

    Version version() {
        return tables.version();
    }
}
