package io.bloomstore.cli;

import java.util.Map;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;

/**
 * JSON output of the commands' {@code --json} options: one pretty-printed object per call,
 * fields in insertion order; and the one-line reports child JVMs print, read back.
 *
 * <p>Thread safety: safe (Jackson's writer is).
 */
public final class Json {
    private static final ObjectMapper MAPPER = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private Json() {
    }

    /** The object as JSON text; pass a LinkedHashMap to keep the field order. */
    public static String write(Map<String, ?> object) {
        try {
            return MAPPER.writeValueAsString(object);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write JSON", e);
        }
    }

    /** The JSON object {@code text} (a child JVM's report line, say) as a map. */
    @SuppressWarnings("unchecked")
    public static Map<String, Object> parseObject(String text) {
        try {
            return MAPPER.readValue(text, Map.class);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("not a JSON object: " + text, e);
        }
    }
}
