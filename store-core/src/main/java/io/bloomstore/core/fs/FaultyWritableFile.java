package io.bloomstore.core.fs;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;

/**
 * A file written through a {@link FaultInjectionFileSystem}: counts its written and synced bytes
 * (so a crash knows what to lose) and injects the write and sync faults of the {@link FaultPlan}:
 * random failures, a full disk, failing fsyncs, a crash at a chosen step.
 *
 * <p>Thread safety: as any {@link WritableFile}, one writer at a time; its writes and syncs
 * serialise on the plan with every other view's.
 */
final class FaultyWritableFile extends ForwardingWritableFile {
    private final FaultInjectionFileSystem fs;
    private final FaultPlan plan;
    private final Path path;
    /** Written and synced byte counts, shared with the plan's {@link FaultPlan#files}. */
    private final long[] state;

    FaultyWritableFile(FaultInjectionFileSystem fs, FaultPlan plan, Path path, WritableFile file, long[] state) {
        super(file);
        this.fs = fs;
        this.plan = plan;
        this.path = path;
        this.state = state;
    }

    @Override
    public void write(ByteBuffer data) throws IOException {
        synchronized (plan) {
            fs.step("write", path);
            boolean faulty = plan.only.test(path);
            if (faulty && plan.random.nextDouble() < plan.writeProbability) {
                plan.faults++;
                throw new IOException(FaultInjectionFileSystem.IO_ERROR + " (injected) writing " + path);
            }
            int n = data.remaining();
            if (faulty && n > plan.byteBudget) {
                // A full disk takes what fits, then refuses the rest.
                ByteBuffer fits = data.slice().limit((int) plan.byteBudget);
                state[0] += fits.remaining();
                base().write(fits);
                plan.byteBudget = 0;
                plan.faults++;
                throw new IOException(FaultInjectionFileSystem.DISK_FULL + " (injected) writing " + path);
            }
            if (faulty && plan.byteBudget != Long.MAX_VALUE) {
                plan.byteBudget -= n;
            }
            state[0] += n;
            base().write(data);
        }
    }

    @Override
    public void sync() throws IOException {
        plan.beforeSync.accept(path);
        synchronized (plan) {
            fs.step("sync", path);
            if (plan.only.test(path)) {
                if (plan.syncBudget == 0 || plan.random.nextDouble() < plan.syncProbability) {
                    plan.faults++;
                    throw new IOException(FaultInjectionFileSystem.IO_ERROR + " (injected fsync failure) syncing "
                            + path);
                }
                if (plan.syncBudget != Long.MAX_VALUE) {
                    plan.syncBudget--;
                }
            }
            base().sync();
            state[1] = state[0];
        }
    }
}
