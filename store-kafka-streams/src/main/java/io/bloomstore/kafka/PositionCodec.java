package io.bloomstore.kafka;

import org.apache.kafka.streams.query.Position;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.HashMap;
import java.util.Map;

/**
 * Serializes a Kafka Streams {@link Position} (topic → partition → offset, the changelog or
 * input offsets a store's contents reflect) so the store can keep it beside its data. Format:
 * {@code version:u8, topics:i32, (topic:UTF, partitions:i32, (partition:i32, offset:i64)^partitions)^topics}.
 *
 * <p>Thread safety: stateless.
 */
final class PositionCodec {
    private static final int VERSION = 1;

    private PositionCodec() {
    }

    static byte[] encode(Position position) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeByte(VERSION);
            out.writeInt(position.getTopics().size());
            for (String topic : position.getTopics()) {
                Map<Integer, Long> partitions = position.getPartitionPositions(topic);
                out.writeUTF(topic);
                out.writeInt(partitions.size());
                for (Map.Entry<Integer, Long> e : partitions.entrySet()) {
                    out.writeInt(e.getKey());
                    out.writeLong(e.getValue());
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    /** @throws IllegalStateException when the bytes are not an encoded position */
    static Position decode(byte[] encoded) {
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(encoded))) {
            int version = in.readUnsignedByte();
            if (version != VERSION) {
                throw new IllegalStateException("stored position has version " + version + ", expected " + VERSION);
            }
            Map<String, Map<Integer, Long>> map = new HashMap<>();
            int topics = in.readInt();
            for (int t = 0; t < topics; t++) {
                String topic = in.readUTF();
                int count = in.readInt();
                Map<Integer, Long> partitions = new HashMap<>();
                for (int p = 0; p < count; p++) {
                    partitions.put(in.readInt(), in.readLong());
                }
                map.put(topic, partitions);
            }
            if (in.available() != 0) {
                throw new IllegalStateException("stored position has " + in.available() + " trailing bytes");
            }
            return Position.fromMap(map);
        } catch (IOException e) {
            throw new IllegalStateException("stored position is truncated", e);
        }
    }
}
