package io.bloomstore.cli.streams;

import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.JoinWindows;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.kstream.StreamJoined;
import org.apache.kafka.streams.kstream.TimeWindows;
import org.apache.kafka.streams.state.Stores;

import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * The applications of {@code bloomstore bench-streams --broker}, each run by real
 * {@code KafkaStreams} instances against a broker:
 * <ul>
 *   <li>{@code dedup}: the Processor API dedup of {@link StreamsWorkload#DEDUP} (a key-value
 *       store, one {@code get} per event and a {@code put} per new id; 90% of ids are new).
 *   <li>{@code windowed-count}: a DSL count per key in 10 s tumbling windows (a window store, one
 *       {@code fetch(key, windowStart)} and one {@code put} per event); keys drawn Zipf-like from
 *       a vocabulary of 50,000, one event per millisecond of event time.
 *   <li>{@code join}: a DSL inner stream-stream join of two topics within 5 s (two window stores
 *       keeping duplicates; each event is put into its side's store and fetched against the
 *       other's). Half of the right-hand ids have a left partner, so half of the probes from the
 *       left side look for a key the other store does not hold.
 * </ul>
 * No topology repartitions, so the records the stream threads process equal the input records.
 *
 * <p>Thread safety: immutable.
 */
enum BrokerWorkload {
    DEDUP("dedup", "get"),
    WINDOWED_COUNT("windowed-count", "fetch"),
    JOIN("join", "fetch");

    static final Duration WINDOW = Duration.ofSeconds(10);
    static final Duration JOIN_WINDOW = Duration.ofSeconds(5);
    private static final int VOCABULARY = 50_000;

    private final String cliName;
    private final String lookup;

    BrokerWorkload(String cliName, String lookup) {
        this.cliName = cliName;
        this.lookup = lookup;
    }

    String cliName() {
        return cliName;
    }

    /** The store operation that answers "is this key there": {@code get} or {@code fetch}. */
    String lookupOperation() {
        return lookup;
    }

    static BrokerWorkload byCliName(String name) {
        for (BrokerWorkload w : values()) {
            if (w.cliName.equals(name.toLowerCase(Locale.ROOT))) {
                return w;
            }
        }
        throw new IllegalArgumentException("unknown broker workload '" + name + "'; known: dedup, windowed-count, join");
    }

    /** Input topics: one, or the left and right topics of the join. */
    List<String> inputTopics() {
        return this == JOIN ? List.of("bench-join-left", "bench-join-right") : List.of("bench-" + cliName + "-in");
    }

    String outputTopic() {
        return "bench-" + cliName + "-out";
    }

    Topology topology(StreamsEngine engine) {
        if (this == DEDUP) {
            Topology t = new Topology();
            t.addSource("source", Serdes.String().deserializer(), Serdes.String().deserializer(), inputTopics().get(0));
            t.addProcessor("dedup", StreamsWorkload.Dedup::new, "source");
            t.addStateStore(Stores.keyValueStoreBuilder(
                    engine.keyValueStore(StreamsWorkload.DEDUP.storeName()), Serdes.String(), Serdes.Long()), "dedup");
            t.addSink("sink", outputTopic(), Serdes.String().serializer(), Serdes.String().serializer(), "dedup");
            return t;
        }
        StreamsBuilder builder = new StreamsBuilder();
        if (this == WINDOWED_COUNT) {
            builder.stream(inputTopics().get(0), Consumed.with(Serdes.String(), Serdes.String()))
                    .groupByKey()
                    .windowedBy(TimeWindows.ofSizeWithNoGrace(WINDOW))
                    .count()
                    .toStream((windowed, count) -> windowed.key())
                    .to(outputTopic(), Produced.with(Serdes.String(), Serdes.Long()));
        } else {
            KStream<String, String> left = builder.stream(inputTopics().get(0), Consumed.with(Serdes.String(), Serdes.String()));
            KStream<String, String> right = builder.stream(inputTopics().get(1), Consumed.with(Serdes.String(), Serdes.String()));
            left.join(right, (l, r) -> l + r, JoinWindows.ofTimeDifferenceWithNoGrace(JOIN_WINDOW),
                            StreamJoined.with(Serdes.String(), Serdes.String(), Serdes.String()))
                    .to(outputTopic(), Produced.with(Serdes.String(), Serdes.String()));
        }
        return builder.build();
    }

    /** One input record: which of {@link #inputTopics()}, its key and its event-time offset in ms. */
    record Event(int topic, String key, long timeOffsetMs) {
    }

    /** The input, one event per millisecond of event time, the same for every engine. */
    Event[] events(int n, long seed) {
        Event[] out = new Event[n];
        if (this == DEDUP) {
            String[] ids = StreamsEvents.dedup(n, 0.9, seed).records();
            for (int i = 0; i < n; i++) {
                out[i] = new Event(0, ids[i], i);
            }
        } else if (this == WINDOWED_COUNT) {
            SplittableRandom rnd = new SplittableRandom(seed);
            for (int i = 0; i < n; i++) {
                int rank = (int) Math.max(0, Math.min(VOCABULARY - 1,
                        Math.floor(1.0 / (rnd.nextDouble() + 1.0 / VOCABULARY)) - 1));
                out[i] = new Event(0, "w" + rank, i);
            }
        } else {
            SplittableRandom rnd = new SplittableRandom(seed);
            for (int i = 0; i < n; i++) {
                long pair = i / 2;
                boolean leftSide = i % 2 == 0;
                String key = leftSide || rnd.nextBoolean() ? StreamsEvents.idOf(pair) : StreamsEvents.idOf(pair | (1L << 40));
                out[i] = new Event(leftSide ? 0 : 1, key, i);
            }
        }
        return out;
    }
}
