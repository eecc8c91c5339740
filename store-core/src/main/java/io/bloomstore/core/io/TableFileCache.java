package io.bloomstore.core.io;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import io.bloomstore.core.fs.FileSystem;
import io.bloomstore.core.fs.RandomReadFile;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The store's open {@code .sst} files, bounded as LevelDB's and RocksDB's table cache bound them
 * ({@code max_open_files}): each table reader reads through a {@link RandomReadFile} from
 * {@link #open}, whose descriptor this cache opens on the first read, keeps in least-recently-used
 * order and closes when more than {@link #capacity()} are open. A read of an evicted table opens
 * the file again. The table's index, properties and filter stay in memory, so eviction costs one
 * {@code open} system call on the next block-cache miss, never a re-parse.
 *
 * <p>A file is pinned for the length of each read: eviction skips pinned files, so a read in
 * flight never loses its descriptor (when every open file is pinned the cache runs over its
 * capacity until the reads finish). Closing a file from {@link #open} during a read defers the
 * descriptor's close to the read's end.
 *
 * <p>With capacity {@link #UNBOUNDED} the files are plain open files, with no bookkeeping per
 * read. With direct reads, files are opened through {@link FileSystem#openReadDirect}; a file
 * system that refuses (tmpfs refuses O_DIRECT) is read through the page cache, logged once.
 *
 * <p>Thread safety: safe for concurrent use. Lock order: a file's own monitor, then the cache's.
 */
public final class TableFileCache {
    /** Capacity meaning: keep every table file open. */
    public static final int UNBOUNDED = -1;

    /** The logger, made on first use: a store that logs nothing never starts SLF4J (some 12 ms of a one-shot command). */
    private static final class Log {
        static final Logger LOG = LoggerFactory.getLogger(TableFileCache.class);
    }

    private final FileSystem fs;
    private final int capacity;
    private final boolean directReads;
    /** Open (descriptor held) files, least recently used first. Guarded by {@code this}. */
    private final LinkedHashMap<CachedFile, Boolean> lru = new LinkedHashMap<>(64, 0.75f, true);
    private final AtomicLong opens = new AtomicLong();
    private final AtomicLong evictions = new AtomicLong();
    private volatile boolean directRefused;

    /**
     * @param capacity    table files kept open at most (beyond pinned ones), or {@link #UNBOUNDED}
     * @param directReads whether to open files for reads that bypass the page cache
     */
    public TableFileCache(FileSystem fs, int capacity, boolean directReads) {
        if (capacity != UNBOUNDED && capacity < 1) {
            throw new IllegalArgumentException("table file cache capacity must be at least 1 or " + UNBOUNDED
                    + ": " + capacity);
        }
        this.fs = fs;
        this.capacity = capacity;
        this.directReads = directReads;
    }

    /** A cache of no bound without direct reads: every file stays open, as before there was a bound. */
    public static TableFileCache unbounded(FileSystem fs) {
        return new TableFileCache(fs, UNBOUNDED, false);
    }

    /**
     * A readable handle on {@code path}; the caller must close it. Unbounded caches open the file
     * now; bounded ones on the first read.
     */
    public RandomReadFile open(Path path) throws IOException {
        if (capacity == UNBOUNDED) {
            return openFile(path);
        }
        CachedFile f = new CachedFile(path);
        RandomReadFile pinned = f.pin();
        try {
            f.size = pinned.size();
        } finally {
            f.unpin();
        }
        return f;
    }

    public int capacity() {
        return capacity;
    }

    /** Table files whose descriptor this cache holds now (bounded caches only; 0 otherwise). */
    public synchronized int openFiles() {
        return lru.size();
    }

    /** Descriptors opened so far (bounded caches only): the first open of each file and every reopen. */
    public long opens() {
        return opens.get();
    }

    /** Descriptors closed to stay within capacity (bounded caches only). */
    public long evictions() {
        return evictions.get();
    }

    /** Whether reads bypass the page cache: asked for, and not refused by the file system. */
    public boolean directReads() {
        return directReads && !directRefused;
    }

    private RandomReadFile openFile(Path path) throws IOException {
        if (!directReads || directRefused) {
            return fs.openRead(path);
        }
        try {
            return fs.openReadDirect(path);
        } catch (UnsupportedOperationException | IOException e) {
            // A plain open fails too when the cause is not O_DIRECT (a missing file, no descriptors
            // left): that failure is the one to report.
            RandomReadFile plain = fs.openRead(path);
            if (!directRefused) {
                directRefused = true;
                Log.LOG.warn("direct reads refused by the file system of {} ({}): table files are read through the"
                        + " page cache", path.getParent(), e.toString());
            }
            return plain;
        }
    }

    /** Closes (outside every lock) descriptors taken out of the cache. */
    private static void closeAll(List<RandomReadFile> files) throws IOException {
        IOException failure = null;
        for (RandomReadFile f : files) {
            try {
                f.close();
            } catch (IOException e) {
                if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        if (failure != null) {
            throw failure;
        }
    }

    /** With the cache's lock held: takes unpinned files out, eldest first, until within capacity. */
    private List<RandomReadFile> evictOverCapacity() {
        List<RandomReadFile> out = new ArrayList<>();
        Iterator<CachedFile> it = lru.keySet().iterator();
        while (lru.size() - out.size() > capacity && it.hasNext()) {
            CachedFile f = it.next();
            if (f.pins == 0) {
                it.remove();
                out.add(f.file);
                f.file = null;
                evictions.incrementAndGet();
            }
        }
        return out;
    }

    /** One table file of a bounded cache: a descriptor held or not, pinned by the reads in flight. */
    private final class CachedFile implements RandomReadFile {
        private final Path path;
        private long size;
        /** Guarded by the cache. */
        private RandomReadFile file;
        /** Guarded by the cache. */
        private int pins;
        /** Guarded by the cache. */
        private boolean closed;

        CachedFile(Path path) {
            this.path = path;
        }

        // Pinned around each read by hand: a lambda per call would be spun at a process's first
        // read and allocated at every read.
        @Override
        public int read(long position, ByteBuffer dst) throws IOException {
            RandomReadFile pinned = pin();
            try {
                return pinned.read(position, dst);
            } finally {
                unpin();
            }
        }

        @Override
        public void readFully(long position, ByteBuffer dst) throws IOException {
            RandomReadFile pinned = pin();
            try {
                pinned.readFully(position, dst);
            } finally {
                unpin();
            }
        }

        @Override
        public long size() {
            return size;
        }

        private RandomReadFile tryPin() throws ClosedChannelException {
            synchronized (TableFileCache.this) {
                if (closed) {
                    throw new ClosedChannelException();
                }
                if (file == null) {
                    return null;
                }
                lru.get(this);
                pins++;
                return file;
            }
        }

        private RandomReadFile pin() throws IOException {
            RandomReadFile pinned = tryPin();
            if (pinned != null) {
                return pinned;
            }
            synchronized (this) {
                pinned = tryPin();
                if (pinned != null) {
                    return pinned;
                }
                RandomReadFile opened = openFile(path);
                opens.incrementAndGet();
                List<RandomReadFile> evicted;
                synchronized (TableFileCache.this) {
                    if (closed) {
                        evicted = List.of(opened);
                        opened = null;
                    } else {
                        file = opened;
                        pins++;
                        lru.put(this, Boolean.TRUE);
                        evicted = evictOverCapacity();
                    }
                }
                closeAll(evicted);
                if (opened == null) {
                    throw new ClosedChannelException();
                }
                return opened;
            }
        }

        private void unpin() throws IOException {
            List<RandomReadFile> toClose;
            synchronized (TableFileCache.this) {
                pins--;
                if (pins == 0 && closed) {
                    lru.remove(this);
                    toClose = List.of(file);
                    file = null;
                } else {
                    // Files opened while every other one was pinned put the cache over capacity.
                    toClose = lru.size() > capacity ? evictOverCapacity() : List.of();
                }
            }
            if (!toClose.isEmpty()) {
                closeAll(toClose);
            }
        }

        @Override
        public void close() throws IOException {
            RandomReadFile toClose = null;
            synchronized (TableFileCache.this) {
                if (closed) {
                    return;
                }
                closed = true;
                if (pins == 0 && file != null) {
                    lru.remove(this);
                    toClose = file;
                    file = null;
                }
            }
            if (toClose != null) {
                toClose.close();
            }
        }

        @Override
        public String toString() {
            return path.toString();
        }
    }
}
