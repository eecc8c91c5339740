package io.bloomstore.kafka;

import io.bloomstore.core.StoreOptions;
import io.bloomstore.core.StoreStats;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.RocksDBConfigSetter;
import org.apache.kafka.streams.state.Stores;
import org.apache.kafka.streams.state.WindowBytesStoreSupplier;
import org.apache.kafka.streams.state.WindowStore;
import org.apache.kafka.streams.state.WindowStoreIterator;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rocksdb.Options;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.Map;
import java.util.Properties;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A benchmark, not a timed test (runs with {@code -Pstress}): the store time of window fetches of
 * one key — a stream-stream join's probe — on a BloomStore window store and on Kafka's RocksDB
 * window store, both with 256 KiB memtables so the data (60,000 windows of 20,000 keys over 15
 * minutes: three segments) lies in many tables. Inside a {@code TopologyTestDriver} processor, 100
 * fetches per probe record, half for keys that are there, half for keys that are not (inside the
 * key range); only the fetches are timed. Three rounds, the engine order alternating; medians.
 * {@code mvn -pl store-kafka-streams -am verify -Pstress -Dtest=WindowFetchBenchmark -Dsurefire.failIfNoSpecifiedTests=false}
 */
@Tag("stress")
class WindowFetchBenchmark {
    private static final int KEYS = 20_000;
    private static final int LOADS = 60_000;
    private static final int PROBES = 600;
    private static final int FETCHES = 100;
    private static final long MINUTE = 60_000;

    @TempDir
    Path dir;

    /** Kafka's RocksDB options with the same 256 KiB memtable as the BloomStore. */
    public static final class SmallMemtable implements RocksDBConfigSetter {
        @Override
        public void setConfig(String storeName, Options options, Map<String, Object> configs) {
            options.setWriteBufferSize(256 * 1024);
        }

        @Override
        public void close(String storeName, Options options) {
        }
    }

    /** Puts the "load" records, times the fetches of the "probe" records. */
    static final class Bench implements Processor<String, String, Void, Void> {
        static long absentNanos;
        static long presentNanos;
        static long absentFound;
        static long presentFound;
        private WindowStore<String, String> store;
        private final Random rnd = new Random(3);

        @Override
        public void init(ProcessorContext<Void, Void> context) {
            store = context.getStateStore("w");
        }

        @Override
        public void process(Record<String, String> record) {
            if (record.value().equals("load")) {
                store.put(record.key(), "v" + record.timestamp(), record.timestamp() - record.timestamp() % MINUTE);
                return;
            }
            long to = record.timestamp();
            for (int i = 0; i < FETCHES; i++) {
                boolean present = i % 2 == 0;
                String key = "user-" + rnd.nextInt(KEYS) + (present ? "" : "-absent");
                long t0 = System.nanoTime();
                int n = 0;
                try (WindowStoreIterator<String> it = store.fetch(key, to - 5 * MINUTE, to)) {
                    while (it.hasNext()) {
                        it.next();
                        n++;
                    }
                }
                long t = System.nanoTime() - t0;
                if (present) {
                    presentNanos += t;
                    presentFound += n;
                } else {
                    absentNanos += t;
                    absentFound += n;
                }
            }
        }
    }

    private record Result(double absentNs, double presentNs, long blockReads) {
    }

    private Result run(boolean bloom, int round) {
        WindowBytesStoreSupplier supplier = bloom
                ? new Capturing(BloomStores.persistentWindowStore("w", Duration.ofMinutes(10), Duration.ofMinutes(1),
                        false, StoreOptions.builder().memtableBytes(256 * 1024).build()))
                : Stores.persistentWindowStore("w", Duration.ofMinutes(10), Duration.ofMinutes(1), false);
        Topology t = new Topology();
        t.addSource("in", Serdes.String().deserializer(), Serdes.String().deserializer(), "in");
        t.addProcessor("bench", Bench::new, "in");
        t.addStateStore(Stores.windowStoreBuilder(supplier, Serdes.String(), Serdes.String())
                .withCachingDisabled().withLoggingDisabled(), "bench");
        Properties p = new Properties();
        p.put(StreamsConfig.APPLICATION_ID_CONFIG, "bench");
        p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "localhost:1");
        p.put(StreamsConfig.STATE_DIR_CONFIG, dir.resolve((bloom ? "bloom-" : "rocks-") + round).toString());
        p.put(StreamsConfig.ROCKSDB_CONFIG_SETTER_CLASS_CONFIG, SmallMemtable.class);
        Bench.absentNanos = Bench.presentNanos = Bench.absentFound = Bench.presentFound = 0;
        long blockReads = -1;
        try (TopologyTestDriver driver = new TopologyTestDriver(t, p, Instant.ofEpochMilli(0))) {
            TestInputTopic<String, String> in = driver.createInputTopic("in", Serdes.String().serializer(),
                    Serdes.String().serializer());
            Random rnd = new Random(1);
            for (int i = 0; i < LOADS; i++) {
                in.pipeInput("user-" + rnd.nextInt(KEYS), "load", Instant.ofEpochMilli(i * 15 * MINUTE / LOADS));
            }
            long end = 15 * MINUTE;
            long before = bloom ? dataBlockReads() : 0;
            for (int i = 0; i < PROBES; i++) {
                in.pipeInput("probe", "probe", Instant.ofEpochMilli(end));
            }
            if (bloom) {
                blockReads = dataBlockReads() - before;
            }
        }
        assertEquals(0, Bench.absentFound, "absent keys found");
        assertTrue(Bench.presentFound > 0, "present keys found");
        int fetches = PROBES * FETCHES / 2;
        return new Result((double) Bench.absentNanos / fetches, (double) Bench.presentNanos / fetches, blockReads);
    }

    private static long dataBlockReads() {
        return Capturing.last.segmentStats().stream().mapToLong(StoreStats::dataBlockReads).sum();
    }

    /** Hands out the BloomStore supplier's stores and keeps the last, for its counters. */
    private record Capturing(WindowBytesStoreSupplier inner) implements WindowBytesStoreSupplier {
        static BloomWindowStore last;

        @Override
        public WindowStore<Bytes, byte[]> get() {
            last = (BloomWindowStore) inner.get();
            return last;
        }

        @Override
        public String name() {
            return inner.name();
        }

        @Override
        public String metricsScope() {
            return inner.metricsScope();
        }

        @Override
        public long segmentIntervalMs() {
            return inner.segmentIntervalMs();
        }

        @Override
        public long windowSize() {
            return inner.windowSize();
        }

        @Override
        public boolean retainDuplicates() {
            return inner.retainDuplicates();
        }

        @Override
        public long retentionPeriod() {
            return inner.retentionPeriod();
        }
    }

    @Test
    void absentAndPresentKeyFetches() {
        double[] absentRatio = new double[3];
        double[] presentRatio = new double[3];
        for (int round = 0; round < 3; round++) {
            boolean bloomFirst = round % 2 == 0;
            Result first = run(bloomFirst, round);
            Result second = run(!bloomFirst, round);
            Result bloom = bloomFirst ? first : second;
            Result rocks = bloomFirst ? second : first;
            absentRatio[round] = bloom.absentNs / rocks.absentNs;
            presentRatio[round] = bloom.presentNs / rocks.presentNs;
            System.out.printf("WindowFetchBenchmark round %d: absent key %.0f ns (BloomStore) vs %.0f ns (RocksDB),"
                            + " present key %.0f vs %.0f ns; BloomStore data-block reads during the probes: %d%n",
                    round, bloom.absentNs, rocks.absentNs, bloom.presentNs, rocks.presentNs, bloom.blockReads);
        }
        Arrays.sort(absentRatio);
        Arrays.sort(presentRatio);
        System.out.printf("WindowFetchBenchmark medians of 3: BloomStore/RocksDB store time per fetch, absent key %.2f,"
                + " present key %.2f%n", absentRatio[1], presentRatio[1]);
    }
}
