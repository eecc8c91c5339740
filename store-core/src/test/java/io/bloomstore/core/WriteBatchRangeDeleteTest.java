package io.bloomstore.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link WriteBatch#deleteRange}: one operation in order with the others, copied from the caller's
 * arrays, kept by {@link WriteBatch#copy()}, gone after {@link WriteBatch#clear()}; an empty range
 * adds nothing; a reversed one is refused; a handler written before range deletion refuses it.
 */
class WriteBatchRangeDeleteTest {
    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static List<String> ops(WriteBatch batch) {
        List<String> out = new ArrayList<>();
        batch.forEach(new WriteBatch.Handler() {
            @Override
            public void put(byte[] key, byte[] value) {
                out.add("put " + new String(key, StandardCharsets.UTF_8));
            }

            @Override
            public void delete(byte[] key) {
                out.add("delete " + new String(key, StandardCharsets.UTF_8));
            }

            @Override
            public void deleteRange(byte[] from, byte[] to) {
                out.add("deleteRange " + new String(from, StandardCharsets.UTF_8) + " "
                        + new String(to, StandardCharsets.UTF_8));
            }
        });
        return out;
    }

    @Test
    void inOrderCopiedAndCleared() {
        byte[] from = b("a");
        WriteBatch batch = new WriteBatch().put(b("k"), b("v")).deleteRange(from, b("c")).delete(b("z"));
        from[0] = 'x';
        assertEquals(List.of("put k", "deleteRange a c", "delete z"), ops(batch));
        assertEquals(3, batch.count());
        assertTrue(batch.hasRangeDeletion());
        WriteBatch copy = batch.copy();
        batch.clear();
        assertFalse(batch.hasRangeDeletion());
        assertEquals(List.of(), ops(batch));
        assertEquals(List.of("put k", "deleteRange a c", "delete z"), ops(copy));
        assertTrue(copy.toString().contains("deleteRange"), copy.toString());
    }

    @Test
    void emptyRangeAddsNothingReversedIsRefused() {
        WriteBatch batch = new WriteBatch().deleteRange(b("m"), b("m"));
        assertEquals(0, batch.count());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> batch.deleteRange(b("n"), b("m")));
        assertTrue(e.getMessage().contains("after"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> batch.deleteRange(b("a"), null));
    }

    @Test
    void aHandlerWithoutRangeDeletionRefusesIt() {
        WriteBatch batch = new WriteBatch().deleteRange(b("a"), b("b"));
        assertThrows(UnsupportedOperationException.class, () -> batch.forEach(new WriteBatch.Handler() {
            @Override
            public void put(byte[] key, byte[] value) {
            }

            @Override
            public void delete(byte[] key) {
            }
        }));
    }
}
