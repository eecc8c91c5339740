package io.bloomstore.core.fs;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;

/**
 * A file read through a {@link FaultInjectionFileSystem}: each read counts as a call that can fail
 * ({@link FaultInjectionFileSystem#failOperationAfter}) and fails at random as the
 * {@link FaultPlan} says; after a crash of its view every read fails.
 *
 * <p>Thread safety: reads may run from many threads at once, serialised on the plan only while
 * deciding their fault.
 */
final class FaultyReadFile implements RandomReadFile {
    private final FaultInjectionFileSystem fs;
    private final FaultPlan plan;
    private final Path path;
    private final RandomReadFile file;

    FaultyReadFile(FaultInjectionFileSystem fs, FaultPlan plan, Path path, RandomReadFile file) {
        this.fs = fs;
        this.plan = plan;
        this.path = path;
        this.file = file;
    }

    @Override
    public int read(long position, ByteBuffer dst) throws IOException {
        fs.checkAlive();
        synchronized (plan) {
            plan.count("read", path);
            if (plan.only.test(path) && plan.random.nextDouble() < plan.readProbability) {
                plan.faults++;
                throw new IOException(FaultInjectionFileSystem.IO_ERROR + " (injected) reading " + path);
            }
        }
        return file.read(position, dst);
    }

    @Override
    public long size() throws IOException {
        return file.size();
    }

    @Override
    public void close() throws IOException {
        file.close();
    }
}
