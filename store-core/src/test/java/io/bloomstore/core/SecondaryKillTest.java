package io.bloomstore.core;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A secondary of a primary in another process (a child JVM writing, flushing and compacting):
 * it opens although the child holds the store's lock, every catch-up is a consistent prefix
 * holding every write the child reported synced, and after the child is killed with kill -9
 * ({@link Process#destroyForcibly()}) mid-write the secondary catches up to what it left (a torn
 * last WAL record is "not there yet"), and the store then opens for writing with at least that.
 */
class SecondaryKillTest {
    private static final int KEYS = 300;

    @TempDir
    Path tmp;

    @Test
    void readsAPrimaryInAnotherProcessBeforeAndAfterItIsKilled() throws Exception {
        Path dir = tmp.resolve("db");
        Process child = start(dir);
        AtomicLong synced = new AtomicLong(-1);
        Thread reader = new Thread(new SyncedReader(child, synced), "child-output");
        reader.setDaemon(true);
        reader.start();
        long newest;
        try {
            long deadline = System.nanoTime() + 60_000_000_000L;
            while (synced.get() < 2000 && System.nanoTime() < deadline && child.isAlive()) {
                Thread.sleep(10);
            }
            assertTrue(synced.get() >= 2000, "the child wrote " + synced.get());
            try (Store locked = Store.open(dir)) {
                throw new AssertionError("the child holds the lock, yet the store opened: " + locked);
            } catch (LockedException expected) {
                // The child is the primary.
            }
            // What was acknowledged before the open: the view is as of the open, and the child writes on.
            long beforeOpen = synced.get();
            try (SecondaryStore sec = Store.openSecondary(dir, tmp.resolve("scratch"))) {
                newest = SecondaryChecks.checkPrefix(sec, KEYS, beforeOpen);
                for (int round = 0; round < 10; round++) {
                    Thread.sleep(50);
                    long before = synced.get();
                    sec.catchUp();
                    newest = Math.max(newest, SecondaryChecks.checkPrefix(sec, KEYS, before));
                }
                child.destroyForcibly();
                assertTrue(child.waitFor(30, TimeUnit.SECONDS));
                reader.join(10_000);
                long lastSynced = synced.get();
                sec.catchUp();
                newest = SecondaryChecks.checkPrefix(sec, KEYS, lastSynced);
            }
        } finally {
            child.destroyForcibly();
            child.waitFor(30, TimeUnit.SECONDS);
        }
        try (Store reopened = Store.open(dir)) {
            long recovered = SecondaryChecks.checkPrefix(reopened, KEYS, -1);
            assertTrue(recovered >= newest, "recovery kept " + recovered + ", the secondary saw " + newest);
        }
    }

    private static Process start(Path dir) throws IOException {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(SecondaryPrimaryProgram.class.getName());
        cmd.add(dir.toString());
        cmd.add(Integer.toString(KEYS));
        return new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.DISCARD).start();
    }

    /** Follows the child's {@code synced I} lines. */
    private static final class SyncedReader implements Runnable {
        private final Process child;
        private final AtomicLong synced;

        SyncedReader(Process child, AtomicLong synced) {
            this.child = child;
            this.synced = synced;
        }

        @Override
        public void run() {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(child.getInputStream(),
                    StandardCharsets.UTF_8))) {
                for (String line = r.readLine(); line != null; line = r.readLine()) {
                    if (line.startsWith("synced ")) {
                        synced.set(Long.parseLong(line.substring(7)));
                    }
                }
            } catch (IOException e) {
                // The child was killed.
            }
        }
    }
}
