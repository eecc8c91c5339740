package io.bloomstore.cli.streams;

import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Grouped;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;

import java.util.Arrays;
import java.util.Locale;

/**
 * The topologies of {@code bloomstore bench-streams}:
 * <ul>
 *   <li>{@code dedup}: events keyed by id; a processor looks each id up in a key-value store,
 *       forwards and records the first event of an id and drops repeats. Most lookups are for
 *       ids never seen: BloomStore's missing-key case.
 *   <li>{@code wordcount}: lines split into words, grouped by word (a repartition) and counted
 *       into a DSL key-value store: a read-modify-write per word, mostly hits.
 * </ul>
 *
 * <p>Thread safety: immutable.
 */
enum StreamsWorkload {
    DEDUP("dedup", "seen", "events", "unique-events"),
    WORDCOUNT("wordcount", "counts", "lines", "word-counts");

    private final String cliName;
    private final String storeName;
    private final String inputTopic;
    private final String outputTopic;

    StreamsWorkload(String cliName, String storeName, String inputTopic, String outputTopic) {
        this.cliName = cliName;
        this.storeName = storeName;
        this.inputTopic = inputTopic;
        this.outputTopic = outputTopic;
    }

    String cliName() {
        return cliName;
    }

    String storeName() {
        return storeName;
    }

    String inputTopic() {
        return inputTopic;
    }

    String outputTopic() {
        return outputTopic;
    }

    static StreamsWorkload byCliName(String name) {
        for (StreamsWorkload w : values()) {
            if (w.cliName.equals(name.toLowerCase(Locale.ROOT))) {
                return w;
            }
        }
        throw new IllegalArgumentException("unknown workload '" + name + "'; known: dedup, wordcount");
    }

    Topology topology(StreamsEngine engine) {
        if (this == DEDUP) {
            Topology t = new Topology();
            t.addSource("source", Serdes.String().deserializer(), Serdes.String().deserializer(), inputTopic);
            t.addProcessor("dedup", Dedup::new, "source");
            t.addStateStore(Stores.keyValueStoreBuilder(engine.keyValueStore(storeName), Serdes.String(), Serdes.Long()),
                    "dedup");
            t.addSink("sink", outputTopic, Serdes.String().serializer(), Serdes.String().serializer(), "dedup");
            return t;
        }
        StreamsBuilder builder = new StreamsBuilder();
        builder.stream(inputTopic, Consumed.with(Serdes.String(), Serdes.String()))
                .flatMapValues(line -> Arrays.asList(line.split(" ")))
                .groupBy((k, word) -> word, Grouped.with(Serdes.String(), Serdes.String()))
                .count(Materialized.as(storeName))
                .toStream()
                .to(outputTopic, Produced.with(Serdes.String(), Serdes.Long()));
        return builder.build();
    }

    /** Forwards the first event of each id and remembers its timestamp; drops repeats. */
    static final class Dedup implements Processor<String, String, String, String> {
        private ProcessorContext<String, String> context;
        private KeyValueStore<String, Long> seen;

        @Override
        public void init(ProcessorContext<String, String> context) {
            this.context = context;
            this.seen = context.getStateStore(DEDUP.storeName);
        }

        @Override
        public void process(Record<String, String> record) {
            if (seen.get(record.key()) == null) {
                seen.put(record.key(), record.timestamp());
                context.forward(record);
            }
        }
    }
}
