package io.bloomstore.core.db;

import io.bloomstore.core.WriteBatch;
import java.io.IOException;
import java.util.AbstractList;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Group commit: concurrent writers line up; the writer at the head becomes the leader, takes the
 * writers queued behind it (up to 1 MiB of batches) as its group, and commits them all with one
 * WAL write and at most one sync, while the followers wait. Then the next head leads. A barrier
 * (used by flush) is always committed alone.
 *
 * <p>Thread safety: safe for concurrent use; it owns the store's mutex and the condition on which
 * writers, flush and close wait for changes.
 */
final class WriteQueue {
    private static final long MAX_GROUP_BYTES = 1 << 20;

    static {
        preloadLockNodes();
    }

    /**
     * One queued write or barrier: a batch, or a single put ({@code key} and {@code value}) or
     * delete ({@code key}, value null) or merge ({@code merge}, the operand as {@code value})
     * without a batch around it, or a barrier (batch and key null); and its outcome, set by the
     * leader that commits it. One object per write (its outcome is not a second one): a put's
     * queue entry was a third of a writing process's garbage, which sizes the JVM's heap.
     */
    static final class Writer {
        private final WriteBatch batch;
        private final byte[] key;
        private final byte[] value;
        private final boolean merge;
        private final boolean sync;
        /** Set by the leader, under the mutex, when the writer's group is committed. */
        private boolean done;
        private Throwable failure;

        Writer(WriteBatch batch, byte[] key, byte[] value, boolean merge, boolean sync) {
            this.batch = batch;
            this.key = key;
            this.value = value;
            this.merge = merge;
            this.sync = sync;
        }

        WriteBatch batch() {
            return batch;
        }

        byte[] key() {
            return key;
        }

        byte[] value() {
            return value;
        }

        boolean merge() {
            return merge;
        }

        boolean sync() {
            return sync;
        }

        boolean barrier() {
            return batch == null && key == null;
        }

        /** Operations, each taking one sequence number. */
        int count() {
            return batch != null ? batch.count() : 1;
        }

        /** As {@link WriteBatch#approximateBytes()}. */
        long approximateBytes() {
            return batch != null ? batch.approximateBytes() : key.length + (value == null ? 0 : value.length) + 8;
        }
    }

    /**
     * A group of one, reused by every leader that commits alone (leaders run one at a time, and a
     * committer does not keep its group): a single-threaded writer's put allocates no list.
     */
    private static final class GroupOfOne extends AbstractList<Writer> {
        private Writer writer;

        @Override
        public Writer get(int index) {
            if (index != 0) {
                throw new IndexOutOfBoundsException(index);
            }
            return writer;
        }

        @Override
        public int size() {
            return 1;
        }
    }

    /** Commits a group; called by the leader with the mutex held. */
    interface Committer {
        void commit(List<Writer> group) throws IOException;
    }

    /** Work done by the leader with the mutex released. */
    interface IoRunnable {
        void run() throws IOException;
    }

    /** The message of the {@link IllegalStateException} a writer gets once the store is closed. */
    private final String closedMessage;
    private final ReentrantLock mutex = new ReentrantLock();
    private final Condition changed = mutex.newCondition();
    private final Deque<Writer> writers = new ArrayDeque<>();
    private final GroupOfOne groupOfOne = new GroupOfOne();

    /** {@code closedMessage}: what a writer is told once the store is closed (as {@link DbState#checkOpen()} says). */
    WriteQueue(String closedMessage) {
        this.closedMessage = closedMessage;
    }

    private boolean closed;

    ReentrantLock mutex() {
        return mutex;
    }

    void submit(WriteBatch batch, boolean sync, Committer committer) throws IOException {
        run(new Writer(batch, null, null, false, sync), committer);
    }

    /** Queues a single put ({@code value} non-null) or delete ({@code value} null) of {@code key}. */
    void submit(byte[] key, byte[] value, boolean sync, Committer committer) throws IOException {
        run(new Writer(null, key, value, false, sync), committer);
    }

    /** Queues a single merge of {@code operand} into {@code key}. */
    void submitMerge(byte[] key, byte[] operand, boolean sync, Committer committer) throws IOException {
        run(new Writer(null, key, operand, true, sync), committer);
    }

    /** Runs {@code committer} alone, after every write queued before it. */
    void submitBarrier(Committer committer) throws IOException {
        run(new Writer(null, null, null, false, false), committer);
    }

    private void run(Writer w, Committer committer) throws IOException {
        mutex.lock();
        try {
            if (closed) {
                throw new IllegalStateException(closedMessage);
            }
            writers.addLast(w);
            while (!w.done && writers.peekFirst() != w) {
                changed.awaitUninterruptibly();
            }
            if (w.done) {
                rethrow(w.failure);
                return;
            }
            // A writer alone in the queue (the single-threaded case) commits alone, with no list to build.
            List<Writer> group;
            if (w.barrier() || writers.size() == 1) {
                groupOfOne.writer = w;
                group = groupOfOne;
            } else {
                group = group(w);
            }
            Throwable failure = null;
            try {
                committer.commit(group);
            } catch (IOException | RuntimeException | Error e) {
                failure = e;
            }
            for (int i = 0, n = group.size(); i < n; i++) {
                Writer g = group.get(i);
                writers.pollFirst();
                g.failure = failure;
                g.done = true;
            }
            groupOfOne.writer = null;
            changed.signalAll();
            rethrow(failure);
        } finally {
            mutex.unlock();
        }
    }

    /** The leader {@code w} and the writers queued behind it, up to a barrier or {@link #MAX_GROUP_BYTES}. */
    private List<Writer> group(Writer w) {
        List<Writer> group = new ArrayList<>();
        group.add(w);
        long bytes = w.approximateBytes();
        for (Writer next : writers) {
            if (next == w) {
                continue;
            }
            if (next.barrier() || bytes + next.approximateBytes() > MAX_GROUP_BYTES) {
                break;
            }
            bytes += next.approximateBytes();
            group.add(next);
        }
        return group;
    }

    private static void rethrow(Throwable failure) throws IOException {
        if (failure instanceof IOException io) {
            throw io;
        }
        if (failure instanceof RuntimeException re) {
            throw re;
        }
        if (failure instanceof Error err) {
            throw err;
        }
    }

    /** Runs work with the mutex released (the leader's WAL write), then takes it back. */
    void unlocked(IoRunnable work) throws IOException {
        mutex.unlock();
        try {
            work.run();
        } finally {
            mutex.lock();
        }
    }

    /** With the mutex held: waits until another thread calls {@link #signalChange()}. */
    void awaitChange() {
        changed.awaitUninterruptibly();
    }

    /** With the mutex held: wakes every waiter (a flush finished, a writer group committed). */
    void signalChange() {
        changed.signalAll();
    }

    /** With the mutex held: refuses new writers, then waits for the queued ones to finish. */
    void closeAndDrain() {
        closed = true;
        while (!writers.isEmpty()) {
            changed.awaitUninterruptibly();
        }
    }

    /**
     * Loads the lock framework's queue-node classes once per JVM, before anything on the write
     * path is compiled. Until a thread first blocks on a lock (an exclusive node) and first waits
     * on a condition (a condition node), only one of them is loaded, and the JIT compiles the
     * lock's release assuming it is the only one; when the other loads — the first writer to wait
     * for the flush thread, or to queue behind a leader — every compiled method that inlined the
     * release, the whole put path, is thrown away and compiled again (a second or more of the one
     * C2 thread's time during a fresh JVM's first puts). A JDK without these classes loses nothing.
     */
    private static void preloadLockNodes() {
        for (String node : new String[] {"ExclusiveNode", "ConditionNode"}) {
            try {
                Class.forName("java.util.concurrent.locks.AbstractQueuedSynchronizer$" + node);
            } catch (ClassNotFoundException | LinkageError e) {
                // Another JDK's lock framework: nothing to preload.
            }
        }
    }
}
