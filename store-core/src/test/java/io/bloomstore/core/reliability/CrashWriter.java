package io.bloomstore.core.reliability;

import io.bloomstore.core.Store;
import io.bloomstore.core.StoreOptions;
import io.bloomstore.core.fs.FaultInjectionFileSystem;
import io.bloomstore.core.fs.LocalFileSystem;
import io.bloomstore.core.LockedException;
import java.io.PrintStream;
import java.nio.file.Path;

/**
 * The child process of the crash tests. {@code write DIR SEED START ACKS} opens the store, prints
 * {@code open}, then applies {@link CrashHistory} operations from {@code START} on, appending
 * {@code ack I} to the file {@code ACKS} after operation {@code I} returned (one write call per
 * line: the operating system keeps it when the process is killed), until it is killed; now and
 * then it prints {@code compactions N}, the background compactions it has completed so far.
 * {@code write-held} does the same with every table creation delayed by 300 ms (through the
 * fault-injecting file system), so flushes fall behind and the store is killed with several
 * unflushed WAL segments. A seventh argument sets {@code walBufferBytes}.
 * {@code race DIR ID ACKS COUNT} opens the store (retrying while another process holds it), writes
 * {@code COUNT} synced puts of key {@code ID-I}, appending {@code ack I} after each, closes it and
 * exits: several of them started at once race to create the same new store.
 * {@code hold DIR} opens the store, prints {@code open} and waits for its standard input to
 * close, to keep the directory locked.
 *
 * <p>Thread safety: a program; single-threaded apart from the store's flush thread.
 */
public final class CrashWriter {
    /**
     * Small memtables so a run of a second flushes several tables and switches WAL segments, and
     * tiny levels (compaction at 2 level-0 tables, level 1 of 64 KiB, each level 4× the one above,
     * 16 KiB tables) so that background compactions run, and get killed, in most cycles.
     */
    static final StoreOptions OPTIONS = options(StoreOptions.defaults().maxBackgroundJobs());

    /** {@link #OPTIONS} with {@code jobs} compactions allowed at once. */
    static StoreOptions options(int jobs) {
        return options(jobs, 0);
    }

    /** {@link #options(int)} with writes that do not sync left in the process up to {@code walBuffer} bytes. */
    static StoreOptions options(int jobs, int walBuffer) {
        return StoreOptions.builder().walBufferBytes(walBuffer).memtableBytes(32 * 1024).blockSize(1024).l0Triggers(2, 8, 12)
                .baseLevelBytes(64 * 1024).levelSizeRatio(4).targetFileBytes(16 * 1024).maxBackgroundJobs(jobs)
                .parallelCompactionTrigger(0).build();
    }

    private CrashWriter() {
    }

    private static void race(Path dir, String id, Path acks, int count) throws Exception {
        long deadline = System.nanoTime() + 120_000_000_000L;
        Store store = null;
        while (store == null) {
            try {
                store = Store.open(dir, OPTIONS);
            } catch (LockedException e) {
                if (System.nanoTime() > deadline) {
                    throw e;
                }
                Thread.sleep(1 + (long) (Math.random() * 10));
            }
        }
        try (Store s = store; java.io.FileOutputStream ackFile = new java.io.FileOutputStream(acks.toFile(), true)) {
            for (int i = 0; i < count; i++) {
                s.put((id + "-" + i).getBytes(java.nio.charset.StandardCharsets.US_ASCII), new byte[] {(byte) i},
                        io.bloomstore.core.WriteOptions.SYNC);
                ackFile.write(("ack " + i + "\n").getBytes(java.nio.charset.StandardCharsets.US_ASCII));
            }
        }
    }

    public static void main(String[] args) throws Exception {
        PrintStream out = new PrintStream(new java.io.FileOutputStream(java.io.FileDescriptor.out), true, "US-ASCII");
        if (args[0].equals("race")) {
            race(Path.of(args[1]), args[2], Path.of(args[3]), Integer.parseInt(args[4]));
            return;
        }
        // write and write-held: DIR SEED FIRST-OPERATION ACKS [JOBS [WAL-BUFFER-BYTES]]
        StoreOptions options = args.length > 5
                ? options(Integer.parseInt(args[5]), args.length > 6 ? Integer.parseInt(args[6]) : 0) : OPTIONS;
        Store store;
        if (args[0].equals("write-held")) {
            FaultInjectionFileSystem fs = new FaultInjectionFileSystem(LocalFileSystem.INSTANCE, 1).beforeCreate(p -> {
                if (p.toString().endsWith(".sst")) {
                    try {
                        Thread.sleep(300);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
            });
            store = Store.open(fs, Path.of(args[1]), options);
        } else {
            store = Store.open(Path.of(args[1]), options);
        }
        out.println("open");
        if (args[0].equals("hold")) {
            while (System.in.read() >= 0) {
                Thread.onSpinWait();
            }
            store.close();
            return;
        }
        CrashHistory history = new CrashHistory(Long.parseLong(args[2]));
        java.io.FileOutputStream acks = new java.io.FileOutputStream(args[4], true);
        long compactions = 0;
        for (long i = Long.parseLong(args[3]); ; i++) {
            history.apply(store, i);
            acks.write(("ack " + i + "\n").getBytes(java.nio.charset.StandardCharsets.US_ASCII));
            if (i % 997 == 0) {
                store.flush();
            }
            if (i % 64 == 0 && store.stats().compactions() > compactions) {
                compactions = store.stats().compactions();
                out.println("compactions " + compactions);
            }
        }
    }
}
