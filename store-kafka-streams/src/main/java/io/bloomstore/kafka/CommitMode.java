package io.bloomstore.kafka;

import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.processor.StateStoreContext;

import java.util.Map;

/**
 * How a BloomStore-backed Kafka store commits, decided once at {@code init} from the application's
 * configuration.
 *
 * <p><b>Transactional</b> (the default wherever Kafka's protocol allows it): writes stay in the
 * store's buffer ({@link PendingWrites}) until Kafka calls {@code commit(offsets)}, which Kafka does
 * after the task's transaction (or, under at-least-once, its offset commit) went through; the
 * buffer, the changelog offsets and the IQ position then reach the BloomStore together. The
 * BloomStore never holds an uncommitted write, so a crash leaves it at a commit and it opens
 * without a wipe; interactive queries at {@code READ_COMMITTED} skip the buffer.
 *
 * <p><b>Write-through</b>, only under {@code exactly_once_v2} with
 * {@code enable.transactional.statestores=false}: Kafka 4.4 then calls {@code commit} on a running
 * task's stores only when the task is suspended or closed, not at each transaction's commit, so a
 * store cannot tell which of its writes committed. It writes its buffer when the buffer passes a
 * bound and at close, and after a crash it refuses to open ({@link OpenStatus}) so Kafka rebuilds
 * it from the changelog: Kafka 4.4's behaviour with the setting off.
 *
 * <p>Thread safety: immutable.
 */
enum CommitMode {
    TRANSACTIONAL,
    WRITE_THROUGH;

    /** The mode for a store of the application whose configuration {@code context} carries. */
    static CommitMode of(StateStoreContext context) {
        Map<String, Object> config = context.appConfigs();
        boolean eos = StreamsConfig.EXACTLY_ONCE_V2.equals(config.get(StreamsConfig.PROCESSING_GUARANTEE_CONFIG));
        boolean setting = StreamsConfig.InternalConfig.getBoolean(config,
                StreamsConfig.TRANSACTIONAL_STATE_STORES_CONFIG, false);
        return eos && !setting ? WRITE_THROUGH : TRANSACTIONAL;
    }

    boolean transactional() {
        return this == TRANSACTIONAL;
    }
}
