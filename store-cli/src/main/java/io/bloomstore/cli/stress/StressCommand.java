package io.bloomstore.cli.stress;

import io.bloomstore.cli.CliException;
import io.bloomstore.cli.ExitCodes;
import io.bloomstore.cli.Json;
import io.bloomstore.cli.Main;
import io.bloomstore.cli.bench.ChildJvm;
import io.bloomstore.core.Store;
import io.bloomstore.core.StoreVerifier;
import io.bloomstore.core.VerifyReport;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code bloomstore stress}: the crash test (RocksDB's db_crashtest). Each cycle starts a
 * {@link StressChild} JVM on the store {@code DIR/store}, with writer and reader threads, and kills
 * it with SIGKILL at a random moment; with {@code --power-loss} it then drops what the child had
 * not made durable ({@link PowerLoss}, from the journal of its {@link SyncJournalFileSystem}). Then
 * it opens the store and checks it against the expected state ({@link CycleCheck}): every
 * acknowledged write that must survive is there, every key holds a value that was written to it,
 * recovery kept a prefix of each thread's writes; and {@link StoreVerifier} finds the store clean.
 * The first failing cycle stops the run and leaves {@code DIR} as it was for inspection. Exit code
 * 0 only when nothing was lost, {@link ExitCodes#CORRUPTION} otherwise.
 *
 * <p>{@code DIR} holds {@code store/}, the op logs of the running cycle ({@code ops/}), the power
 * loss journal and the last child's stderr. It must be new or empty.
 *
 * <p>Thread safety: one instance per invocation.
 */
@Command(name = "stress", mixinStandardHelpOptions = true,
        description = "Crash test: cycles of a writer/reader child JVM killed with SIGKILL at a random moment "
                + "(optionally with power loss), each followed by a check that nothing acknowledged was lost.")
public final class StressCommand implements java.util.concurrent.Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = "--data", paramLabel = "DIR",
            description = "Working directory of the run (new or empty): the store is DIR/store.")
    Path data;

    @Option(names = "--cycles", paramLabel = "N", defaultValue = "10", description = "Kill-and-check cycles (default 10).")
    int cycles;

    @Option(names = "--threads", paramLabel = "T", defaultValue = "4", description = "Writer threads (default 4).")
    int threads;

    @Option(names = "--readers", paramLabel = "R", defaultValue = "2", description = "Reader threads (default 2).")
    int readers;

    @Option(names = "--keys", paramLabel = "K", defaultValue = "4000", description = "Keys written (default 4000).")
    int keys;

    @Option(names = "--sync-percent", paramLabel = "P", defaultValue = "20",
            description = "Percent of writes made with sync (default 20).")
    int syncPercent;

    @Option(names = "--power-loss",
            description = "After each kill also drop what was not durable: file data past its last sync, and "
                    + "creations, renames and deletions no directory sync followed.")
    boolean powerLoss;

    @Option(names = "--tear-manifest", description = "With --power-loss: the child dies inside one of its "
            + "MANIFEST syncs (one in four, a flush's or compaction's edit), and the power loss keeps a random prefix "
            + "of that unsynced edit: the next open must fall back to the edit before it by itself.")
    boolean tearManifest;

    @Option(names = "--seed", paramLabel = "S", description = "Seed of the kill times and the children's choices.")
    Long seed;

    @Option(names = "--min-run-millis", paramLabel = "MS", defaultValue = "200",
            description = "Shortest time the child runs after opening the store (default 200).")
    long minRunMillis;

    @Option(names = "--max-run-millis", paramLabel = "MS", defaultValue = "2000",
            description = "Longest time the child runs after opening the store (default 2000).")
    long maxRunMillis;

    @Option(names = "--json", paramLabel = "FILE", description = "Also write the figures to FILE as JSON.")
    Path json;

    private static final long START_TIMEOUT_SECONDS = 120;
    /** Children that died inside a MANIFEST sync so far. */
    private long tornEdits;

    @Override
    public Integer call() throws IOException {
        if (tearManifest && !powerLoss) {
            throw new IllegalArgumentException("--tear-manifest needs --power-loss: a torn edit is what a power loss leaves");
        }
        if (cycles < 1 || threads < 1 || readers < 0 || keys < threads || syncPercent < 0 || syncPercent > 100
                || minRunMillis < 0 || maxRunMillis < minRunMillis) {
            throw new IllegalArgumentException("need --cycles >= 1, --threads >= 1, --readers >= 0, --keys >= threads,"
                    + " 0 <= --sync-percent <= 100 and 0 <= --min-run-millis <= --max-run-millis");
        }
        Path dir = data != null ? data : ((Main) spec.root().userObject()).dataDir();
        prepare(dir);
        Path store = dir.resolve("store");
        Path ops = dir.resolve("ops");
        Path journal = dir.resolve("power-loss-journal.log");
        Path childErr = dir.resolve("child-stderr.log");
        Files.createDirectories(ops);
        long s = seed != null ? seed : System.nanoTime();
        SplittableRandom rnd = new SplittableRandom(s);
        PrintWriter out = spec.commandLine().getOut();
        out.printf("stress: %d cycles, %d writers, %d readers, %d keys, %d%% sync, power loss %s, seed %d, dir %s%n",
                cycles, threads, readers, keys, syncPercent, powerLoss ? (tearManifest ? "on, MANIFEST edits torn" : "on")
                        : "off", s, dir);
        out.flush();
        StressValues.ValueId[] baseline = new StressValues.ValueId[keys];
        Totals totals = new Totals();
        long started = System.nanoTime();
        String failure = null;
        for (int cycle = 1; cycle <= cycles && failure == null; cycle++) {
            Files.deleteIfExists(journal);
            for (int t = 0; t < threads; t++) {
                Files.deleteIfExists(OpLog.file(ops, t));
            }
            long runMillis = minRunMillis + (maxRunMillis == minRunMillis ? 0 : rnd.nextLong(maxRunMillis - minRunMillis + 1));
            // One cycle in ten kills the child at a random moment from its start, perhaps while it recovers.
            long earlyKill = rnd.nextInt(10) == 0 ? rnd.nextLong(maxRunMillis + 1) : -1;
            totals.killsFromStart += earlyKill >= 0 ? 1 : 0;
            failure = runChild(store, ops, powerLoss ? journal : null, childErr, cycle, rnd.nextLong(), runMillis,
                    earlyKill);
            if (failure != null) {
                break;
            }
            if (powerLoss) {
                PowerLoss.Result r = PowerLoss.apply(journal, tearManifest ? new SplittableRandom(rnd.nextLong()) : null);
                totals.changesUndone += r.changesUndone();
                totals.bytesDropped += r.bytesDropped();
            }
            CycleCheck.Outcome outcome;
            try (Store st = Store.open(store, StressChild.options())) {
                outcome = CycleCheck.check(st, ops, threads, cycle, powerLoss, baseline);
            } catch (IOException | RuntimeException e) {
                failure = "cycle " + cycle + ": the store does not reopen: " + e;
                break;
            }
            totals.add(outcome);
            totals.cycles = cycle;
            totals.tornManifestEdits = tornEdits;
            if (!outcome.clean()) {
                failure = "cycle " + cycle + ": " + String.join("; ", outcome.examples());
                break;
            }
            VerifyReport report = StoreVerifier.verify(store);
            if (!report.clean()) {
                totals.verifyErrors += report.errors().size();
                failure = "cycle " + cycle + ": verify found " + report.errors();
                break;
            }
            // Every cycle also closes the store while a compaction runs: close must leave nothing writing.
            try {
                CloseDuringCompaction.Result closeCheck = CloseDuringCompaction.run(store, StressChild.options(),
                        rnd.nextLong(20));
                totals.closesDuringCompaction += closeCheck.compactionInterrupted() ? 1 : 0;
                if (closeCheck.failure() != null) {
                    failure = "cycle " + cycle + ": " + closeCheck.failure();
                    break;
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                failure = "interrupted";
                break;
            }
            if (cycle % 10 == 0 || cycle == cycles) {
                out.printf("cycle %d: %d acknowledged writes (%d sync) so far, %d lost, %.0f s%n", cycle,
                        totals.acknowledged, totals.acknowledgedSync, totals.lost, seconds(started));
                out.flush();
            }
        }
        double seconds = seconds(started);
        Map<String, Object> figures = new LinkedHashMap<>();
        figures.put("cycles", totals.cycles);
        figures.put("threads", threads);
        figures.put("readers", readers);
        figures.put("keys", keys);
        figures.put("powerLoss", powerLoss);
        figures.put("tearManifest", tearManifest);
        figures.put("seed", s);
        figures.put("acknowledgedWrites", totals.acknowledged);
        figures.put("acknowledgedSyncWrites", totals.acknowledgedSync);
        figures.put("lostWrites", totals.lost);
        figures.put("phantomValues", totals.phantom);
        figures.put("tornValues", totals.torn);
        figures.put("holes", totals.holes);
        figures.put("verifyErrors", totals.verifyErrors);
        figures.put("verifiedKeys", totals.verifiedKeys);
        figures.put("killsFromStart", totals.killsFromStart);
        figures.put("tornManifestEdits", totals.tornManifestEdits);
        figures.put("closesDuringCompaction", totals.closesDuringCompaction);
        figures.put("directoryChangesUndone", totals.changesUndone);
        figures.put("unsyncedBytesDropped", totals.bytesDropped);
        figures.put("seconds", Math.round(seconds * 10) / 10.0);
        figures.put("failure", failure);
        if (json != null) {
            Files.writeString(json, Json.write(figures) + "\n", StandardCharsets.UTF_8);
        }
        out.printf("%s: %d cycles in %.0f s, %d acknowledged writes (%d sync), %d keys verified, %d lost, "
                        + "%d phantom, %d torn, %d holes%n", failure == null ? "passed" : "FAILED", totals.cycles,
                seconds, totals.acknowledged, totals.acknowledgedSync, totals.verifiedKeys, totals.lost,
                totals.phantom, totals.torn, totals.holes);
        out.flush();
        if (failure != null) {
            throw new CliException(ExitCodes.CORRUPTION, "stress " + failure + " (seed " + s + "; " + dir
                    + " is left as it was)");
        }
        return ExitCodes.OK;
    }

    private static double seconds(long startedNanos) {
        return (System.nanoTime() - startedNanos) / 1e9;
    }

    /** DIR must be new or empty: a run's expected state starts from an empty store. */
    private static void prepare(Path dir) throws IOException {
        if (Files.exists(dir)) {
            if (!Files.isDirectory(dir)) {
                throw new CliException(ExitCodes.USAGE, dir + " is not a directory");
            }
            try (Stream<Path> entries = Files.list(dir)) {
                if (entries.findAny().isPresent()) {
                    throw new CliException(ExitCodes.USAGE, dir + " is not empty: stress needs a new or empty"
                            + " directory (its expected state starts from an empty store)");
                }
            }
        }
        Files.createDirectories(dir);
    }

    /**
     * Runs one child and kills it with SIGKILL: after it has been open for {@code runMillis}, or,
     * when {@code earlyKillMillis} is not negative, that long after it started, whether it has
     * opened the store yet or not (a kill during recovery). Null when that went as planned, else
     * what went wrong (the child reported a violation or died by itself).
     */
    private String runChild(Path store, Path ops, Path journal, Path childErr, int cycle, long childSeed,
                            long runMillis, long earlyKillMillis) throws IOException {
        List<String> command = ChildJvm.javaCommand(StressChild.class);
        if (tearManifest) {
            command.add(1, "-D" + SyncJournalFileSystem.TEAR_PROPERTY + "=" + childSeed);
        }
        command.addAll(List.of(store.toString(), ops.toString(), journal == null ? "-" : journal.toString(),
                Integer.toString(threads), Integer.toString(readers), Integer.toString(keys),
                Integer.toString(cycle), Long.toString(childSeed), Integer.toString(syncPercent)));
        Process child = new ProcessBuilder(command).redirectError(childErr.toFile()).start();
        CountDownLatch ready = new CountDownLatch(1);
        Thread output = new Thread(() -> {
            try (BufferedReader lines = new BufferedReader(new InputStreamReader(child.getInputStream(),
                    StandardCharsets.UTF_8))) {
                // Read to the end, so that a full pipe never stalls the child.
                for (String line = lines.readLine(); line != null; line = lines.readLine()) {
                    if (line.equals(StressChild.READY)) {
                        ready.countDown();
                    }
                }
            } catch (IOException e) {
                // The child is gone.
            }
        }, "stress-child-output");
        output.setDaemon(true);
        output.start();
        try {
            if (earlyKillMillis >= 0) {
                if (child.waitFor(earlyKillMillis, TimeUnit.MILLISECONDS)) {
                    if (tearManifest && child.exitValue() == SyncJournalFileSystem.TORN_MANIFEST_EXIT) {
                        tornEdits++;
                        return null;
                    }
                    return "cycle " + cycle + ": the child ended by itself (exit " + child.exitValue() + "): "
                            + tail(childErr);
                }
                child.destroyForcibly().waitFor();
                return null;
            }
            boolean opened = awaitReady(ready, child);
            if (!child.isAlive() && tearManifest && child.exitValue() == SyncJournalFileSystem.TORN_MANIFEST_EXIT) {
                // Died inside a MANIFEST sync of its open (--tear-manifest): a planned end.
                tornEdits++;
                return null;
            }
            if (!opened || !child.isAlive()) {
                child.destroyForcibly().waitFor();
                return "cycle " + cycle + ": the child did not open the store (exit " + child.exitValue() + "): "
                        + tail(childErr);
            }
            if (child.waitFor(runMillis, TimeUnit.MILLISECONDS)) {
                if (tearManifest && child.exitValue() == SyncJournalFileSystem.TORN_MANIFEST_EXIT) {
                    tornEdits++;
                    return null;
                }
                return "cycle " + cycle + ": the child ended by itself (exit " + child.exitValue() + "): "
                        + tail(childErr);
            }
            child.destroyForcibly().waitFor();
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            child.destroyForcibly();
            throw new IOException("interrupted while running a stress child", e);
        }
    }

    /** Waits until the child reports the store open, or exits, or the start timeout passes; true when it is open. */
    private static boolean awaitReady(CountDownLatch ready, Process child) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(START_TIMEOUT_SECONDS);
        while (!ready.await(50, TimeUnit.MILLISECONDS)) {
            if (!child.isAlive() || System.nanoTime() > deadline) {
                return ready.getCount() == 0;
            }
        }
        return true;
    }

    private static String tail(Path file) throws IOException {
        List<String> all = Files.readAllLines(file, StandardCharsets.UTF_8);
        List<String> violations = new ArrayList<>();
        for (String l : all) {
            if (l.startsWith(StressChild.VIOLATION)) {
                violations.add(l);
            }
        }
        List<String> shown = violations.isEmpty() ? all.subList(Math.max(0, all.size() - 5), all.size()) : violations;
        return String.join(" | ", shown);
    }

    /** Sums over the cycles run. */
    private static final class Totals {
        int cycles;
        long acknowledged;
        long acknowledgedSync;
        long verifiedKeys;
        long lost;
        long phantom;
        long torn;
        long holes;
        long verifyErrors;
        long changesUndone;
        long bytesDropped;
        long killsFromStart;
        /** Cycles whose close check's close ended its compaction ({@link CloseDuringCompaction}). */
        long closesDuringCompaction;
        /** Cycles whose child died inside a MANIFEST sync (--tear-manifest). */
        long tornManifestEdits;

        void add(CycleCheck.Outcome o) {
            acknowledged += o.acknowledged();
            acknowledgedSync += o.acknowledgedSync();
            verifiedKeys += o.verifiedKeys();
            lost += o.lost();
            phantom += o.phantom();
            torn += o.torn();
            holes += o.holes();
        }
    }
}
