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

/**
 * A {@link CrashWriter} running in its own JVM (this JVM's java, test classpath and
 * {@code --add-opens}/{@code --add-exports} flags), whose standard output is read on a thread
 * to learn when the store is open. Killed with SIGKILL
 * ({@link Process#destroyForcibly()}).
 *
 * <p>Thread safety: safe for the test thread and the reader thread.
 */
final class ChildJvm implements AutoCloseable {
    private final Process process;
    private final Thread reader;
    private final CountDownLatch opened = new CountDownLatch(1);
    private volatile long compactions;

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
                } else if (line.startsWith("compactions ")) {
                    compactions = Long.parseLong(line.substring("compactions ".length()));
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

    /** Compactions the child reported completing (complete after {@link #kill()}). */
    long compactions() {
        return compactions;
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

    /**
     * The last operation acknowledged in an ack file a {@link CrashWriter} appended to, -1 for
     * none; a line cut short by the kill does not count.
     */
    static long lastAck(Path ackFile) throws IOException {
        if (!java.nio.file.Files.exists(ackFile)) {
            return -1;
        }
        String text = java.nio.file.Files.readString(ackFile, StandardCharsets.US_ASCII);
        int end = text.lastIndexOf('\n');
        if (end < 0) {
            return -1;
        }
        int start = text.lastIndexOf('\n', end - 1) + 1;
        return Long.parseLong(text.substring(start, end).substring(4));
    }

    int exitCode() {
        return process.exitValue();
    }

    /** Waits for the child to exit by itself; false when it still runs after {@code millis}. */
    boolean awaitExit(long millis) throws InterruptedException {
        return process.waitFor(millis, TimeUnit.MILLISECONDS);
    }

    @Override
    public void close() throws InterruptedException {
        if (process.isAlive()) {
            kill();
        }
    }
}
