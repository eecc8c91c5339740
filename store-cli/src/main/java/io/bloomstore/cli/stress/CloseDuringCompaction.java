package io.bloomstore.cli.stress;

import io.bloomstore.core.Store;
import io.bloomstore.core.StoreOptions;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * A stress cycle's close check: opens the store, starts a full compaction ({@code Store.compact})
 * on another thread, closes the store a moment later — usually while the compaction writes — and
 * requires that close returned only once nothing touches the directory any more: its listing
 * (names, sizes, modification times) right after close equals one taken {@value #SETTLE_MILLIS}
 * ms later, and the compaction's thread has ended. The data is unchanged (a compaction rewrites
 * nothing a reader sees), so the next cycle's check covers what the close left.
 *
 * <p>Thread safety: one check at a time.
 */
final class CloseDuringCompaction {
    static final long SETTLE_MILLIS = 200;

    /**
     * What one check saw: whether the close ended the compaction (cancelled it, or came before it
     * started: either way {@code compact()} failed), and the failure, or null.
     */
    record Result(boolean compactionInterrupted, String failure) {
    }

    private CloseDuringCompaction() {
    }

    /** Runs one check, closing {@code delayMillis} after the compaction starts. */
    static Result run(Path store, StoreOptions options, long delayMillis) throws IOException, InterruptedException {
        Store st = Store.open(store, options);
        Compactor compactor = new Compactor(st);
        Thread t = new Thread(compactor, "stress-compact");
        t.setDaemon(true);
        t.start();
        Thread.sleep(delayMillis);
        st.close();
        Map<String, String> closed = listing(store);
        Thread.sleep(SETTLE_MILLIS);
        Map<String, String> later = listing(store);
        t.join(10_000);
        if (t.isAlive()) {
            return new Result(false, "Store.compact() still ran 10 s after close returned");
        }
        if (!closed.equals(later)) {
            return new Result(compactor.failed, "files changed after close returned: " + difference(closed, later));
        }
        return new Result(compactor.failed, null);
    }

    private static Map<String, String> listing(Path dir) throws IOException {
        Map<String, String> out = new TreeMap<>();
        try (Stream<Path> files = Files.list(dir)) {
            for (Path p : (Iterable<Path>) files::iterator) {
                if (Files.isRegularFile(p)) {
                    out.put(p.getFileName().toString(), Files.size(p) + "@" + Files.getLastModifiedTime(p).toMillis());
                }
            }
        }
        return out;
    }

    private static String difference(Map<String, String> before, Map<String, String> after) {
        StringBuilder sb = new StringBuilder();
        for (Map.Entry<String, String> e : before.entrySet()) {
            if (!e.getValue().equals(after.get(e.getKey()))) {
                sb.append(e.getKey()).append(' ').append(e.getValue()).append(" -> ").append(after.get(e.getKey())).append("; ");
            }
        }
        for (String name : after.keySet()) {
            if (!before.containsKey(name)) {
                sb.append(name).append(" appeared; ");
            }
        }
        return sb.toString();
    }

    /** Runs the compaction; a close cancels it, which is what the check wants. */
    private static final class Compactor implements Runnable {
        private final Store store;
        volatile boolean failed;

        Compactor(Store store) {
            this.store = store;
        }

        @Override
        public void run() {
            try {
                store.compact();
            } catch (IOException | RuntimeException e) {
                failed = true;
            }
        }
    }
}
