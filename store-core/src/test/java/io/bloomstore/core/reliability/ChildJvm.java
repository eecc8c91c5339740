package io.bloomstore.core.reliability;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A {@link CrashWriter} running in its own JVM (this JVM's java, test classpath and
 * {@code --add-opens}/{@code --add-exports} flags), whose standard output is read on a thread:
 * the last acknowledged operation and whether the store is open. Killed with SIGKILL
 * ({@link Process#destroyForcibly()}).
 *
 * <p>Thread safety: safe for the test thread and the reader thread.
 */
final class ChildJvm implements AutoCloseable {
    private final Process process;
    private final Thread reader;
    private final AtomicLong lastAck = new AtomicLong(-1);
    private final CountDownLatch opened = new CountDownLatch(1);
    private final StringBuilder stderr = new StringBuilder();

    private ChildJvm(Process process) {
        this.process = process;
        this.reader = new Thread(this::readAcks, "crash-child-stdout");
        reader.setDaemon(true);
        reader.start();
    }

    static ChildJvm start(String... args) throws IOException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        for (String flag : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
            if (flag.startsWith("--add-opens") || flag.startsWith("--add-exports")) {
                command.add(flag);
            }
        }
        command.add("-Xmx256m");
        command.add("-XX:TieredStopAtLevel=1");
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(CrashWriter.class.getName());
        command.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT);
        return new ChildJvm(pb.start());
    }

    private void readAcks() {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(),
                StandardCharsets.US_ASCII))) {
            for (String line = in.readLine(); line != null; line = in.readLine()) {
                if (line.equals("open")) {
                    opened.countDown();
                } else if (line.startsWith("ack ")) {
                    lastAck.set(Long.parseLong(line.substring(4)));
                }
            }
        } catch (IOException e) {
            // The pipe closes when the child dies; what was read so far is what was acknowledged.
        }
    }

    /** Waits until the child has opened the store; false when it died or the time ran out first. */
    boolean awaitOpen(long millis) throws InterruptedException {
        return opened.await(millis, TimeUnit.MILLISECONDS);
    }

    boolean isAlive() {
        return process.isAlive();
    }

    /** SIGKILL, then waits for the child and for every acknowledgement it printed before dying. */
    void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor();
        reader.join(10_000);
    }

    /** The last operation the child acknowledged, -1 for none. Meaningful after {@link #kill()}. */
    long lastAck() {
        return lastAck.get();
    }

    int exitCode() {
        return process.exitValue();
    }

    @Override
    public void close() throws InterruptedException {
        if (process.isAlive()) {
            kill();
        }
    }
}
