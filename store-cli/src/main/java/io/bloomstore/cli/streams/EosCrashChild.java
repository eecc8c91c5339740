package io.bloomstore.cli.streams;

import io.bloomstore.kafka.BloomStoreDslStoreSuppliers;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.kstream.TimeWindows;
import org.apache.kafka.streams.processor.StateRestoreListener;
import org.apache.kafka.streams.state.BuiltInDslStoreSuppliers;
import org.apache.kafka.streams.state.Stores;

import java.util.Properties;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The instance {@code bench-streams --broker --workloads eos-crash} kills: a child JVM running one
 * {@link EosCrashBench} application under {@code exactly_once_v2} until SIGKILL. Prints
 * {@code STATE <state>} at each change, and at each restore's end {@code RESTORED <records>} and
 * {@code RESTORE-NANOS <ns>} (from the first restore's start).
 * args: bootstrap servers, application id, state directory, engine ({@code bloomstore} or
 * {@code rocksdb}), {@code enable.transactional.statestores} ({@code true}/{@code false}),
 * application ({@code dedup} or {@code windowed-count}), input topic, output topic, and the
 * {@code group.instance.id} of Kafka's static membership or {@code -} for none.
 */
public final class EosCrashChild {
    private EosCrashChild() {
    }

    public static void main(String[] args) throws InterruptedException {
        StreamsEngine engine = StreamsEngine.byCliName(args[3]);
        Properties p = new Properties();
        p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, args[0]);
        p.put(StreamsConfig.APPLICATION_ID_CONFIG, args[1]);
        p.put(StreamsConfig.STATE_DIR_CONFIG, args[2]);
        p.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
        p.put(StreamsConfig.TRANSACTIONAL_STATE_STORES_CONFIG, Boolean.parseBoolean(args[4]));
        p.put(StreamsConfig.NUM_STREAM_THREADS_CONFIG, 1);
        p.put(StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG, 0);
        p.put(StreamsConfig.DSL_STORE_SUPPLIERS_CLASS_CONFIG, engine == StreamsEngine.BLOOMSTORE
                ? BloomStoreDslStoreSuppliers.class : BuiltInDslStoreSuppliers.RocksDBDslStoreSuppliers.class);
        p.put(StreamsConfig.PROCESSING_EXCEPTION_HANDLER_GLOBAL_ENABLED_CONFIG, true);
        p.put(StreamsConfig.consumerPrefix("session.timeout.ms"), 6000);
        p.put(StreamsConfig.consumerPrefix("heartbeat.interval.ms"), 500);
        p.put(StreamsConfig.producerPrefix("transaction.timeout.ms"), 10000);
        if (!args[8].equals("-")) {
            p.put(StreamsConfig.consumerPrefix(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG), args[8]);
        }
        KafkaStreams streams = new KafkaStreams(topology(engine, args[5], args[6], args[7]), p);
        // With the JVM's age, so a log shows where a resume's time went (start, rebalance, restore).
        streams.setStateListener((now, before) -> System.out.println("STATE " + now + " at "
                + java.lang.management.ManagementFactory.getRuntimeMXBean().getUptime() + " ms"));
        AtomicLong firstStart = new AtomicLong();
        streams.setGlobalStateRestoreListener(new StateRestoreListener() {
            @Override
            public void onRestoreStart(TopicPartition partition, String store, long start, long end) {
                firstStart.compareAndSet(0, System.nanoTime());
            }

            @Override
            public void onBatchRestored(TopicPartition partition, String store, long batchEnd, long restored) {
            }

            @Override
            public void onRestoreEnd(TopicPartition partition, String store, long totalRestored) {
                System.out.println("RESTORED " + totalRestored);
                System.out.println("RESTORE-NANOS " + (System.nanoTime() - firstStart.get()));
                System.out.println("RESTORE-END " + store + " at "
                        + java.lang.management.ManagementFactory.getRuntimeMXBean().getUptime() + " ms");
            }
        });
        streams.start();
        Thread.currentThread().join();
    }

    /**
     * dedup: the first event of each id goes out; windowed-count: a count per key in 10 s tumbling
     * windows, every update out as {@code key@windowStart → count}.
     */
    static Topology topology(StreamsEngine engine, String application, String input, String output) {
        if (application.equals("dedup")) {
            Topology t = new Topology();
            t.addSource("source", Serdes.String().deserializer(), Serdes.String().deserializer(), input);
            t.addProcessor("dedup", StreamsWorkload.Dedup::new, "source");
            t.addStateStore(Stores.keyValueStoreBuilder(engine.keyValueStore(StreamsWorkload.DEDUP.storeName()),
                    Serdes.String(), Serdes.Long()), "dedup");
            t.addSink("sink", output, Serdes.String().serializer(), Serdes.String().serializer(), "dedup");
            return t;
        }
        StreamsBuilder builder = new StreamsBuilder();
        builder.stream(input, Consumed.with(Serdes.String(), Serdes.String()))
                .groupByKey()
                .windowedBy(TimeWindows.ofSizeWithNoGrace(BrokerWorkload.WINDOW))
                .count()
                .toStream((windowed, count) -> windowed.key() + "@" + windowed.window().start())
                .mapValues(String::valueOf)
                .to(output, Produced.with(Serdes.String(), Serdes.String()));
        return builder.build();
    }
}
