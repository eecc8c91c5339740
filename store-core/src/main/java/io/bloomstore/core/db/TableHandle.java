package io.bloomstore.core.db;

import io.bloomstore.core.table.TableReader;
import java.io.IOException;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An open table shared by readers, closed (its filter unmapped, its file closed) when the last
 * reference goes: the {@link TableRegistry} holds one while the table is live, and each get or
 * iterator holds one while it reads. So a table dropped from the live set (store close, later
 * compaction) stays readable for iterators that still use it.
 *
 * <p>Thread safety: safe for concurrent use.
 */
final class TableHandle {
    private static final Logger LOG = LoggerFactory.getLogger(TableHandle.class);

    private final long fileNumber;
    private final TableReader reader;
    private final AtomicInteger refs = new AtomicInteger(1);

    TableHandle(long fileNumber, TableReader reader) {
        this.fileNumber = fileNumber;
        this.reader = reader;
    }

    long fileNumber() {
        return fileNumber;
    }

    TableReader reader() {
        return reader;
    }

    /** Takes a reference; false when the table is already closed. */
    boolean retain() {
        while (true) {
            int n = refs.get();
            if (n == 0) {
                return false;
            }
            if (refs.compareAndSet(n, n + 1)) {
                return true;
            }
        }
    }

    /** Drops a reference; the last one closes the table. */
    void release() {
        int n = refs.decrementAndGet();
        if (n == 0) {
            try {
                reader.close();
            } catch (IOException e) {
                LOG.warn("closing table {} failed", fileNumber, e);
            }
        } else if (n < 0) {
            throw new IllegalStateException("table " + fileNumber + " released more often than retained");
        }
    }
}
