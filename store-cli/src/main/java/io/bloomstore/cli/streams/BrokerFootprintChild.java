package io.bloomstore.cli.streams;

import io.bloomstore.cli.bench.ManyStoresProbe;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.streams.KafkaStreams;

/**
 * The instance {@code bench-streams --broker --footprint} measures in a JVM of its own: one
 * {@link BrokerWorkload} application on one engine, configured as the in-process runs are, reading
 * its input to the end. Then, before closing, it prints {@code FOOTPRINT {json}}: events/s from
 * RUNNING to the last record, the process's OS threads (Java's and native ones alike), its
 * resident set and the heap in use. The broker's JVM is another process, so the figures are the
 * application instance's alone.
 * args: bootstrap servers, application id, state directory, engine, workload, input records,
 * exactly-once ({@code true}/{@code false}).
 */
public final class BrokerFootprintChild {
    static final String PREFIX = "FOOTPRINT ";

    private BrokerFootprintChild() {
    }

    public static void main(String[] args) throws Exception {
        StreamsEngine engine = StreamsEngine.byCliName(args[3]);
        BrokerWorkload workload = BrokerWorkload.byCliName(args[4]);
        long events = Long.parseLong(args[5]);
        KafkaStreams streams = new KafkaStreams(workload.topology(engine),
                BrokerBench.config(args[0], args[1], engine, Path.of(args[2]), Boolean.parseBoolean(args[6])));
        AtomicLong runningAt = new AtomicLong();
        streams.setStateListener((now, before) -> {
            if (now == KafkaStreams.State.RUNNING) {
                runningAt.compareAndSet(0, System.nanoTime());
            }
        });
        int status = 0;
        try {
            streams.start();
            BrokerBench.await(workload.cliName() + " on " + engine.cliName(), Math.max(180, events / 500), streams,
                    () -> BrokerBench.processed(streams) >= events);
            long elapsed = System.nanoTime() - runningAt.get();
            long heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
            System.out.println(PREFIX + String.format(Locale.ROOT, "{\"eventsPerSecond\":%.1f,\"threads\":%d,"
                    + "\"residentMiB\":%.1f,\"heapMiB\":%.1f}", events / (elapsed / 1e9), ManyStoresProbe.processThreads(),
                    ManyStoresProbe.residentKiB() / 1024.0, heap / 1048576.0));
        } catch (Exception | Error e) {
            e.printStackTrace();
            status = 1;
        } finally {
            streams.close(BrokerBench.leaving());
        }
        System.exit(status);
    }
}
